#!/usr/bin/env python3
"""shparse-vs-bash: differential test of the shell parser against bash.

Generates random command strings (quoting tricks, line continuations,
reserved words as arguments, groups, subshells, if/for/case, command
substitutions, backquotes, here-documents) whose commands are functions
c0..c5 that record their argv. bash runs each string; the parser
(fuzz-shparse --commands) lists the simple commands it found. Every
command bash ran must be one the parser found with the same words (a word
the parser marks as expanded matches any number of words), and the parser
must find nothing bash did not run. Inputs the parser refuses are fine
(they ask); inputs it accepts but bash rejects are failures.

Usage: shparse-vs-bash.py [COUNT [SEED]]; the driver is
$BWGATE_BUILDDIR/tests/fuzz/fuzz-shparse (or $SHPARSE_DRIVER). TAP output.
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile

FRAGS = ["a", "'b c'", '"d\\"e"', "\\f", '"\\$x"', "'\\'", '"a\\\nb"',
         "$'\\''", '""', "''", '"\\a"', "\\ ", "$'\\101'", '"\'"', '$"x"',
         "x#y", "=", "%", "\\$", "\\'", '\\"', "\\#", "{}", "\\{a,b}", "'*'",
         "a\\\nb", "then", "fi", "done", "}", "{", "esac", "in", "!", "if",
         "${v:-a}", "$((1+2))", "~", "*", "a=b", "\\\n", "#", "$'\\x41\\''",
         "'#'", "$v", '"$(:)"', "\\\\"]


NAMES = [b"c%d" % i for i in range(6)]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def word(self):
        return "".join(self.r.choice(FRAGS)
                       for _ in range(self.r.randint(1, 3)))

    def simple(self, d):
        s = "c%d" % self.r.randint(0, 5)
        for _ in range(self.r.randint(0, 3)):
            x = self.r.random()
            if x < 0.15 and d < 3:
                s += " $( " + self.lst(d + 1) + ")"
            elif x < 0.22 and d < 3:
                s += ' "$( ' + self.lst(d + 1) + ')"'
            elif x < 0.27 and d < 2:
                s += " `" + self.simple(3) + "`"
            else:
                s += " " + self.word()
        if self.r.random() < 0.1:
            s += " 2>&1"
        if self.r.random() < 0.1:
            s += " >/dev/null"
        return s

    def cmd(self, d):
        x = self.r.random()
        if d >= 3 or x < 0.55:
            return self.simple(d)
        if x < 0.62:
            return "( " + self.lst(d + 1) + " )"
        if x < 0.69:
            return "{ " + self.lst(d + 1) + "; }"
        if x < 0.76:
            return ("if " + self.simple(d) + "; then " + self.lst(d + 1) +
                    "; fi")
        if x < 0.83:
            return "for v in a; do " + self.lst(d + 1) + "; done"
        if x < 0.90:
            return "case a in (a|b) " + self.lst(d + 1) + ";; esac"
        return (self.simple(d) + " <<EOF\nbody $(" + self.simple(3) +
                ")\nEOF\n")

    def lst(self, d):
        s = self.cmd(d)
        for _ in range(self.r.randint(0, 2)):
            if s.endswith("\n"):
                s += self.cmd(d)
                continue
            sep = self.r.choice(["; ", " && ", "\n", " &&\\\n ", ";\\\n"])
            s += sep + self.cmd(d)
        return s


def matches(ours, theirs):
    """ours may hold None (an expanded word: any number of words)."""
    if not ours:
        return not theirs
    if ours[0] is None:
        return any(matches(ours[1:], theirs[k:])
                   for k in range(len(theirs) + 1))
    return bool(theirs) and ours[0] == theirs[0] and \
        matches(ours[1:], theirs[1:])


def same(ours, theirs):
    """A perfect matching between our commands and bash's."""
    if len(ours) != len(theirs):
        return False
    adj = [[k for k, t in enumerate(theirs) if matches(o, t)] for o in ours]
    owner = {}

    def augment(i, seen):
        for k in adj[i]:
            if k not in seen:
                seen.add(k)
                if k not in owner or augment(owner[k], seen):
                    owner[k] = i
                    return True
        return False
    return all(augment(i, set()) for i in range(len(ours)))


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    driver = os.environ.get("SHPARSE_DRIVER") or os.path.join(
        os.environ.get("BWGATE_BUILDDIR", "."), "tests/fuzz/fuzz-shparse")
    print("1..1")
    if shutil.which("bash") is None:
        print("ok 1 # SKIP bash is not installed")
        return 0
    tmp = tempfile.mkdtemp(prefix="shparse-vs-bash.")
    rec = os.path.join(tmp, "rec")
    # Words a comment cut off can become command names: let them succeed
    # so that && chains and if conditions run on as the parser assumes.
    pre = "command_not_found_handle() { return 0; }\n" + "".join(
        "c%d() { printf '%%s\\0' c%d \"$@\" $'\\1' >>\"$REC\"; }\n" % (i, i)
        for i in range(6))
    env = {"REC": rec, "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "LC_ALL": "C"}
    gen = Gen(seed)
    bad = compared = refused = 0
    try:
        for _ in range(count):
            text = gen.lst(0)
            o = subprocess.run([driver, "--commands"], input=text.encode(),
                               capture_output=True, timeout=30)
            if o.returncode == 2:
                refused += 1
                continue
            if o.returncode != 0:
                print("# driver failed on %r: %r" % (text, o.stderr))
                bad += 1
                continue
            open(rec, "wb").close()
            b = subprocess.run(["bash", "-c", pre + text], env=env,
                               capture_output=True, timeout=30, cwd=tmp)
            if b"syntax error" in b.stderr or b"unexpected EOF" in b.stderr:
                print("# accepted, but bash rejects %r: %r" %
                      (text, b.stderr[-200:]))
                bad += 1
                continue
            with open(rec, "rb") as f:
                theirs = [r.split(b"\0")[:-1]
                          for r in f.read().split(b"\1\0")[:-1]]
            ours = [[None if w == b"\2" else w for w in r.split(b"\0")[:-1]]
                    for r in o.stdout.split(b"\1")[:-1]]
            # Only the recording functions are seen on bash's side.
            ours = [r for r in ours if r[0] in NAMES]
            compared += 1
            if not same(ours, theirs):
                print("# differs: %r\n#  parser: %r\n#  bash:   %r" %
                      (text, ours, theirs))
                bad += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    status = "ok" if bad == 0 else "not ok"
    print("%s 1 - %d programs compared with bash, %d refused, %d differ" %
          (status, compared, refused, bad))
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
