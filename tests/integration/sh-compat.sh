#!/bin/bash
# sh-compat: bwgate-sh takes what `bash -c` takes in a harness's place,
# checked against bash itself and with make, python3, npm and git.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"
cat > "$XDG_CONFIG_HOME/bwgate/allowlist.json" <<'JSON'
{"version":1,"rules":[
 {"id":"printenv","command":["printenv"],"verdict":"allow","profile":"readonly","reason":"test"}
]}
JSON
SH="$T/bin/bwgate-sh"
mkdir -p "$T/bin"
ln -s "$BWGATE" "$SH"

start_console --headless --auto-allowlisted
export BWGATE_SOCKET="$S"

# Run "$@" with bwgate-sh and with bash; same stdout and exit status?
same_as_bash() {
	local what=$1; shift
	local o1 o2 r1 r2
	o1=$("$SH" "$@" 2>/dev/null); r1=$?
	o2=$(bash "$@" 2>/dev/null); r2=$?
	assert_eq "$what (as bash: '${o2//$'\n'/ }' exit $r2)" "$o1:$r1" \
	    "$o2:$r2"
}
same_as_bash "-c" -c 'echo a; false; echo b'
same_as_bash "-ec stops at false" -ec 'echo a; false; echo b'
same_as_bash "-e -c" -e -c 'echo a; false; echo b'
same_as_bash "+e -c" +e -c 'echo a; false; echo b'
same_as_bash "-euo pipefail -c" -euo pipefail -c 'false | cat; echo after'
same_as_bash "-o pipefail -c" -o pipefail -c 'false | cat'
same_as_bash "+o pipefail -c" +o pipefail -c 'false | cat'
same_as_bash "-e -o pipefail -c" -e -o pipefail -c 'echo x | cat; true'
same_as_bash "-l -c" -l -c 'echo login'
same_as_bash "--login -c" --login -c 'echo login'
same_as_bash "-lc" -lc 'echo login'
same_as_bash "-xc (trace on stderr)" -xc 'echo traced'
same_as_bash "-nc runs nothing" -nc 'echo not-run'
same_as_bash "-ec --" -ec -- 'echo after-dashes'
same_as_bash "empty string" -c ''
same_as_bash "-o nounset (no expansion)" -o nounset -c 'echo ok'
err=$("$SH" -i 2>&1); rc=$?
assert_eq "-i refused like a usage error" "$rc" 2
assert_match "-i says why" "$err" "no interactive mode"
"$SH" -c 2>/dev/null; assert_eq "-c without a string: 2" "$?" 2
"$SH" -Q -c true 2>/dev/null; assert_eq "unknown option: 2" "$?" 2
"$SH" -o no-such -c true 2>/dev/null; assert_eq "unknown -o name: 2" "$?" 2
err=$("$SH" script.sh 2>&1); rc=$?
assert_eq "a script file: 2" "$rc" 2

# make: .POSIX runs recipes with -ec; .SHELLFLAGS adds options.
printf '.POSIX:\nall:\n\techo one\n\tfalse\n\techo never\n' > "$T/posix.mk"
out=$(make -s -f "$T/posix.mk" SHELL="$SH" 2>/dev/null); rc=$?
ref=$(make -s -f "$T/posix.mk" SHELL=/bin/bash 2>/dev/null); rrc=$?
assert_eq "make .POSIX: as with bash" "$out:$rc" "$ref:$rrc"
printf '.SHELLFLAGS := -eu -o pipefail -c\nall:\n\techo a | cat\n\tfalse | cat\n\techo never\n' \
    > "$T/flags.mk"
out=$(make -s -f "$T/flags.mk" SHELL="$SH" 2>/dev/null); rc=$?
ref=$(make -s -f "$T/flags.mk" SHELL=/bin/bash 2>/dev/null); rrc=$?
assert_eq "make .SHELLFLAGS -eu -o pipefail: as with bash" "$out:$rc" \
    "$ref:$rrc"
assert_eq "make stopped at the failing pipe" "$out" a

# python3 subprocess: shell=True with executable= keeps argv[0] /bin/sh.
if command -v python3 > /dev/null; then
	out=$(python3 - "$SH" <<'PY'
import subprocess, sys
r = subprocess.run("cat", shell=True, executable=sys.argv[1],
                   input=b"hello", capture_output=True)
print(r.returncode, r.stdout.decode())
PY
)
	assert_eq "python3 shell=True executable=bwgate-sh, input to cat" \
	    "$out" "0 hello"
	out=$(python3 - "$SH" <<'PY'
import subprocess, sys
r = subprocess.run("echo out; echo err >&2; false", shell=True,
                   executable=sys.argv[1], capture_output=True)
print(r.returncode, r.stdout.decode().strip(),
      [l for l in r.stderr.decode().splitlines() if not l.startswith("bwgate:")])
PY
)
	assert_eq "python3: status, stdout and stderr apart" "$out" \
	    "1 out ['err']"
else
	skip "python3 subprocess" "no python3"
fi

# npm run --script-shell: npm's variables reach the script.
if command -v npm > /dev/null; then
	cat > "$P/package.json" <<'JSON'
{"name":"bwgate-sh-test","version":"1.0.0","scripts":{"who":"printenv npm_package_name"}}
JSON
	out=$(npm run --silent --script-shell "$SH" who 2>/dev/null); rc=$?
	assert_eq "npm run --script-shell bwgate-sh" "$out:$rc" \
	    "bwgate-sh-test:0"
	rm -f "$P/package.json"
else
	skip "npm run --script-shell" "no npm"
fi
stop_console

# Positional parameters are unknown to the classifier: an operator
# approves (here a loop on the control socket, as a person would).
start_console --headless
approver() {
	while :; do
		for id in $("$BWGATE" list --json 2>/dev/null |
		    jq '.[] | select(.state == "pending") | .id'); do
			"$BWGATE" approve "$id" > /dev/null 2>&1
		done
		sleep 0.05
	done
}
approver &
APID=$!
CLEANUP_EXTRA="kill -KILL $CPID $APID 2>/dev/null"
same_as_bash "-c STRING NAME ARGS" -c 'echo "$0:$1:$#"' me x 'y z'
same_as_bash "\"\$@\" keeps words" -c 'printf "[%s]" "$@"' _ a 'b c' ''
same_as_bash "-euc with positional" -euc 'echo "${1}-${2:-none}"' n one
same_as_bash "exit status" -c 'exit 3'

# git runs a '!' alias as sh -c 'ALIAS "$@"' ALIAS ARGS.
git init -q "$P/g" 2>/dev/null
out=$(cd "$P/g" && git -c alias.bw="!$SH -euc 'echo \"\$0:\$#\"'" bw a1 \
    2>/dev/null); rc=$?
ref=$(cd "$P/g" && git -c alias.bw="!bash -euc 'echo \"\$0:\$#\"'" bw a1 \
    2>/dev/null)
assert_eq "git '!' alias through bwgate-sh" "$out:$rc" "$ref:0"
kill "$APID" 2>/dev/null
wait "$APID" 2>/dev/null
stop_console
done_testing
