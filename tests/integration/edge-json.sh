#!/bin/bash
# edge-json: bwgate's own JSON output is valid UTF-8 JSON whatever the
# command held: the option parser names a whole character (a real agent's
# `ls -ლა` gave "unknown option '-\xe1'", half a character), and invalid
# bytes are printed as U+FFFD with "invalid_utf8_replaced": true. Parsed
# by python3's json from the raw bytes; then 300 random byte strings.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P"
parse() {	# python3 reads stdin as bytes, decodes strictly, parses
	python3 -c 'import sys, json
d = json.loads(sys.stdin.buffer.read().decode("utf-8", "strict"))
print(d["reason"], d.get("invalid_utf8_replaced", False))'
}
out=$("$BWGATE" check --json -- 'ls -ლა' | parse)
assert_match "ls -ლა: valid UTF-8 JSON naming the whole character" "$out" \
    "^ls: unknown option '-ლ' .* False$"
out=$("$BWGATE" check --json -- 'ls -aლ' | parse)
assert_match "ls -aლ: the same after a known letter" "$out" "unknown option '-ლ'"
out=$("$BWGATE" check --json -- $'ls -\xff' | parse)
assert_match "an invalid byte: parsed, and said so" "$out" " True$"
out=$("$BWGATE" check --json -- $'printf \xe1\x83' | parse)
assert_match "a cut character: parsed, and said so" "$out" " True$"

# Rules files (fuzz-rules' findings): a key holding a newline gives a
# one-line error; a \u0000 inside a command name (cJSON would have cut
# "rm\u0000-safe" to "rm") refuses the file, naming the field.
mkdir -p "$XDG_CONFIG_HOME/bwgate"
printf '{"version":1,"rules":[{"id":"ls","comma\\nd":["ls"],"verdict":"allow","reason":"r"}]}' \
    > "$XDG_CONFIG_HOME/bwgate/allowlist.json"
"$BWGATE" check -- ls > /dev/null 2> "$T/err"; rc=$?
assert_eq "a key with a newline: refused, the error one line" \
    "$rc $(wc -l < "$T/err")" "125 1"
# (The rules file's message is made one line where it is made, then shown
# as any message is: the escape's backslash is doubled.)
assert_match "  the newline shown escaped" "$(cat "$T/err")" 'unknown key "comma\\\\nd"'
printf '{"version":1,"rules":[{"id":"rm","command":["rm\\u0000-safe"],"verdict":"allow","reason":"r"}]}' \
    > "$XDG_CONFIG_HOME/bwgate/allowlist.json"
"$BWGATE" check -- rm -rf x > /dev/null 2> "$T/err"; rc=$?
assert_match "\\u0000 in a rule's command: the file refused, naming the field" \
    "$rc $(cat "$T/err")" "^125 .*field 'rules\\[0\\].command\\[0\\]' holds a NUL character"
rm "$XDG_CONFIG_HOME/bwgate/allowlist.json"

# Random byte strings (a fixed seed, so a failure repeats): every output
# parses. A failing input is printed in hex.
bad=$(python3 - "$BWGATE" <<'PY'
import json, random, subprocess, sys
random.seed(26)
alphabet = [bytes([b]) for b in range(1, 256)] + [b"-", b" ", b"ls ",
    b"\xe1\x83\x9a", b"--", b"'", b'"', b"\\"]
bad = 0
for _ in range(300):
    s = b"ls " + b"".join(random.choice(alphabet)
        for _ in range(random.randint(1, 24)))
    out = subprocess.run([sys.argv[1], "check", "--json", "--", s],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    try:
        json.loads(out.decode("utf-8", "strict"))
    except Exception as e:
        bad += 1
        print("# not UTF-8 JSON for %s: %s" % (s.hex(), e), file=sys.stderr)
print(bad)
PY
)
assert_eq "300 random commands: every output is UTF-8 JSON" "$bad" 0
done_testing
