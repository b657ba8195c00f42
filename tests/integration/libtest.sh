# libtest.sh: helpers for bwgate's shell integration tests (TAP output).
#
#	. "$(dirname "$0")/libtest.sh"
#	ok_if "what" test -f x		one TAP line
#	assert_eq "what" "$a" "$b"
#	skip "what" "reason"
#	done_testing			prints the plan; exit status
#
# Each test runs in a fresh temporary directory ($T) removed on exit, with
# HOME, XDG_* pointing inside it, so nothing touches the real user's files.
# Tests run the real bwgate ($BWGATE) and the real bwrap.

set -u
: "${BWGATE:?BWGATE must point at the built bwgate binary}"
: "${BWGATE_SRCDIR:?}"
export BWGATE_DATADIR="$BWGATE_SRCDIR/share/bwgate"
export LC_ALL=C.UTF-8

TESTS_RUN=0
TESTS_FAILED=0
T=$(mktemp -d "${TMPDIR:-/tmp}/bwgate-test.XXXXXX")
chmod 0755 "$T"
export HOME="$T/home"
export XDG_CONFIG_HOME="$T/config" XDG_STATE_HOME="$T/state"
export XDG_RUNTIME_DIR="$T/run"
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
chmod 0700 "$XDG_RUNTIME_DIR"
unset BWGATE_SOCKET

cleanup() {
	# Sandboxes may leave read-only or odd modes behind: make removable.
	chmod -R u+rwX "$T" 2>/dev/null
	rm -rf "$T"
	if [ -n "${CLEANUP_EXTRA:-}" ]; then eval "$CLEANUP_EXTRA"; fi
}
trap cleanup EXIT

ok_if() {
	local what="$1"; shift
	TESTS_RUN=$((TESTS_RUN + 1))
	if "$@" >/dev/null 2>&1; then
		echo "ok $TESTS_RUN - $what"
	else
		echo "not ok $TESTS_RUN - $what"
		TESTS_FAILED=$((TESTS_FAILED + 1))
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
