#!/usr/bin/env python3
"""Print a random shell-free file-operation program for undo tests.

usage: undo-gen.py SEED MODE
MODE "setup" builds a starting tree in the current directory; MODE "run"
prints a python3 program (to run inside the sandbox) that changes it with
creates, writes, O_RDWR, truncates, renames over, hard links, chmod,
symlinks, deletes, mmap writes, names through "..", and deep trees,
from several threads.
"""
import sys

seed, mode = int(sys.argv[1]), sys.argv[2]
# "run-owner": chmod never takes the owner's own rwx away (an ordinary
# user's bwgate cannot look below a directory its command closed to it).
modes = "[0o700, 0o755]" if mode == "run-owner" else "[0o600, 0o640, 0o700, 0o755]"
if mode == "run-owner":
    mode = "run"

if mode == "setup":
    import os, random
    r = random.Random(seed)
    for i in range(40):
        d = "/".join("d%d" % r.randrange(4) for _ in range(r.randrange(4)))
        if d:
            os.makedirs(d, exist_ok=True)
        p = (d + "/" if d else "") + "f%d" % i
        if os.path.exists(p):
            continue
        with open(p, "wb") as f:
            f.write(bytes(r.randrange(256) for _ in range(r.randrange(3000))))
        os.chmod(p, r.choice([0o644, 0o600, 0o755, 0o444]))
    files = [os.path.join(dp, f) for dp, _, fs in os.walk(".")
             if "/.git" not in dp + "/" for f in fs]
    for i in range(3):
        os.symlink(r.choice(files), "s%d" % i)
    a = r.choice([f for f in files if os.path.isfile(f)])
    if not os.path.exists("hl"):
        os.link(a, "hl")
    sys.exit(0)

print(r'''
import os, random, mmap, threading, sys
r0 = random.Random(%d)
MODES = %s
def files():
    out = []
    for dp, ds, fs in os.walk("."):
        if ".git" in dp.split(os.sep):
            continue
        ds[:] = [d for d in ds if d != ".git"]
        out += [os.path.join(dp, f) for f in fs]
        out += [os.path.join(dp, d) for d in ds]
    return sorted(out)
def step(r):
    fs = files()
    if not fs:
        return
    p = r.choice(fs)
    op = r.randrange(16)
    try:
        if op == 0:
            d = "/".join("n%%d" %% r.randrange(3) for _ in range(r.randrange(1, 6)))
            os.makedirs(d, exist_ok=True)
            open(d + "/new%%d" %% r.randrange(100), "w").write("x" * r.randrange(100))
        elif op == 1 and os.path.isfile(p) and not os.path.islink(p):
            open(p, "w").write("rewritten %%d" %% r.randrange(1000))
        elif op == 2 and os.path.isfile(p) and not os.path.islink(p):
            fd = os.open(p, os.O_RDWR)
            os.pwrite(fd, b"RW", r.randrange(10))
            os.close(fd)
        elif op == 3 and os.path.isfile(p) and not os.path.islink(p):
            os.truncate(p, r.randrange(5))
        elif op == 4:
            q = r.choice(fs)
            if not os.path.isdir(q) or os.path.islink(q):
                os.rename(p, q)
        elif op == 5 and os.path.isfile(p) and not os.path.islink(p):
            os.link(p, "link%%d" %% r.randrange(1000))
        elif op == 6:
            os.chmod(p, r.choice(MODES), follow_symlinks=False)
        elif op == 7:
            os.symlink(r.choice(fs), "sym%%d" %% r.randrange(1000))
        elif op == 8 and (os.path.islink(p) or os.path.isfile(p)):
            os.unlink(p)
        elif op == 9 and os.path.isdir(p) and not os.path.islink(p):
            import shutil
            shutil.rmtree(p)
        elif op == 10 and os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p) > 4:
            with open(p, "r+b") as f:
                m = mmap.mmap(f.fileno(), 0)
                m[0:2] = b"MM"
                m.close()
        elif op == 11 and os.path.isdir(p) and not os.path.islink(p):
            os.rename(p, "moved%%d" %% r.randrange(1000))
        elif op == 12:
            t = p + ".tmp"
            open(t, "w").write("atomic")
            os.rename(t, p)
        elif op == 13 and os.path.isfile(p) and not os.path.islink(p):
            open(p, "a").write("appended")
        elif op == 14:
            # Names through "..": a link, a rename, a write.
            ds = [f for f in fs if os.path.isdir(f) and not os.path.islink(f)]
            if ds and os.path.isfile(p) and not os.path.islink(p):
                d = r.choice(ds)
                q = os.path.join(d, "..", "up%%d" %% r.randrange(1000))
                k = r.randrange(3)
                if k == 0:
                    os.link(os.path.join(d, "..", p), q)
                elif k == 1:
                    os.rename(os.path.join(d, "..", p), q)
                else:
                    open(os.path.join(d, "..", p), "w").write("dotdot")
        elif op == 15:
            os.symlink(os.path.join("..", r.choice(fs)), "rel%%d" %% r.randrange(1000))
    except OSError:
        pass
def worker(k):
    r = random.Random(%d * 100 + k)
    for _ in range(25):
        step(r)
ts = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
for t in ts: t.start()
for t in ts: t.join()
''' % (seed, modes, seed))
