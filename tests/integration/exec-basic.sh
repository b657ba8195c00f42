#!/bin/bash
# bwgate exec: exit statuses, JSON report fields, output caps, timeouts,
# process cleanup, refusing when no sandbox can be built.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1

"$BWGATE" exec --quiet -- true
assert_eq "true exits 0" "$?" 0
"$BWGATE" exec --quiet -- sh -c 'exit 3'
assert_eq "own exit status passed through" "$?" 3
"$BWGATE" exec --quiet -- sh -c 'kill -TERM $$'
assert_eq "signal gives 128+N" "$?" 143
"$BWGATE" exec --quiet -- /nonexistent/cmd 2>"$T/err"
assert_eq "missing command is 127" "$?" 127 || sed 's/^/# /' "$T/err"

# The sandbox starts with default signal dispositions and an empty mask,
# whatever bwgate itself ignores (it ignores SIGPIPE).
out=$("$BWGATE" exec --quiet -- sh -c 'yes | head -1' 2>&1)
assert_eq "yes | head -1 inside the sandbox: no Broken pipe" "$out" "y"
out=$("$BWGATE" exec --quiet -- grep -E '^Sig(Ign|Blk)' /proc/self/status)
assert_eq "nothing ignored or blocked inside the sandbox" "$out" \
	"$(printf 'SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000')"

out=$("$BWGATE" exec --quiet -- sh -c 'echo out; echo err >&2' 2>&1)
assert_eq "stdout and stderr pass through" "$out" "out
err"

jexec -- sh -c 'echo hi; echo oops >&2; exit 4'
assert_eq "--json exits with the command's status" "$?" 4
assert_eq "json exit_code" "$(jfield .exit_code)" 4
assert_eq "json stdout" "$(jfield .stdout)" '"hi\n"'
assert_eq "json stderr" "$(jfield .stderr)" '"oops\n"'
assert_eq "json argv" "$(jfield .argv)" '["sh","-c","echo hi; echo oops >&2; exit 4"]'
assert_eq "json project" "$(jfield .project)" "\"$P\""
assert_eq "json cwd" "$(jfield .cwd)" "\"$P\""
assert_eq "json signal null" "$(jfield .signal)" null
assert_eq "json not timed out" "$(jfield .timed_out)" false
ok_if "json duration_ms is a number" test "$(jfield '.duration_ms|type')" = '"number"'
assert_eq "json bwrap_argv ends with the command" \
	"$(jfield '.bwrap_argv[-4:]')" '["--","sh","-c","echo hi; echo oops >&2; exit 4"]'
assert_eq "json bwrap_argv starts with an absolute bwrap" \
	"$(jfield '.bwrap_argv[0]|startswith("/")')" true
assert_eq "json sandbox.network" "$(jfield .sandbox.network)" false
ok_if "json sandbox.proc" test "$(jfield .sandbox.proc)" != '""'
assert_eq "json changes present" "$(jfield '.changes|keys')" '["created","deleted","modified","renamed"]'
assert_eq "json violations empty for a plain failure" "$(jfield .violations)" '[]'

jexec -- sh -c 'kill -KILL $$'
assert_eq "json signal name" "$(jfield .signal)" '"SIGKILL"'
assert_eq "json exit_code null when signalled" "$(jfield .exit_code)" null

jexec --output-limit 10 -- sh -c 'head -c 100000 /dev/zero | tr "\0" x'
assert_eq "stdout truncated flag" "$(jfield .stdout_truncated)" true
assert_eq "stdout capped" "$(jfield '.stdout|length')" 10
assert_eq "stderr not truncated" "$(jfield .stderr_truncated)" false

# Timeout: the whole tree dies, including a background child.
marker="30$$"
start=$(date +%s)
jexec --timeout 1 -- sh -c "sleep 1$marker & sleep 2$marker"
st=$?
assert_eq "timeout exit status is 124 (timeout(1)'s, not a kill's 143)" "$st" 124
"$BWGATE" exec --project "$P" --timeout 1 -- sleep 30 2> "$T/stderr"
assert_eq "without --json: 124 too" "$?" 124
assert_match "stderr says it timed out, with the time" "$(cat "$T/stderr")" \
    'timed out after [0-9.]+ s'

assert_eq "json timed_out" "$(jfield .timed_out)" true
ok_if "timeout returned promptly" test $(( $(date +%s) - start )) -lt 10
ok_unless "the timed-out command does not survive" pgrep -f "sleep 2$marker"
ok_unless "its background child does not survive" pgrep -f "sleep 1$marker"

# A background process dies with the command.
"$BWGATE" exec --quiet -- sh -c "(sleep 2; touch bg-survived) >/dev/null 2>&1 & exit 0"
ok_unless "background process killed when the command ends" \
	wait_for 4 test -e "$P/bg-survived"

# Working directory.
mkdir -p "$P/src/deep"
jexec --cwd "$P/src/deep" -- pwd
assert_eq "--cwd inside the project" "$(jfield .stdout)" "\"$P/src/deep\\n\""
"$BWGATE" exec --project "$P" --cwd / -- true 2>"$T/err"
assert_eq "--cwd outside the project is refused with 125" "$?" 125
assert_match "cwd error names the problem" "$(cat "$T/err")" "outside the project"
"$BWGATE" exec --project "$T/missing" -- true 2>"$T/err"
assert_eq "missing project is 125" "$?" 125
assert_match "missing project error is one line" "$(wc -l < "$T/err")" '^1$'

# No sandbox possible: refuse, never run unsandboxed.
BWGATE_BWRAP=/nonexistent/bwrap "$BWGATE" exec --quiet -- touch "$P/ran" 2>"$T/err"
assert_eq "bwrap missing is 125" "$?" 125
ok_unless "bwrap missing: command did not run" test -e "$P/ran"
assert_match "bwrap missing: says how to fix" "$(cat "$T/err")" "bubblewrap"
"$BWGATE" exec --quiet 2>/dev/null
assert_eq "no command is 125" "$?" 125
"$BWGATE" exec --bogus -- true 2>/dev/null
assert_eq "bad option is 125" "$?" 125

# doctor
"$BWGATE" doctor > "$T/doctor" 2>&1
assert_eq "doctor succeeds here" "$?" 0
assert_match "doctor names bwrap" "$(cat "$T/doctor")" "bwrap"
"$BWGATE" doctor --json > "$T/doctor.json"
assert_eq "doctor --json is valid" "$(jq -r .ok < "$T/doctor.json")" true
assert_match "doctor --json has the probe" "$(jq -r .probe.proc < "$T/doctor.json")" "fresh|bind"

# The helper finds the command on PATH as execvp does (it looks before it
# tries, so a long PATH costs one execve): a file that is not executable
# is passed over, a script without #! runs through sh, an empty entry is
# the working directory, and nothing found is 127.
mkdir -p "$P/bin1" "$P/bin2"
echo 'echo not-executable' > "$P/bin1/tool"
echo 'echo plain-script' > "$P/bin2/tool" && chmod +x "$P/bin2/tool"
pexec() { "$BWGATE" exec --quiet --project "$P" --env "PATH=$1" "${@:2}" 2>&1; }
assert_eq "PATH: a non-executable file is passed over, a script runs" \
    "$(pexec "$P/bin1:$P/bin2:/usr/bin:/bin" -- tool)" plain-script
assert_eq "PATH: an empty entry is the working directory" \
    "$(pexec ":/usr/bin:/bin" --cwd "$P/bin2" -- tool)" plain-script
pexec "/usr/bin:/bin" -- no-such-tool-here > /dev/null
assert_eq "PATH: nothing found is 127" "$?" 127
assert_eq "PATH: a name with a slash is not looked up" \
    "$(pexec "/nonexistent" -- /bin/echo direct)" direct

# Cached seccomp programs: one build never reads another's. The cache of
# this binary is replaced by a program that kills everything; another
# build (same version and tables, different code: here the same binary
# without its build id) must compile its own instead of loading it.
"$BWGATE" exec --quiet -- true
ls "$XDG_RUNTIME_DIR"/bwgate/bpf-* > "$T/caches" 2>/dev/null
ok_if "seccomp programs are cached" test -s "$T/caches"
while read -r f; do
	printf '\006\000\000\000\000\000\000\000' > "$f"	# ret KILL
done < "$T/caches"
mkdir -p "$T/other"
objcopy --remove-section=.note.gnu.build-id "$BWGATE" "$T/other/bwgate"
out=$(BWGATE_HELPER="$BWGATE_BUILDDIR/bwgate-helper" "$T/other/bwgate" \
    exec --quiet -- echo fresh 2>&1)
assert_eq "another build ignores this build's cached programs" "$out" fresh
ls "$XDG_RUNTIME_DIR"/bwgate/bpf-* | sort > "$T/caches2"
ok_unless "and caches its own under other names" cmp -s "$T/caches" "$T/caches2"
ok_if "no temporary cache file is left" sh -c \
    "! ls '$XDG_RUNTIME_DIR'/bwgate/ | grep -q tmp"

done_testing
