# libtest.sh: helpers for bwgate's shell integration tests (TAP output).
#
#	. "$(dirname "$0")/libtest.sh"
#	ok_if "what" test -f x		one TAP line
#	assert_eq "what" "$a" "$b"
#	skip "what" "reason"
#	TEARDOWN="commands"		stop what the test started (a console,
#					a tmux server), run by done_testing
#	done_testing			teardown, "no process left behind",
#					the plan; exit status
#
# A failing check prints what it expected and what it saw; a script with
# failures ends with "# failed: ..." lines naming each failed check and its
# cause (./quickstart check shows them).
#
# A test that runs bwgate, or a sandbox, as another uid calls
# use_installed_copy first: the build tree may sit where only its owner can
# enter (a clone in /root, in a 0700 home, under mktemp -d).
#
# Each test runs in a fresh temporary directory ($T) removed on exit, with
# HOME, XDG_* pointing inside it, so nothing touches the real user's files.
# Tests run the real bwgate ($BWGATE) and the real bwrap. Every process a
# test starts (bwgate, bwrap and its inner child, the helper, the command)
# names $T in its working directory, arguments or environment; once the
# test has torn down, done_testing asserts that none of them is left (a
# sandbox that outlives its test is a leak, whatever the command did).

set -u
: "${BWGATE:?BWGATE must point at the built bwgate binary}"
: "${BWGATE_SRCDIR:?}"
export BWGATE_DATADIR="$BWGATE_SRCDIR/share/bwgate"
export LC_ALL=C.UTF-8

TESTS_RUN=0
TESTS_FAILED=0
TEST_STARTED=$(date +%s)
T=$(mktemp -d "${TMPDIR:-/tmp}/bwgate-test.XXXXXX")
chmod 0755 "$T"
export HOME="$T/home"
export XDG_CONFIG_HOME="$T/config" XDG_STATE_HOME="$T/state"
export XDG_RUNTIME_DIR="$T/run"
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
chmod 0700 "$XDG_RUNTIME_DIR"
unset BWGATE_SOCKET
# The invoking make's flags (-k, -i, -n, a jobserver) would change what
# a make inside a test does.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS

cleanup() {
	cd / || true
	teardown
	if [ -n "${CLEANUP_EXTRA:-}" ]; then eval "$CLEANUP_EXTRA"; fi
	# Whatever survived an early exit goes too (done_testing reported it).
	for p in $(leftovers); do kill -KILL "$p" 2>/dev/null; done
	reap_cgroups
	# Sandboxes may leave read-only or odd modes behind: make removable.
	chmod -R u+rwX "$T" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# A run killed outright leaves its cgroup (bwgate-PID-NONCE) for a later
# run to remove (limiter.c, cg_reap): the ones made since this test started
# go now, as cg_reap does it: only when their lock can be taken (their
# bwgate is gone, whatever its pid namespace; never by the PID, which may
# be another namespace's) and they are empty (rmdir refuses a busy one).
reap_cgroups() {
	local d
	for d in $(find /sys/fs/cgroup -maxdepth 5 -name 'bwgate-*' \
	    2>/dev/null); do
		[ "$(stat -c %Y "$d" 2>/dev/null || echo 0)" -ge "$TEST_STARTED" ] &&
			flock -n "$d" rmdir "$d" 2>/dev/null
	done
}

# Run $TEARDOWN once.
teardown() {
	if [ -n "${TEARDOWN:-}" ]; then
		eval "$TEARDOWN"
		TEARDOWN=
	fi
}

# Pids of live processes other than this shell that name $T in their
# working directory, arguments or environment. Bash builtins only, so no
# helper process of ours can match; call it as $(leftovers) (it changes
# directory).
leftovers() {
	local d p a f
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		[ "$p" = "$$" ] || [ "$p" = "$BASHPID" ] && continue
		# A zombie is gone already (its parent has yet to reap it).
		{ read -r a < "$d/stat"; } 2>/dev/null || continue
		a=${a##*) }
		[ "${a%% *}" = Z ] && continue
		if cd -P "$d/cwd" 2>/dev/null; then
			case "$PWD/" in
			"$T"/*) echo "$p"; continue;;
			esac
		fi
		for f in cmdline environ; do
			{ while IFS= read -r -d '' a; do
				case "$a" in
				*"$T"*) echo "$p"; continue 3;;
				esac
			done < "$d/$f"; } 2>/dev/null
		done
	done
}

# One line per leftover process, for the log: its state, its parent
# (pid and name) and its command line.
describe_procs() {
	local p a line st pp pc
	for p in "$@"; do
		line=
		{ while IFS= read -r -d '' a; do line="$line $a"; done \
		    < "/proc/$p/cmdline"; } 2>/dev/null
		{ read -r st < "/proc/$p/stat"; } 2>/dev/null
		st=${st##*) }
		pp=$(echo "$st" | cut -d' ' -f2)
		{ read -r pc < "/proc/$pp/comm"; } 2>/dev/null
		echo "# left behind: pid $p (state ${st%% *}, parent $pp ${pc:-?}):$line"
	done
}

# One passing check.
test_passed() {
	echo "ok $TESTS_RUN - $1"
}

# One failing check: its TAP line, then what it expected and what it saw
# (one "# " line each, at most 20), kept for the summary at the end.
test_failed() {
	local what="$1" want="$2" saw="$3"
	echo "not ok $TESTS_RUN - $what"
	printf '%s\n' "expected: $want" "saw:      $saw" | head -20 |
		sed 's/^/# /'
	TESTS_FAILED=$((TESTS_FAILED + 1))
	saw=${saw//$'\n'/ | }
	[ "${#want}" -gt 200 ] && want="${want:0:197}..."
	[ "${#saw}" -gt 200 ] && saw="${saw:0:197}..."
	FAILURES+=("$TESTS_RUN - $what: expected $want; saw ${saw:-nothing}")
}
FAILURES=()

# Run a check's command in this shell (functions keep their effects), its
# output into a file (a daemon it starts holds no pipe open): RAN_RC is its
# status, RAN_OUT its last five lines, for a failure to show.
run_captured() {
	local out="$T/.check-output"
	{ : > "$out"; } 2>/dev/null || out=/dev/null
	"$@" > "$out" 2>&1; RAN_RC=$?
	RAN_OUT=$(tail -n 5 "$out" 2>/dev/null)
}

ok_if() {
	local what="$1"; shift
	TESTS_RUN=$((TESTS_RUN + 1))
	run_captured "$@"
	if [ "$RAN_RC" -eq 0 ]; then
		test_passed "$what"
	else
		test_failed "$what" "success from: $*" \
		    "exit $RAN_RC${RAN_OUT:+: $RAN_OUT}"
		return 1
	fi
}

ok_unless() {
	local what="$1"; shift
	TESTS_RUN=$((TESTS_RUN + 1))
	run_captured "$@"
	if [ "$RAN_RC" -eq 0 ]; then
		test_failed "$what" "failure from: $*" \
		    "exit 0${RAN_OUT:+: $RAN_OUT}"
	else
		test_passed "$what"
	fi
}

# What bwgate printed, less the line a nested run adds to every report
# (the outer sandbox's /proc cannot be replaced): for checks of the exact
# text an agent reads, which must hold nested too.
unnested() {
	sed '/^bwgate: warning: a fresh \/proc cannot be mounted here/d'
}

assert_eq() {
	local what="$1" got="$2" want="$3"
	TESTS_RUN=$((TESTS_RUN + 1))
	if [ "$got" = "$want" ]; then
		test_passed "$what"
	else
		test_failed "$what" "'$want'" "'$got'"
		return 1
	fi
}

assert_match() {
	local what="$1" got="$2" pattern="$3"
	TESTS_RUN=$((TESTS_RUN + 1))
	if printf '%s' "$got" | grep -Eq -- "$pattern"; then
		test_passed "$what"
	else
		test_failed "$what" "a match for /$pattern/" "'$got'"
	fi
}

skip() {
	TESTS_RUN=$((TESTS_RUN + 1))
	echo "ok $TESTS_RUN - $1 # SKIP $2"
}

done_testing() {
	local left deadline
	cd / || true
	teardown
	deadline=$(( $(date +%s) + 10 ))
	while left=$(leftovers); [ -n "$left" ]; do
		[ "$(date +%s)" -ge "$deadline" ] && break
		sleep 0.05
	done
	TESTS_RUN=$((TESTS_RUN + 1))
	if [ -z "$left" ]; then
		test_passed "no process left behind"
	else
		# shellcheck disable=SC2086
		test_failed "no process left behind" "none" \
		    "$(describe_procs $left)"
	fi
	echo "1..$TESTS_RUN"
	summarise
	[ "$TESTS_FAILED" -eq 0 ]
}

# The script's last lines when something failed: which promises, in plain
# words, and what each saw ("# failed: ..." lines; ./quickstart check
# prints them).
summarise() {
	local f
	[ "$TESTS_FAILED" -eq 0 ] && return
	echo "# failed: $TESTS_FAILED of $TESTS_RUN checks in ${0##*/}:"
	for f in "${FAILURES[@]}"; do
		echo "# failed: $f"
	done
}

# Point BWGATE and BWGATE_DATADIR at a copy of the build laid out as an
# install under $T/inst (bin, libexec/bwgate, share/bwgate), which any uid
# can reach ($T is 0755): bwgate run as another uid, or a sandbox root runs
# as a project's owner (which binds bwgate's helper), needs every directory
# on the way searchable by that uid. 1 when the copy fails.
use_installed_copy() {
	local d="$T/inst" b
	if [ ! -x "$d/bin/bwgate" ]; then
		mkdir -p "$d/bin" "$d/libexec/bwgate" "$d/share" &&
		cp "$BWGATE" "$d/bin/bwgate" &&
		ln -sf bwgate "$d/bin/bwgate-sh" &&
		cp -r "$BWGATE_SRCDIR/share/bwgate" "$d/share/" || return 1
		for b in bwgate-helper bwgate-gitwatch bwgate-netlisten; do
			cp "${BWGATE_BUILDDIR:-${BWGATE%/*}}/$b" "$d/libexec/bwgate/" || return 1
		done
	fi
	BWGATE="$d/bin/bwgate"
	export BWGATE_DATADIR="$d/share/bwgate"
}

# Can uid $1 (its own gid, no other groups, as bwgate runs a sandbox)
# search every directory down to $2? Asks the kernel, through setpriv.
uid_reaches() {
	setpriv --reuid="$1" --regid="$1" --clear-groups -- test -x "$2" \
	    2>/dev/null
}

# A fresh project: a git-like layout with .git/hooks and .git/config.
new_project() {
	local p="$T/${1:-proj}"
	mkdir -p "$p/.git/hooks" "$p/src"
	echo "[core]" > "$p/.git/config"
	echo "hello" > "$p/src/a.txt"
	printf '%s' "$p"
}

# bwgate exec --json in project $P; the JSON report goes to $T/report.json.
jexec() {
	"$BWGATE" exec --json --project "$P" "$@" > "$T/report.json" 2> "$T/stderr"
}

# A field of the last report.
jfield() {
	jq -c "$1" < "$T/report.json"
}

# Is no live process's command line naming $1 (the host's view: a
# process the test started and ended is gone)?
no_procs() {
	local d a
	for d in /proc/[0-9]*; do
		{ IFS= read -r -d '' a; while IFS= read -r -d '' a; do
			case "$a" in *"$1"*) return 1;; esac
		done; } < "$d/cmdline" 2>/dev/null
	done
	return 0
}

# Poll until a command succeeds (no fixed sleeps): wait_for SECONDS cmd...
wait_for() {
	local deadline=$(( $(date +%s) + $1 )); shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$deadline" ] && return 1
		sleep 0.05
	done
}
