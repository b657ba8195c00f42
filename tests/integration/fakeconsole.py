#!/usr/bin/env python3
"""fakeconsole: a console socket that fails a hook's request on purpose.

    fakeconsole.py SOCKET close	read each request line, then close (a
				console that dies mid-request)
    fakeconsole.py SOCKET hang	read each request line, never answer

Connections that send nothing (a probe) are closed when they close."""
import os
import socket
import sys
import threading

path, mode = sys.argv[1], sys.argv[2]
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
srv.listen(8)
held = []


def serve(c):
    data = b""
    while b"\n" not in data:
        chunk = c.recv(65536)
        if not chunk:
            c.close()
            return
        data += chunk
    if mode == "close":
        c.close()
    else:
        held.append(c)


open(path + ".ready", "w").close()
while True:
    conn, _ = srv.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
