#!/bin/sh
# agents-doc: each agent setup the real-client tests run (tests/agents/setup/)
# is shown verbatim in doc/agents.md, as the body of a fenced code block, so
# what the documentation tells a user to write is what the tests prove. TAP.
src="${BWGATE_SRCDIR:-$(dirname "$0")/../..}"
exec python3 - "$src" <<'PY'
import os, re, sys
src = sys.argv[1]
doc = open(os.path.join(src, "doc", "agents.md"), encoding="utf-8").read()
blocks = re.findall(r"^```[^\n]*\n(.*?)^```$", doc, re.S | re.M)
setup = os.path.join(src, "tests", "agents", "setup")
names = sorted(os.listdir(setup))
print(f"1..{len(names) + 1}")
n = 1
print(f"{'ok' if len(names) >= 4 else 'not ok'} {n} - {len(names)} setups in tests/agents/setup")
for name in names:
    n += 1
    body = open(os.path.join(setup, name), encoding="utf-8").read()
    found = body in blocks
    print(f"{'ok' if found else 'not ok'} {n} - doc/agents.md shows tests/agents/setup/{name} verbatim")
    if not found:
        for line in body.splitlines():
            print(f"# want: {line}")
PY
