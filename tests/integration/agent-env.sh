#!/bin/bash
# agent-env: the agent's environment, stdin and output order reach the
# command (bwgate run through a headless console, and bwgate exec).
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"
cat > "$XDG_CONFIG_HOME/bwgate/allowlist.json" <<'JSON'
{"version":1,"rules":[
 {"id":"printenv","command":["printenv"],"verdict":"allow","profile":"readonly","reason":"test"},
 {"id":"sleep","command":["sleep"],"verdict":"allow","profile":"readonly","reason":"test"},
 {"id":"mix","command":["mix"],"verdict":"allow","profile":"readonly","reason":"test"},
 {"id":"tool","command":["project-tool"],"verdict":"allow","profile":"readonly","reason":"test"}
]}
JSON
echo '{"sandbox":{"env":["NAMED_TOKEN"]}}' > "$XDG_CONFIG_HOME/bwgate/config.json"
mkdir -p "$P/node_modules/.bin"
printf '#!/bin/sh\necho from-project-bin\n' > "$P/node_modules/.bin/project-tool"
printf '#!/bin/sh\necho o1; echo e1 >&2; echo o2; echo e2 >&2\n' \
    > "$P/node_modules/.bin/mix"
chmod +x "$P/node_modules/.bin/project-tool" "$P/node_modules/.bin/mix"

start_console --headless --auto-allowlisted
export BWGATE_SOCKET="$S"

# The environment.
out=$(MYVAR=from-agent "$BWGATE" run -- printenv MYVAR 2>/dev/null)
assert_eq "the agent's variable reaches the command" "$out" from-agent
out=$(MY_TOKEN=s3cret "$BWGATE" run -- printenv MY_TOKEN 2>/dev/null); rc=$?
assert_eq "a secret-looking variable stays out" "$out:$rc" ":1"
out=$(NAMED_TOKEN=ok "$BWGATE" run -- printenv NAMED_TOKEN 2>/dev/null)
assert_eq "unless the configuration names it" "$out" ok
out=$(PATH="$P/node_modules/.bin:rel/bin:$HOME/.local/bin:/nonexistent:$PATH" \
    "$BWGATE" run -- printenv PATH 2>/dev/null)
assert_match "PATH keeps a project directory, after the system's" "$out" \
    ":$P/node_modules/.bin\$"
ok_unless "PATH drops a relative entry" grep -q 'rel/bin' <<< "$out"
ok_unless "PATH drops the hidden home" grep -q "$HOME" <<< "$out"
ok_unless "PATH drops what is not mounted" grep -q nonexistent <<< "$out"
out=$(PATH="$P/node_modules/.bin:$PATH" "$BWGATE" run -- project-tool \
    2>/dev/null)
assert_eq "node_modules/.bin on PATH runs (npm scripts)" "$out" \
    from-project-bin
# A planted 'printenv' in the project never shadows the system's.
printf '#!/bin/sh\necho planted\n' > "$P/node_modules/.bin/printenv"
chmod +x "$P/node_modules/.bin/printenv"
out=$(PATH="$P/node_modules/.bin:$PATH" MYVAR=real "$BWGATE" run -- \
    printenv MYVAR 2>/dev/null)
assert_eq "a project PATH entry does not shadow a system command" "$out" real
rm "$P/node_modules/.bin/printenv"
out=$(HOME=/elsewhere "$BWGATE" run -- printenv HOME 2>/dev/null)
assert_eq "HOME stays the sandbox's" "$out" "$HOME"
out=$(GIT_OPTIONAL_LOCKS=1 "$BWGATE" run -- printenv GIT_OPTIONAL_LOCKS \
    2>/dev/null)
assert_eq "read-only profile: GIT_OPTIONAL_LOCKS=0" "$out" 0
out=$("$BWGATE" list)
assert_match "bwgate list shows a variable that differs" "$out" \
    "env MYVAR=from-agent"
ok_unless "bwgate list leaves out equal ones" grep -q "env BWGATE_SRCDIR=" \
    <<< "$out"

# stdin.
out=$(echo hello | "$BWGATE" run -- cat 2>/dev/null)
assert_eq "stdin streams to the command" "$out" hello
printf 'a\0b\377\n' > "$T/bin.in"
"$BWGATE" run -- cat < "$T/bin.in" > "$T/bin.out" 2>/dev/null
ok_if "binary stdin arrives intact" cmp "$T/bin.in" "$T/bin.out"
head -c 3000000 /dev/urandom > "$T/big.in"
"$BWGATE" run -- cat < "$T/big.in" > "$T/big.out" 2>/dev/null
ok_if "3 MB of stdin arrive intact" cmp "$T/big.in" "$T/big.out"
out=$("$BWGATE" run -- cat < /dev/null 2>/dev/null); rc=$?
assert_eq "stdin /dev/null: empty, exit 0" "$out:$rc" ":0"
# A command that does not read: the console keeps serving others.
head -c 20000000 /dev/zero | "$BWGATE" run -- sleep 3 \
    > /dev/null 2>&1 &
slow=$!
sleep_runs() {
	"$BWGATE" list --json | jq -e 'any(.[]; (.command | test("sleep 3")) and
	    .state == "running")'
}
wait_for 10 sleep_runs
out=$(MYVAR=quick "$BWGATE" run -- printenv MYVAR 2>/dev/null)
assert_eq "another request runs meanwhile" "$out" quick
ok_if "while the unread one still runs" kill -0 "$slow"
wait "$slow"
assert_eq "the unread one ends normally" "$?" 0
ok_if "the console is still there" kill -0 "$CPID"

# Output order.
out=$(PATH="$P/node_modules/.bin:$PATH" "$BWGATE" run -- mix 2>&1)
assert_eq "2>&1: one pipe, order kept" "$(grep -v '^bwgate:' <<< "$out" |
    tr '\n' ' ')" "o1 e1 o2 e2 "
PATH="$P/node_modules/.bin:$PATH" "$BWGATE" run -- mix > "$T/o" 2> "$T/e"
assert_eq "separate files: stdout" "$(tr '\n' ' ' < "$T/o")" "o1 o2 "
assert_eq "separate files: stderr" "$(grep -v '^bwgate:' "$T/e" |
    tr '\n' ' ')" "e1 e2 "

# bwgate exec passes its stdin and merges 2>&1 too.
out=$(echo via-exec | "$BWGATE" exec --quiet --project "$P" -- cat)
assert_eq "bwgate exec passes stdin" "$out" via-exec
out=$("$BWGATE" exec --quiet --project "$P" -- sh -c \
    'echo o1; echo e1 >&2; echo o2' 2>&1)
assert_eq "bwgate exec 2>&1 keeps order" "$(echo $out)" "o1 e1 o2"

# --quiet / BWGATE_QUIET: no summary lines for harnesses parsing stderr.
"$BWGATE" run -- printenv HOME > /dev/null 2> "$T/err"
assert_match "by default a summary line" "$(cat "$T/err")" "no changes"
"$BWGATE" run --quiet -- printenv HOME > /dev/null 2> "$T/err"
assert_eq "run --quiet: stderr empty" "$(cat "$T/err")" ""
BWGATE_QUIET=1 "$BWGATE" run -- printenv HOME > /dev/null 2> "$T/err"
assert_eq "BWGATE_QUIET=1 run: stderr empty" "$(cat "$T/err")" ""
ln -s "$BWGATE" "$T/bwgate-sh"
BWGATE_QUIET=1 "$T/bwgate-sh" -c 'echo x' > /dev/null 2> "$T/err"
assert_eq "BWGATE_QUIET=1 bwgate-sh: stderr empty" "$(cat "$T/err")" ""
BWGATE_QUIET=1 "$BWGATE" exec --project "$P" -- true 2> "$T/err"
assert_eq "BWGATE_QUIET=1 exec: stderr empty" "$(cat "$T/err")" ""
BWGATE_QUIET=1 "$BWGATE" run -- rm -rf src > /dev/null 2> "$T/err"
assert_match "quiet still says why it was denied" "$(cat "$T/err")" "denied"

stop_console
done_testing
