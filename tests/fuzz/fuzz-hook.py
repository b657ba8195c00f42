#!/usr/bin/env python3
"""fuzz-hook: `bwgate hook claude-code` against generated PreToolUse input,
with an oracle (issue 26: the hook fails closed).

    fuzz-hook.py BWGATE PROJECT OUTSIDE COUNT [SEED]

No console is reachable. For every input the hook must:
  - exit 0 or 2, never anything else (Claude Code runs the call anyway on
    any other status), and never report an internal error (a crash);
  - on exit 2: nothing on stdout, "bwgate: hook: " and a reason on stderr;
  - on exit 0: stdout empty or one JSON decision (allow, deny or ask),
    valid UTF-8;
  - never allow Bash (no console: it cannot be routed);
  - for Write/Edit with no objection (exit 0, nothing printed): the file,
    resolved as Claude Code resolves it (~ against HOME, relative to cwd,
    then links), lies inside the project.
Prints TAP: one line per property group; failures with the input."""
import json
import os
import random
import subprocess
import sys

bwgate, project, outside, count = sys.argv[1:5]
count = int(count)
seed = int(sys.argv[5]) if len(sys.argv) > 5 else 26
rng = random.Random(seed)
home = os.environ.get("HOME", "/")

PIECES = ["a", "src", "..", ".", "link", "dangling", "~", "~x", "", "/",
          "new.c", ".git", "hooks", ".github", "workflows", "ci.yml",
          "\u10da", "sub", "x y", "'", "\\", "\n", "\x1b", "\u0085"]
COMMANDS = ["echo hi", "ls -\u10da\u10d0", "rm -rf /", "true; false",
            "cat <<EOF\nx\nEOF", "", "  ", "\u202e", "a" * 300]
CWDS = [project, project + "/sub", project + "/link", "relative/dir", "/",
        outside, project + "/missing", None, 7]


def rpath():
    n = rng.randint(1, 5)
    parts = [rng.choice(PIECES) for _ in range(n)]
    start = rng.choice(["", "/", project + "/", "~/", outside + "/"])
    return start + "/".join(parts)


def payload():
    tool = rng.choice(["Bash", "Write", "Edit", "MultiEdit", "Read",
                       "Bash", "Write"])
    if tool == "Bash":
        inp = {"command": rng.choice(COMMANDS) + rng.choice(
            ["", " \u00e9", " \U0001f600"]), "timeout": rng.choice(
            [None, 1, 120000, -5, "x", 1e300])}
    else:
        inp = {"file_path": rpath(), "content": "x", "old_string": "hello",
               "new_string": "bye"}
    if rng.random() < 0.1:
        inp = rng.choice([None, [], "x", 1])
    p = {"session_id": "s", "hook_event_name": rng.choice(
        ["PreToolUse", "PreToolUse", None, "PostToolUse"]),
         "tool_name": tool, "tool_input": inp, "cwd": rng.choice(CWDS)}
    text = json.dumps(p, ensure_ascii=rng.random() < 0.5)
    return tool, p, mutate(text).encode("utf-8", "surrogatepass")


def mutate(text):
    """Hostile escapes and byte-level damage, now and then."""
    r = rng.random()
    if r < 0.15:
        i = text.find('"command": "')
        j = text.find('"file_path": "')
        k = max(i, j)
        if k >= 0:
            k = text.index(': "', k) + 3
            esc = rng.choice(["\\u0000", "\\ud800", "\\udc00",
                              "\\ud83d\\ude00", "\\n", "\\u001b"])
            text = text[:k] + esc + text[k:]
    elif r < 0.25:
        b = list(text)
        for _ in range(rng.randint(1, 4)):
            if not b:
                break
            pos = rng.randrange(len(b))
            b[pos] = rng.choice(['"', "{", "}", ",", "\\", "\udcff", "x",
                                 ""])
        text = "".join(b)
    return text


def resolve(fp, cwd):
    """Where Claude Code would write fp, through the real file system."""
    if fp == "~" or fp.startswith("~/"):
        p = home + fp[1:]
    elif fp.startswith("/"):
        p = fp
    else:
        p = os.path.join(cwd, fp)
    return os.path.realpath(os.path.normpath(p))


fails = []
groups = {"exit 0 or 2, no crash": 0, "exit 2 with a reason": 0,
          "exit 0: nothing or one UTF-8 decision": 0,
          "Bash never allowed without a console": 0,
          "no objection only inside the project": 0}
env = dict(os.environ, BWGATE_SOCKET=outside + "/no-console.sock")
real_project = os.path.realpath(project)
for n in range(count):
    tool, p, data = payload()
    r = subprocess.run([bwgate, "hook", "claude-code", "--deadline", "30"],
                       input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, cwd=project)
    out, err = r.stdout, r.stderr.decode("utf-8", "replace")

    def bad(group, why):
        fails.append((group, why, data[:400]))

    if r.returncode not in (0, 2) or "internal error" in err:
        bad("exit 0 or 2, no crash", "exit %d: %s" % (r.returncode, err))
        continue
    if r.returncode == 2:
        if out or not err.startswith("bwgate: hook: "):
            bad("exit 2 with a reason", "stdout %r stderr %r" % (out, err))
        continue
    decision = None
    if out:
        try:
            d = json.loads(out.decode("utf-8", "strict"))
            decision = d["hookSpecificOutput"]["permissionDecision"]
            assert decision in ("allow", "deny", "ask")
            assert out.count(b"\n") == 1
        except Exception as e:
            bad("exit 0: nothing or one UTF-8 decision", "%r: %r" % (e, out))
            continue
    valid = isinstance(p.get("tool_input"), dict)
    if tool == "Bash" and decision == "allow":
        bad("Bash never allowed without a console", out.decode())
    if (tool in ("Write", "Edit", "MultiEdit") and decision is None and
            valid and p["hook_event_name"] in ("PreToolUse", None)):
        try:
            parsed = json.loads(data.decode("utf-8", "strict"))
        except Exception:
            continue
        if (not isinstance(parsed, dict) or
                parsed.get("hook_event_name") not in ("PreToolUse", None) or
                parsed.get("tool_name") != tool or
                not isinstance(parsed.get("tool_input"), dict)):
            continue
        fp = parsed["tool_input"].get("file_path")
        cwd = parsed.get("cwd")
        if not isinstance(fp, str) or not isinstance(cwd, str):
            continue
        if not cwd.startswith("/"):
            bad("no objection only inside the project",
                "a relative cwd %r was not refused" % cwd)
            continue
        # The hook's project: the git top level above cwd, else cwd.
        # (looked up by name, as path_git_toplevel does), made canonical.
        top = os.path.normpath(cwd)
        while top != "/" and not os.path.exists(os.path.join(top, ".git")):
            top = os.path.dirname(top)
        if not os.path.exists(os.path.join(top, ".git")):
            top = cwd
        top = os.path.realpath(top)
        where = resolve(fp, cwd)
        if top == "/" or not (where == top or where.startswith(top + "/")):
            bad("no objection only inside the project",
                "%r (cwd %r, project %r) leads to %r" % (fp, cwd, top,
                                                        where))

print("1..%d" % len(groups))
for i, g in enumerate(groups, 1):
    mine = [f for f in fails if f[0] == g]
    print("%s %d - %s (%d inputs, seed %d)" % ("not ok" if mine else "ok",
          i, g, count, seed))
    for f in mine[:3]:
        print("# %s\n# input: %r" % (f[1][:300], f[2]))
sys.exit(1 if fails else 0)
