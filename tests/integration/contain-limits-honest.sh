#!/bin/bash
# contain-limits-honest: the report and doctor say what the limits really
# cover. With a cgroup, memory and processes are per command; with resource
# limits only, memory is per process (RLIMIT_AS) and processes per user
# (RLIMIT_NPROC), which Linux does not apply to root at all: the report
# then has no process limit ("pids": null) and both say why.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
jexec --memory 0 -- true
BACKEND=$(jq -r .sandbox.limits.enforced_by < "$T/report.json")
echo "# limits enforced by: $BACKEND"
doc=$("$BWGATE" doctor 2>&1 | grep 'resource limits')
case "$BACKEND" in
cgroup*)
	assert_eq "a cgroup: no caveat in the report" \
	    "$(jq -c .sandbox.limits.caveat < "$T/report.json")" null
	assert_eq "a cgroup: the process limit applies" \
	    "$(jq -c .sandbox.limits.pids < "$T/report.json")" 512
	ok_unless "a cgroup: doctor has no caveat" \
	    grep -q "without a cgroup" <<< "$doc"
	;;
*)
	ok_if "resource limits: doctor says memory is per process" \
	    grep -q "memory is limited per process" <<< "$doc"
	if [ "$(id -u)" = 0 ] && [ "$(awk '$1 == 0 { print $2 }' /proc/self/uid_map)" = 0 ]; then
		assert_eq "resource limits as root: no process limit in the report" \
		    "$(jq -c .sandbox.limits.pids < "$T/report.json")" null
		assert_match "and the report says why" \
		    "$(jq -r .sandbox.limits.caveat < "$T/report.json")" \
		    "no process limit applies .Linux does not count root's"
		assert_match "doctor says there is none" "$doc" \
		    "processes none.*no process limit applies"
	else
		assert_match "resource limits: processes counted per user" \
		    "$(jq -r .sandbox.limits.caveat < "$T/report.json")" \
		    "processes are counted per user"
	fi
	;;
esac

# An ordinary user without a delegated cgroup (root can be one: setpriv
# needs no account): resource limits, and the report says what they cover.
U=54323
if [ "$(id -u)" != 0 ] || ! setpriv --reuid=$U --regid=$U --clear-groups true 2>/dev/null; then
	skip "an ordinary user's limits" "cannot become uid $U here (not root, or a user namespace that maps one uid)"
elif ! uid_reaches "$U" "$T"; then
	skip "an ordinary user's limits" "uid $U cannot search the way to the test directory $T"
else
	use_installed_copy
	UH="$T/uh"; mkdir -p "$UH/p"; chown -R "$U:$U" "$UH"
	chmod 755 "$T"
	as_u() {
		(cd "$UH/p" && setpriv --reuid="$U" --regid="$U" --clear-groups \
		    env -u XDG_RUNTIME_DIR HOME="$UH" XDG_CACHE_HOME="$UH/cache" \
		    XDG_CONFIG_HOME="$UH/cfg" XDG_STATE_HOME="$UH/st" \
		    BWGATE_DATADIR="$BWGATE_DATADIR" "$BWGATE" "$@")
	}
	# (No memory limit: RLIMIT_AS stops a sanitizer build's helper.)
	as_u exec --json --memory 0 --project "$UH/p" -- true > "$T/u.json" 2>&1
	ub=$(jq -r .sandbox.limits.enforced_by < "$T/u.json")
	if [ "$ub" = "resource limits (prlimit)" ]; then
		assert_eq "uid $U: the process limit applies" \
		    "$(jq -c .sandbox.limits.pids < "$T/u.json")" 512
		assert_match "uid $U: the report says processes are per user" \
		    "$(jq -r .sandbox.limits.caveat < "$T/u.json")" \
		    "processes are counted per user"
		assert_match "uid $U: doctor says memory is per process" \
		    "$(as_u doctor 2>&1 | grep 'resource limits')" \
		    "by resource limits .prlimit.: without a cgroup, memory is limited per process"
	else
		skip "an ordinary user's limits" "uid $U has a cgroup here ($ub)"
	fi
fi

# Root without a cgroup (nested as root: an outer bwrap that maps uid 0 to
# 0 and hides the cgroup tree): resource limits, and no process limit.
nested() {
	(cd "$P" && bwrap --dev-bind / / --tmpfs /sys/fs/cgroup \
	    --unshare-user --uid 0 --gid 0 --cap-add ALL --unshare-pid \
	    --proc /proc --die-with-parent -- "$@")
}
if [ "$(id -u)" != 0 ] || ! nested true 2>/dev/null; then
	skip "root without a cgroup" "needs root and an outer bwrap (--cap-add ALL)"
else
	nested "$BWGATE" exec --json --memory 0 --pids 20 --timeout 30 \
	    --project "$P" -- sh -c \
	    'i=0; while [ $i -lt 40 ]; do sleep 2 & i=$((i+1)); done; wait; echo all ran' \
	    > "$T/n.json" 2> /dev/null
	assert_eq "nested as root: resource limits" \
	    "$(jq -r .sandbox.limits.enforced_by < "$T/n.json")" \
	    "resource limits (prlimit)"
	assert_eq "40 processes ran under --pids 20 (Linux does not count root's)" \
	    "$(jq -r .stdout < "$T/n.json")" "all ran"
	assert_eq "so the report has no process limit" \
	    "$(jq -c .sandbox.limits.pids < "$T/n.json")" null
	assert_match "and says why" \
	    "$(jq -r .sandbox.limits.caveat < "$T/n.json")" \
	    "no process limit applies .Linux does not count root's processes"
	assert_match "doctor says processes none, and why" \
	    "$(nested "$BWGATE" doctor 2>&1 | grep 'resource limits')" \
	    "processes none.*no process limit applies"
fi
done_testing
