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

# A run killed outright leaves its cgroup (bwgate-PID) for a later run to
# remove (limiter.c, cg_reap): the ones made since this test started, whose
# bwgate is gone, go now (rmdir refuses one that still holds processes).
reap_cgroups() {
	local d
	for d in $(find /sys/fs/cgroup -maxdepth 5 -name 'bwgate-*' \
	    2>/dev/null); do
		kill -0 "${d##*/bwgate-}" 2>/dev/null && continue
		[ "$(stat -c %Y "$d" 2>/dev/null || echo 0)" -ge "$TEST_STARTED" ] &&
			rmdir "$d" 2>/dev/null
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

ok_if() {
	local what="$1"; shift
	TESTS_RUN=$((TESTS_RUN + 1))
	if "$@" >/dev/null 2>&1; then
		echo "ok $TESTS_RUN - $what"
	else
		echo "not ok $TESTS_RUN - $what"
		TESTS_FAILED=$((TESTS_FAILED + 1))
		return 1
	fi
}

ok_unless() {
	local what="$1"; shift
	TESTS_RUN=$((TESTS_RUN + 1))
	if "$@" >/dev/null 2>&1; then
		echo "not ok $TESTS_RUN - $what"
		TESTS_FAILED=$((TESTS_FAILED + 1))
	else
		echo "ok $TESTS_RUN - $what"
	fi
}

assert_eq() {
	local what="$1" got="$2" want="$3"
	TESTS_RUN=$((TESTS_RUN + 1))
	if [ "$got" = "$want" ]; then
		echo "ok $TESTS_RUN - $what"
	else
		echo "not ok $TESTS_RUN - $what"
		printf '# got:  %s\n# want: %s\n' "$got" "$want" | head -20
		TESTS_FAILED=$((TESTS_FAILED + 1))
		return 1
	fi
}

assert_match() {
	local what="$1" got="$2" pattern="$3"
	TESTS_RUN=$((TESTS_RUN + 1))
	if printf '%s' "$got" | grep -Eq -- "$pattern"; then
		echo "ok $TESTS_RUN - $what"
	else
		echo "not ok $TESTS_RUN - $what"
		printf '# got: %s\n# want match: %s\n' "$got" "$pattern" | head -20
		TESTS_FAILED=$((TESTS_FAILED + 1))
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
		echo "ok $TESTS_RUN - no process left behind"
	else
		echo "not ok $TESTS_RUN - no process left behind"
		# shellcheck disable=SC2086
		describe_procs $left
		TESTS_FAILED=$((TESTS_FAILED + 1))
	fi
	echo "1..$TESTS_RUN"
	[ "$TESTS_FAILED" -eq 0 ]
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

# Poll until a command succeeds (no fixed sleeps): wait_for SECONDS cmd...
wait_for() {
	local deadline=$(( $(date +%s) + $1 )); shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$deadline" ] && return 1
		sleep 0.05
	done
}
