#!/usr/bin/env python3
"""changes-random: random file operations in the sandbox; the change report
must equal a before/after comparison of the tree made here.

    changes-random.py BWGATE WORKDIR SEED COUNT

Each of COUNT rounds (seeds SEED, SEED+1, ...) builds a fresh project,
records every entry (lstat and statx birth time, content digest), runs a
generated Python program with `bwgate exec --json` in it, records the tree
again and computes the report the definition in doc/change-report.md gives
(the same rules as snapshot-diff.c, written again here from the document):
created, deleted, renamed (paired by device, inode, type and birth time;
implied renames below a renamed directory left out) and modified. Any
difference prints the seed, the program and both reports, and the exit
status is 1. Every round prints "ok SEED" or "not ok SEED".
"""
import ctypes
import functools
import hashlib
import json
import os
import random
import stat
import subprocess
import sys

# --- the tree, before and after ------------------------------------------

AT_SYMLINK_NOFOLLOW = 0x100
STATX_BTIME = 0x800


class StatxTs(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_int64), ("nsec", ctypes.c_uint32),
                ("pad", ctypes.c_int32)]


class Statx(ctypes.Structure):
    _fields_ = [("mask", ctypes.c_uint32), ("blksize", ctypes.c_uint32),
                ("attributes", ctypes.c_uint64), ("nlink", ctypes.c_uint32),
                ("uid", ctypes.c_uint32), ("gid", ctypes.c_uint32),
                ("mode", ctypes.c_uint16), ("pad1", ctypes.c_uint16),
                ("ino", ctypes.c_uint64), ("size", ctypes.c_uint64),
                ("blocks", ctypes.c_uint64),
                ("attributes_mask", ctypes.c_uint64),
                ("atime", StatxTs), ("btime", StatxTs), ("ctime", StatxTs),
                ("mtime", StatxTs), ("rest", ctypes.c_uint64 * 20)]


LIBC = ctypes.CDLL(None, use_errno=True)


def birth(path):
    """Birth time in nanoseconds, or None where it is not recorded."""
    sx = Statx()
    if LIBC.statx(-100, os.fsencode(path), AT_SYMLINK_NOFOLLOW,
                  STATX_BTIME, ctypes.byref(sx)) != 0:
        return None
    if not sx.mask & STATX_BTIME:
        return None
    return sx.btime.sec * 1000000000 + sx.btime.nsec


def tree(root):
    """Every entry below root (not root): path -> its record."""
    out = {}
    for d, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(d, name)
            rel = os.path.relpath(p, root)
            st = os.lstat(p)
            digest = None
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
            out[rel] = dict(mode=st.st_mode, uid=st.st_uid, gid=st.st_gid,
                            nlink=st.st_nlink, dev=st.st_dev, ino=st.st_ino,
                            size=st.st_size, mtime=st.st_mtime_ns,
                            ctime=st.st_ctime_ns, btime=birth(p),
                            digest=digest)
        # os.walk does not descend into links to directories: fine.
    return out


# --- the definition (doc/change-report.md, "What counts as what") --------

def isdir(e):
    return stat.S_ISDIR(e["mode"])


def content_changed(b, a, with_ctime):
    if b["mode"] != a["mode"] or b["uid"] != a["uid"] or b["gid"] != a["gid"]:
        return True
    if isdir(a):
        return False
    if b["size"] != a["size"] or b["mtime"] != a["mtime"]:
        return True
    # A content change that kept size and mtime still changes the digest.
    if b["digest"] != a["digest"]:
        return True
    return with_ctime and b["ctime"] != a["ctime"] and b["nlink"] == a["nlink"]


def changed(b, a):
    if stat.S_IFMT(b["mode"]) != stat.S_IFMT(a["mode"]):
        return True
    if b["dev"] != a["dev"] or b["ino"] != a["ino"]:
        return True
    if b["btime"] is not None and a["btime"] is not None and \
            b["btime"] != a["btime"]:
        return True
    return content_changed(b, a, True)


def same_object(v, a):
    if v["dev"] != a["dev"] or v["ino"] != a["ino"] or \
            stat.S_IFMT(v["mode"]) != stat.S_IFMT(a["mode"]):
        return False
    if v["btime"] is not None and a["btime"] is not None:
        return v["btime"] == a["btime"]
    return v["mtime"] == a["mtime"]


def path_cmp(x, y, post):
    """Component order ('/' first); post: ancestors after descendants."""
    x, y = os.fsencode(x), os.fsencode(y)
    for cx, cy in zip(x, y):
        if cx != cy:
            kx = 0 if cx == ord("/") else cx + 1
            ky = 0 if cy == ord("/") else cy + 1
            return kx - ky
    if len(x) == len(y):
        return 0
    if post:
        if len(x) < len(y) and y[len(x)] == ord("/"):
            return 1
        if len(y) < len(x) and x[len(y)] == ord("/"):
            return -1
    return -1 if len(x) < len(y) else 1


PRE = functools.cmp_to_key(lambda x, y: path_cmp(x, y, False))
POST = functools.cmp_to_key(lambda x, y: path_cmp(x, y, True))


def expected(before, after):
    appeared = sorted((p for p in after if p not in before), key=PRE)
    vanished = sorted((p for p in before if p not in after), key=POST)
    modified = [p for p in after if p in before and
                changed(before[p], after[p])]
    used = set()
    pairs = []
    for a in appeared:
        for v in vanished:
            if v not in used and same_object(before[v], after[a]):
                used.add(v)
                pairs.append((v, a))
                break
    pair_of = dict(pairs)
    renamed = []
    for f, t in pairs:
        fp, tp = os.path.dirname(f), os.path.dirname(t)
        implied = (fp and tp and os.path.basename(f) == os.path.basename(t)
                   and pair_of.get(fp) == tp)
        if not implied:
            renamed.append({"from": f, "to": t})
        if content_changed(before[f], after[t], implied):
            modified.append(t)
    to = {t for _, t in pairs}
    return {
        "created": sorted((p for p in appeared if p not in to), key=PRE),
        "modified": sorted(modified, key=PRE),
        "deleted": sorted((p for p in vanished if p not in used), key=POST),
        "renamed": sorted(renamed, key=lambda r: PRE(r["from"])),
    }


# --- the generator --------------------------------------------------------

DIRS = ["", "d", "d/e", "f"]
NAMES = ["a", "b", "c", "x", "y", "z"]


def populate(root, rnd):
    """A project: files, a hard-linked pair, links, directories."""
    for d in DIRS:
        os.makedirs(os.path.join(root, d), exist_ok=True)
    for d in DIRS:
        for n in rnd.sample(NAMES, 3):
            with open(os.path.join(root, d, n), "w") as f:
                f.write("%s/%s %d\n" % (d, n, rnd.randrange(1000)))
    first = sorted(n for n in os.listdir(os.path.join(root, "d"))
                   if n in NAMES)[0]
    os.link(os.path.join(root, "d", first), os.path.join(root, "hl"))
    os.symlink("d/e", os.path.join(root, "sl"))
    os.symlink("d", os.path.join(root, "sd"))


def a_path(rnd):
    d = rnd.choice(DIRS)
    n = rnd.choice(NAMES + ["new%d" % rnd.randrange(4)] +
                   (["hl"] if rnd.random() < 0.3 else []))
    return n if d == "" else d + "/" + n


# Each operation: a line of the program (it runs in the project, errors
# are ignored: a name an earlier operation removed just fails).
def op_line(rnd):
    p, q = a_path(rnd), a_path(rnd)
    data = "w%d" % rnd.randrange(10 ** 6)
    # The operations that widen the report (a file with other hard
    # links, a symbolic link made) less often: both ways are exercised.
    k = rnd.randrange(24)
    if k in (5, 15, 16, 18, 20, 23) and rnd.random() < 0.6:
        k = rnd.choice([0, 1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 21])
    if k == 0:
        return "create(%r, %r)" % (p, data)
    if k == 1:
        return "append(%r, %r)" % (p, data)
    if k == 2:
        return "rdwr(%r, %r)" % (p, data)
    if k == 3:
        return "os.truncate(%r, %d)" % (p, rnd.randrange(4))
    if k == 4:
        return "os.rename(%r, %r)" % (p, q)
    if k == 5:
        return "link_write(%r, %r, %r)" % (p, q, data)
    if k == 6:
        # sl -> d/e: "sl/../N" is d/N, not N.
        return "create('sl/../%s', %r)" % (rnd.choice(NAMES), data)
    if k == 7:
        return "via_fd(%r, %r)" % (p, data)
    if k == 8:
        return "create('/proc/self/cwd/%s', %r)" % (p, data)
    if k == 9:
        return "mmap_write(%r, %r)" % (p, data)
    if k == 10:
        return "os.chmod(%r, 0o%o)" % (p, rnd.choice([0o600, 0o644,
                                                        0o755, 0o700]))
    if k == 11:
        return "pass_fd(%r, %r)" % (p, data)
    if k == 12:
        return "threads([%r, %r], %r)" % (p, q, data)
    if k == 13:
        return "os.unlink(%r)" % p
    if k == 14:
        return "os.mkdir(%r)" % p
    if k == 15:
        return "os.symlink(%r, %r)" % (rnd.choice(["d", "/etc", "../x"]), p)
    if k == 16:
        return "unlinked_write(%r, %r, %r)" % (p, q, data)
    if k == 17:
        return "create('sd/../%s', %r)" % (p, data)
    if k == 18:
        return "append('hl', %r)" % data
    if k == 19:
        return "create('/proc/thread-self/cwd/%s', %r)" % (p, data)
    if k == 20:
        return "race_link(%d)" % rnd.randrange(1000)
    if k == 21:
        return "race_dir(%d)" % rnd.randrange(1000)
    if k == 23:
        return "race_cwd(%d)" % rnd.randrange(1000)
    return "os.rename(%r, 'f/moved%d')" % (rnd.choice(["d", "d/e", "f"]),
                                           rnd.randrange(3))


PRELUDE = r'''
import mmap, os, socket, threading
def create(p, s):
    with open(p, "w") as f: f.write(s)
def append(p, s):
    with open(p, "a") as f: f.write(s)
def rdwr(p, s):
    fd = os.open(p, os.O_RDWR)
    try: os.pwrite(fd, s.encode(), 1)
    finally: os.close(fd)
def link_write(p, q, s):
    os.link(p, q)
    append(q, s)
def via_fd(p, s):
    fd = os.open(p, os.O_RDONLY)
    try: append("/proc/self/fd/%d" % fd, s)
    finally: os.close(fd)
def mmap_write(p, s):
    fd = os.open(p, os.O_RDWR)
    try:
        if os.fstat(fd).st_size > 0:
            m = mmap.mmap(fd, 0)
            m[0:1] = s[-1:].encode()
            m.close()
    finally: os.close(fd)
def pass_fd(p, s):
    a, b = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        try:
            fd = os.open(p, os.O_RDWR | os.O_APPEND)
            socket.send_fds(a, [b"f"], [fd])
        except OSError:
            a.send(b"n")
        os._exit(0)
    msg, fds, _, _ = socket.recv_fds(b, 1, 1)
    os.waitpid(pid, 0)
    for fd in fds:
        os.write(fd, s.encode())
        os.close(fd)
def threads(ps, s):
    def one(p):
        try: append(p, s)
        except OSError: pass
    ts = [threading.Thread(target=one, args=(p,)) for p in ps]
    for t in ts: t.start()
    for t in ts: t.join()
def race_link(n):
    # One thread writes through "sl" while another swaps where it leads.
    def writer():
        for i in range(30):
            try: create("sl/r%d-%d" % (n, i), "r")
            except OSError: pass
    def swapper():
        for i in range(30):
            try:
                os.symlink("d" if i % 2 else "f", "sl.tmp")
                os.rename("sl.tmp", "sl")
            except OSError: pass
    ts = [threading.Thread(target=writer), threading.Thread(target=swapper)]
    for t in ts: t.start()
    for t in ts: t.join()
def race_dir(n):
    # One thread writes into f/ while another moves f away and back.
    def writer():
        for i in range(30):
            try: create("f/q%d-%d" % (n, i), "q")
            except OSError: pass
    def mover():
        for i in range(30):
            try:
                os.rename("f", "f2")
                os.rename("f2", "f")
            except OSError: pass
    ts = [threading.Thread(target=writer), threading.Thread(target=mover)]
    for t in ts: t.start()
    for t in ts: t.join()
def race_cwd(n):
    # Threads write relative to a descriptor and to the working directory
    # while another changes directory and swaps the descriptor.
    fd = os.open("d", os.O_RDONLY)
    def writer():
        for i in range(20):
            try:
                os.close(os.open("c%d-%d" % (n, i), os.O_WRONLY | os.O_CREAT,
                                 dir_fd=fd))
                create("w%d-%d" % (n, i), "c")
            except OSError: pass
    def changer():
        for i in range(20):
            try:
                os.chdir("d" if i % 2 == 0 else "..")
                e = os.open("f" if i % 2 else "d/e", os.O_RDONLY)
                os.dup2(e, fd)
                os.close(e)
            except OSError: pass
    ts = [threading.Thread(target=writer), threading.Thread(target=changer)]
    for t in ts: t.start()
    for t in ts: t.join()
    os.close(fd)
def unlinked_write(p, q, s):
    os.link(p, q)
    fd = os.open(p, os.O_RDWR | os.O_APPEND)
    os.unlink(p)
    os.write(fd, s.encode())
    os.close(fd)
'''


def program(rnd, n):
    lines = [PRELUDE]
    for _ in range(n):
        lines.append("try: %s\nexcept OSError: pass" % op_line(rnd))
    return "\n".join(lines) + "\n"


def norm(ch):
    return {k: (sorted(ch.get(k, []), key=lambda r: PRE(r["from"]))
                if k == "renamed" else sorted(ch.get(k, []), key=PRE))
            for k in ("created", "modified", "deleted", "renamed")}


def round_(bwgate, work, seed):
    rnd = random.Random(seed)
    root = os.path.join(work, "p%d" % seed)
    os.makedirs(root)
    populate(root, rnd)
    prog = program(rnd, rnd.randrange(2, 9))
    before = tree(root)
    res = subprocess.run([bwgate, "exec", "--json", "--project", root,
                          "--", "python3", "-c", prog], cwd=root,
                         capture_output=True)
    after = tree(root)
    want = expected(before, after)
    try:
        rep = json.loads(res.stdout)
    except ValueError:
        rep = {}
    got = norm(rep.get("changes") or {})
    ok = got == want and rep.get("changes_method") == "syscalls"
    if not ok:
        print("# seed %d: the report differs from the tree's comparison"
              % seed)
        print("# program:\n" + "\n".join("#   " + l for l in
                                         prog.split(PRELUDE)[1].split("\n")))
        print("# report:   %s" % json.dumps(got, sort_keys=True))
        print("# expected: %s" % json.dumps(want, sort_keys=True))
        print("# method %s, scope %s, widened %s, error %s" % (
            rep.get("changes_method"), rep.get("changes_scope"),
            rep.get("changes_widened"), rep.get("error")))
        sys.stdout.flush()
    return ok, rep.get("changes_scope")


def main():
    bwgate, work, seed, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        int(sys.argv[4])
    bad = 0
    scopes = {}
    for s in range(seed, seed + count):
        ok, scope = round_(bwgate, work, s)
        scopes[scope] = scopes.get(scope, 0) + 1
        print("%s %d" % ("ok" if ok else "not ok", s))
        sys.stdout.flush()
        bad += not ok
    print("# scopes: %s" % json.dumps(scopes, sort_keys=True))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
