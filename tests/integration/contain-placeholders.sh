#!/bin/bash
# contain-placeholders: the empty placeholders bwgate puts where an absent
# protected path would be (.envrc, .claude/, ...) are removed only when
# they are still the entries bwgate made and still empty, only once no
# live run uses them, and a run killed with SIGKILL has its placeholders
# cleared by the next bwgate of the project, `bwgate check` included
# (bwgate(1), One door to the project).
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P"
ls -A "$P" | sort > "$T/before"

# A sandboxed run that waits for $T/go-$1 (the host's say) before ending;
# $P/started-$1 shows its placeholders are in place.
start_run() {
	rm -f "$T/go-$1" "$T/run-$1.rc"
	{ "$BWGATE" exec --quiet -- sh -c \
	    "touch started-$1; while ! [ -e go-$1 ]; do sleep 0.05; done" \
	    > "$T/run-$1.out" 2>&1; echo $? > "$T/run-$1.rc"; } &
	ok_if "run $1 started" wait_for 20 test -e "$P/started-$1"
}
# The sandbox cannot see $T: it is told to end by a file in the project
# (written from the host, outside the protected paths).
end_run() {
	touch "$P/go-$1"
	ok_if "run $1 ended" wait_for 20 test -s "$T/run-$1.rc"
	rm -f "$P/go-$1" "$P/started-$1"
}
placeholders_present() {
	[ -f "$P/.envrc" ] && [ ! -s "$P/.envrc" ] && [ -d "$P/.claude" ]
}

# 1. While a run uses them, they are there; a second run of the project
#    shares them and they stay until the last one ends.
start_run a
ok_if "placeholders in place during the run" placeholders_present
# The registry names its users by pid and start time (a pid alone could
# be a new process's by the next look), and is replaced whole.
REG=$(find "$XDG_RUNTIME_DIR" -name 'placeholders-*' ! -name '*.lock' | head -1)
ok_if "a registry in the runtime directory" test -n "$REG"
users_ok() {
	local pid start n=0
	while read -r _ pid start; do
		[ "$start" = "$(awk '{ print $22 }' "/proc/$pid/stat" 2>/dev/null)" ] || return 1
		n=$((n + 1))
	done < <(grep '^user ' "$REG")
	[ "$n" -ge 1 ]
}
assert_eq "the registry's format" "$(head -1 "$REG" 2>/dev/null)" \
    "bwgate-placeholders 2"
ok_if "its users are live processes named by pid and start time" users_ok
start_run b
end_run a
ok_if "run a ended, run b still runs: its placeholders stay" \
    placeholders_present
end_run b
ls -A "$P" | sort > "$T/after"
ok_if "the last run removed them" cmp "$T/before" "$T/after"

# 2. The operator writes into a placeholder on the host during a run: it
#    is no longer empty, so it is no longer bwgate's to remove.
start_run c
echo 'export FROM_OPERATOR=1' > "$P/.envrc"
end_run c
assert_eq "a placeholder written on the host is kept, content and all" \
    "$(cat "$P/.envrc" 2>/dev/null)" "export FROM_OPERATOR=1"
rm -f "$P/.envrc"

# 3. The operator replaces a placeholder with an empty file of their own
#    (another inode: made before the old one goes, so its number cannot
#    be the old one's reused): not the entry bwgate made, kept.
start_run d
: > "$P/.envrc.new" && mv "$P/.envrc.new" "$P/.envrc"
end_run d
ok_if "a placeholder replaced on the host (another inode) is kept" \
    test -f "$P/.envrc"
rm -f "$P/.envrc"
ls -A "$P" | sort > "$T/after"
ok_if "and the others went" cmp "$T/before" "$T/after"

# 4. A run killed with SIGKILL leaves its placeholders; the next bwgate of
#    the project clears them, even one that runs nothing: `bwgate check`.
SLEEP=1000.$$	# unique to this test
for cmd in check exec; do
	"$BWGATE" exec --quiet -- sh -c "touch started-k; exec sleep $SLEEP" \
	    > /dev/null 2>&1 &
	kpid=$!
	ok_if "$cmd: run started" wait_for 20 test -e "$P/started-k"
	rm -f "$P/started-k"
	kill -KILL "$kpid"
	wait "$kpid" 2> /dev/null
	ok_if "$cmd: the killed run's sandbox is gone" \
	    wait_for 20 sh -c "! pgrep -fx 'sleep $SLEEP' > /dev/null"
	ok_if "$cmd: the killed run left its placeholders" placeholders_present
	if [ "$cmd" = check ]; then
		"$BWGATE" check -- 'true' > /dev/null
	else
		"$BWGATE" exec --quiet -- true
	fi
	ls -A "$P" | sort > "$T/after"
	ok_if "bwgate $cmd cleared the killed run's placeholders" \
	    cmp "$T/before" "$T/after"
done
done_testing
