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
else
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
fi
done_testing
