#!/bin/bash
# Section 1 of issue 9: a sandbox started by root is not root on the host.
# The kernel's interfaces in /proc are read-only or masked, files only root
# can read are hidden (or unreadable), root runs a user's project as that
# user, and no process can write another's memory. Run as root, as an
# ordinary user and nested (.ci/run); each attack is checked on the host.
. "$(dirname "$0")/libtest.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

P=$(new_project)
cd "$P" || exit 1
run() { "$BWGATE" exec --quiet --project "$P" "$@" 2>&1; }

# Sysctls: core_pattern would run code as host root ("|program"). The test
# writes a harmless plain pattern and puts the old value back if a broken
# build let it through.
before=$(cat /proc/sys/kernel/core_pattern)
restore_core() {
	[ "$(cat /proc/sys/kernel/core_pattern)" = "$before" ] ||
		printf '%s\n' "$before" > /proc/sys/kernel/core_pattern
}
CLEANUP_EXTRA="restore_core 2>/dev/null"
out=$(run -- sh -c 'echo core.bwgate-test > /proc/sys/kernel/core_pattern')
assert_match "core_pattern write refused" "$out" "Read-only file system|Permission denied"
assert_eq "host core_pattern unchanged" "$(cat /proc/sys/kernel/core_pattern)" "$before"
ok_unless "no /proc/sys write at all" run -- sh -c 'echo 1 > /proc/sys/vm/drop_caches'
if [ -e /proc/sysrq-trigger ]; then
	ok_unless "sysrq-trigger refused" run -- sh -c 'echo h > /proc/sysrq-trigger'
fi
for f in /proc/kcore /proc/keys /proc/timer_list /proc/sched_debug /proc/latency_stats; do
	[ -e "$f" ] || continue
	got=$(run -- sh -c "head -c 64 $f 2>/dev/null | wc -c")
	assert_eq "$f masked" "$got" 0
done
[ -d /proc/acpi ] && assert_eq "/proc/acpi masked" "$(run -- ls -A /proc/acpi)" ""
ok_unless "no /sys by default" run -- test -e /sys/kernel
assert_match "/sys on request is read-only" \
	"$(run --ro /sys -- sh -c 'echo x > /sys/kernel/uevent_helper')" "Read-only|Permission|No such"
assert_eq "/sys/firmware masked" "$(run --ro /sys -- sh -c 'ls -A /sys/firmware | wc -l')" 0

# Files only root can read (/etc/shadow): hidden at kernel uid 0, and
# unreadable otherwise, through an allowlisted cat.
if [ -e /etc/shadow ]; then
	out=$(run -- cat /etc/shadow)
	ok_unless "/etc/shadow not readable in the sandbox" \
		sh -c 'printf "%s" "$1" | grep -q "^root:"' _ "$out"
fi
[ -d /etc/ssl/private ] && ok_unless "/etc/ssl/private not listable" \
	run -- sh -c 'ls -A /etc/ssl/private | grep -q .'

# Another process's memory: the parent's and bwrap's pid 1.
cp "$(dirname "$BWGATE")/tests/integration/memwrite" "$P/memwrite"
out=$(run -- ./memwrite)
printf '%s\n' "$out" | sed 's/^/# /'
assert_match "parent memory untouched" "$out" "parent memory: untouched"
ok_unless "no /proc/PID/mem write" sh -c 'printf "%s" "$1" | grep -Eq "WRITTEN|GOT|OPENED"' _ "$out"
assert_match "process_vm_writev denied" "$out" "process_vm_writev: blocked"
assert_match "pidfd_getfd denied" "$out" "pidfd_getfd: blocked"
# Nested sandboxes allowed: /proc stays writable, pid 1 and sysctls not.
echo '{"sandbox":{"allow_nested_sandboxes":true}}' > "$T/nested.json"
out=$(run --config "$T/nested.json" -- ./memwrite)
if [ "$(id -u)" -eq 0 ]; then
	assert_match "nested profile: pid 1's memory masked" "$out" \
	    "/proc/1/mem: blocked"
else
	skip "nested profile: pid 1's memory masked" "as an ordinary user nothing may be mounted over /proc (the nested bwrap mounts its own; bwgate(1) says so)"
fi
out=$(run --config "$T/nested.json" -- sh -c 'echo core.bwgate-test > /proc/sys/kernel/core_pattern')
assert_match "nested profile: core_pattern refused" "$out" "Read-only file system|Permission denied"
assert_eq "host core_pattern still unchanged" "$(cat /proc/sys/kernel/core_pattern)" "$before"

# The same through the console: an allowlisted cat, auto-approved.
if [ -e /etc/shadow ]; then
	. "$HERE/console-lib.sh"
	start_console --headless --auto-allowlisted
	out=$("$BWGATE" run -- cat /etc/shadow 2>&1); rc=$?
	ok_unless "console: allowlisted cat /etc/shadow reads nothing" \
		sh -c 'printf "%s" "$1" | grep -q "^root:"' _ "$out"
	assert_eq "console: the cat ran (allowlisted) and failed" "$rc" 1
	stop_console
	CLEANUP_EXTRA="restore_core 2>/dev/null"	# start_console set its own
fi

# Who the sandbox is: doctor and the report say it.
"$BWGATE" exec --json --project "$P" -- true > "$T/r.json" 2>/dev/null
kuid=$(jq -r .sandbox.kernel_uid "$T/r.json")
assert_match "report names the kernel uid" "$kuid" '^[0-9]+$'
assert_eq "report: /proc read-only" "$(jq -r .sandbox.proc_readonly "$T/r.json")" true
assert_match "doctor reports the kernel uid" "$("$BWGATE" doctor)" "sandbox kernel uid +$kuid"
assert_match "doctor reports proc masking" "$("$BWGATE" doctor)" "proc masking +(fresh|bind) /proc, read-only"

# Root running for a user's project runs the sandbox as that user.
if [ "$(id -u)" -ne 0 ]; then
	assert_eq "an ordinary user's sandbox has its uid" "$(run -- id -u)" "$(id -u)"
elif ! chown 4242:4242 "$P" 2>/dev/null; then
	# Nested with only uid 0 mapped: the owner cannot be mapped.
	out=$(run -- id -u)
	assert_match "unmapped owner: uid 0 kept, and said" "$out" "^0"
elif ! uid_reaches 4242 "$T"; then
	skip "sandbox runs as the project's owner" "uid 4242 cannot search the way to the test directory $T (TMPDIR under a private directory)"
else
	# bwrap binds bwgate's helper as the owner: a copy it can reach,
	# wherever this build tree is (a clone in /root, say).
	use_installed_copy
	chown -R 4242:4242 "$P"
	assert_eq "sandbox runs as the project's owner" "$(run -- id -u)" 4242
	run -- sh -c 'echo x > made-by-sandbox; mkdir made-dir' >/dev/null
	assert_eq "created file belongs to the owner" "$(stat -c %u:%g "$P/made-by-sandbox")" 4242:4242
	assert_eq "created dir belongs to the owner" "$(stat -c %u "$P/made-dir")" 4242
	assert_eq "no supplementary groups" "$(run -- id -G)" 4242
	assert_match "doctor says who runs it" "$("$BWGATE" doctor)" "4242: root runs the sandbox as '4242'"
	ok_unless "owner's sandbox cannot read /etc/shadow either" \
		sh -c '"$1" exec --quiet --project "$2" -- cat /etc/shadow 2>/dev/null | grep -q "^root:"' _ "$BWGATE" "$P"
	chown -R 0:0 "$P"

	# A project the owner cannot reach (inside a directory only root
	# may enter, like a clone in /root): refused before any sandbox,
	# in one line naming the uid, the directory and the fix.
	mkdir -m 0700 "$T/private"
	Q="$T/private/proj"
	mkdir -p "$Q/.git"
	chown -R 4242:4242 "$Q"
	want="bwgate: the sandbox runs as uid 4242 (the project's owner), who cannot search '$T/private' on the way to the project '$Q': chmod o+x $T/private, or move the project where that user can reach it"
	out=$(cd "$Q" && "$BWGATE" exec --quiet --project "$Q" -- touch made 2>&1)
	assert_eq "unreachable project: bwgate failed (125)" "$?" 125
	assert_eq "the one line says who, where and what to do" "$out" "$want"
	assert_eq "nothing ran, nothing was placed there" "$(ls -A "$Q")" .git
	out=$(cd "$Q" && "$BWGATE" check -- touch made 2>&1)
	assert_match "check says it instead of an argv" "$out" \
	    "^bwrap: +\(no sandbox: the sandbox runs as uid 4242 .* cannot search '$T/private'"
	out=$(cd "$Q" && "$BWGATE" exec --json --project "$Q" -- true 2>/dev/null)
	assert_match "the JSON report carries it" "$(jq -r .error <<< "$out")" \
	    "cannot search '$T/private'"
	chmod 0711 "$T/private"
	assert_eq "searchable (not readable) is enough" \
	    "$(cd "$Q" && "$BWGATE" exec --quiet --project "$Q" -- id -u 2>&1)" 4242
	# bwgate's helper where the owner cannot reach it (a build tree in
	# /root): refused too, naming the way to it.
	mkdir -m 0700 "$T/built"
	cp "$T/inst/libexec/bwgate/bwgate-helper" "$T/built/"
	out=$(cd "$Q" && BWGATE_HELPER="$T/built/bwgate-helper" \
	    "$BWGATE" exec --quiet --project "$Q" -- true 2>&1)
	assert_eq "unreachable helper: refused" "$out" "bwgate: the sandbox runs as uid 4242 (the project's owner), who cannot search '$T/built' on the way to bwgate's helper '$T/built/bwgate-helper': chmod o+x $T/built, or install bwgate where that user can reach it (make install)"
fi
done_testing
