#!/bin/bash
# A differential, randomised test of the change report: random sequences
# of file operations (create, append, O_RDWR, truncate, rename over, a hard
# link written through its other name, "sl/../x" after a link, writes
# through /proc/self/fd/N and /proc/self/cwd, mmap writes, chmod, a
# descriptor passed over a socket, several threads, a write through the
# descriptor of an unlinked file with another name) run inside
# `bwgate exec`; the report (JSON) must equal a before/after comparison of
# the tree made by the test (changes-random.py, from the rules of
# doc/change-report.md). The seed is printed; rerun one with
#	CHANGES_RANDOM_SEED=N CHANGES_RANDOM_COUNT=1 make check TESTS=...
# `make check-long` runs CHANGES_RANDOM_COUNT=1000.
. "$(dirname "$0")/libtest.sh"

if ! command -v python3 > /dev/null; then
	skip "random change reports" "python3 is not installed"
	done_testing
	exit
fi
P="$T/probe"
mkdir -p "$P"
cd "$P" || exit 1
jexec -- python3 -c 'open("x", "w").write("x")'
if [ "$(jfield .changes_method)" != '"syscalls"' ]; then
	# The recorded calls are what is tested: without seccomp user
	# notification (some containers, nested) the report is a scan.
	skip "random change reports" "no recorded calls here: $(jq -r '.warnings[]' < "$T/report.json" | tr '\n' ' ')"
	done_testing
	exit
fi
assert_eq "python3 runs in the sandbox" "$(jfield .changes.created)" '["x"]'

seed=${CHANGES_RANDOM_SEED:-$(( $(date +%s) % 1000000 ))}
count=${CHANGES_RANDOM_COUNT:-30}
echo "# seed $seed, $count rounds (CHANGES_RANDOM_SEED=$seed to repeat)"
mkdir -p "$T/work"
python3 "$BWGATE_SRCDIR/tests/integration/changes-random.py" "$BWGATE" \
	"$T/work" "$seed" "$count" > "$T/rounds" 2>&1
rc=$?
grep '^#' "$T/rounds"
assert_eq "every round's report equals the tree's comparison (seed $seed)" "$rc" 0
assert_eq "$count rounds ran" "$(grep -c '^ok \|^not ok ' "$T/rounds")" "$count"
# Both ways of reporting were exercised (not every round widened); a
# seed repeated alone need not show both.
if [ "$count" -ge 10 ]; then
	assert_match "some rounds were exact" "$(grep '^# scopes' "$T/rounds")" '"exact"'
	assert_match "some rounds were widened" "$(grep '^# scopes' "$T/rounds")" '"project"'
fi
done_testing
