#!/bin/bash
# The sandbox contains: writes outside the project fail and leave the host
# untouched; protected paths stay read-only; home, secrets, descriptors,
# capabilities and the host network are out of reach.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
run() { "$BWGATE" exec --quiet --project "$P" -- sh -c "$1" >/dev/null 2>&1; }

# System directories.
ok_unless "cannot write /usr" run 'touch /usr/bwgate-x'
ok_unless "cannot write /etc" run 'echo x >> /etc/hostname'
ok_unless "cannot create in /etc" run 'touch /etc/bwgate-x'
ok_unless "/etc untouched" test -e /etc/bwgate-x

# Host /tmp and /dev/shm are private tmpfs: nothing reaches the host.
HOSTTMP=$(mktemp -d /tmp/bwgate-host.XXXXXX)
CLEANUP_EXTRA="rm -rf '$HOSTTMP'; rm -f /dev/shm/bwgate-shm-$$"
echo original > "$HOSTTMP/file"
chmod -R a+rwX "$HOSTTMP"
ok_unless "host /tmp file invisible" run "cat '$HOSTTMP/file'"
run "mkdir -p '$HOSTTMP' && echo changed > '$HOSTTMP/file' && touch '$HOSTTMP/new'"
assert_eq "host /tmp file unchanged" "$(cat "$HOSTTMP/file")" original
ok_unless "nothing created in host /tmp" test -e "$HOSTTMP/new"
run "echo x > /dev/shm/bwgate-shm-$$"
ok_unless "nothing created in host /dev/shm" test -e "/dev/shm/bwgate-shm-$$"

# Symlinks pointing out of the project.
ln -s "$HOSTTMP" "$P/out-tmp"
ln -s /etc "$P/out-etc"
run "echo changed > out-tmp/file; touch out-tmp/new2"
assert_eq "write through symlink to host /tmp blocked" "$(cat "$HOSTTMP/file")" original
ok_unless "create through symlink to host /tmp blocked" test -e "$HOSTTMP/new2"
ok_unless "write through symlink to /etc blocked" run 'touch out-etc/bwgate-y'
# Hard links to files outside cannot be made.
ok_unless "hard link to /etc/passwd refused" run 'ln /etc/passwd hl'
ok_unless "no hard link left" test -e "$P/hl"

# Protected paths inside the project.
ok_unless ".git/config read-only" run 'echo evil >> .git/config'
ok_unless ".git/hooks read-only" run 'echo evil > .git/hooks/pre-commit'
ok_unless ".git cannot be renamed aside" run 'mv .git .git-aside'
ok_unless ".git cannot be removed" run 'rm -rf .git; test ! -e .git'
assert_eq ".git/config intact" "$(cat "$P/.git/config")" "[core]"
ok_unless "no hook planted" test -e "$P/.git/hooks/pre-commit"
echo '{}' > "$P/.bwgate.json"
ok_unless ".bwgate.json read-only" run 'echo "{\"x\":1}" > .bwgate.json'
ok_unless ".bwgate.json cannot be replaced by a symlink" \
	run 'rm -f .bwgate.json && ln -s /tmp/x .bwgate.json'
assert_eq ".bwgate.json intact" "$(cat "$P/.bwgate.json")" "{}"
rm -f "$P/.bwgate.json"
# An absent .bwgate.json gets no placeholder (it would show inside and be
# committed by `git add -A`), and a command cannot create one: the
# observer refuses the creating open, so no planted allow rule counts.
ok_if "absent .bwgate.json: nothing visible inside" \
	run 'test ! -e .bwgate.json'
ok_unless "a command cannot create .bwgate.json" \
	run 'printf "%s" "{\"version\":1,\"rules\":[{\"id\":\"evil\",\"command\":[\"evilcmd\"],\"verdict\":\"allow\",\"reason\":\"planted\"}]}" > .bwgate.json'
ok_unless "no .bwgate.json lands in the project" \
	test -e "$P/.bwgate.json"
assert_match "no planted allow rule counts" \
	"$("$BWGATE" check --project "$P" -- evilcmd 2>&1 | head -1)" "ask"
rm -f "$P/.bwgate.json"
rmdir "$P/.git/hooks"
ok_unless "absent .git/hooks cannot be created" run 'mkdir .git/hooks'
ok_unless "absent .git/hooks stays absent" test -e "$P/.git/hooks"
Q="$T/nogit"; mkdir -p "$Q"
ok_unless "absent .git cannot be created" \
	"$BWGATE" exec --quiet --project "$Q" -- sh -c 'mkdir -p .git/hooks'
ok_unless "absent .git leaves no placeholder" test -e "$Q/.git"
assert_eq "project without .git is otherwise writable" \
	"$("$BWGATE" exec --quiet --project "$Q" -- sh -c 'echo ok > f && cat f')" ok
# A symlink swapped in for a protected path before the run is refused.
mv "$P/.git" "$T/realgit"; ln -s "$T/realgit" "$P/.git"
"$BWGATE" exec --quiet --project "$P" -- true 2>"$T/err"
assert_eq "symlinked .git refused with 125" "$?" 125
assert_match "symlinked .git: clear error" "$(cat "$T/err")" "symbolic link"
rm "$P/.git"; mv "$T/realgit" "$P/.git"; mkdir -p "$P/.git/hooks"
# The project itself stays writable.
run 'echo new > src/b.txt'
assert_eq "project writable" "$(cat "$P/src/b.txt")" new

# Home is empty and private.
echo secret > "$HOME/secret-file"
assert_eq "home exists and is empty inside" "$("$BWGATE" exec --quiet -- sh -c 'ls -A "$HOME" && echo listed')" "listed"
ok_unless "home files invisible" run 'cat "$HOME/secret-file"'
run 'echo x > "$HOME/planted"'
ok_unless "nothing planted in host home" test -e "$HOME/planted"

# Environment: cleared, secrets dropped unless named.
env_out=$(MY_API_TOKEN=t1 AWS_SECRET_ACCESS_KEY=t2 SSH_AUTH_SOCK=/x GITHUB_TOKEN=t3 \
	DB_PASSWORD=t4 SOME_KEY=t5 DBUS_SESSION_BUS_ADDRESS=t6 PLAIN_VAR=t7 \
	"$BWGATE" exec --quiet -- env)
ok_unless "secret-looking variables absent" \
	grep -Eq '^(MY_API_TOKEN|AWS_SECRET_ACCESS_KEY|SSH_AUTH_SOCK|GITHUB_TOKEN|DB_PASSWORD|SOME_KEY|DBUS_SESSION_BUS_ADDRESS)=' <<<"$env_out"
ok_unless "unlisted variables absent" grep -q '^PLAIN_VAR=' <<<"$env_out"
ok_if "PATH present" grep -q '^PATH=' <<<"$env_out"
ok_if "HOME present" grep -q "^HOME=$HOME\$" <<<"$env_out"
printf '{"sandbox":{"env":["MY_API_TOKEN"]}}\n' > "$T/cfg.json"
assert_eq "a secret named in config passes" \
	"$(MY_API_TOKEN=t1 "$BWGATE" exec --quiet --config "$T/cfg.json" -- sh -c 'echo $MY_API_TOKEN')" t1

# Descriptors: only 0, 1, 2 reach the command.
exec 7>"$T/inherited"
run 'echo leaked >&7'
exec 7>&-
assert_eq "inherited descriptor unusable" "$(cat "$T/inherited")" ""
# (ls itself opens one descriptor, 3, to read the directory.)
fds=$("$BWGATE" exec --quiet -- ls /proc/self/fd 9<"$T/inherited")
assert_eq "only 0 1 2 reach the command" "$(echo $fds)" "0 1 2 3"

# Capabilities: none, even when run as root.
cap=$("$BWGATE" exec --quiet -- sh -c 'grep ^CapEff /proc/self/status')
assert_match "no effective capabilities" "$cap" 'CapEff:[[:space:]]+0+$'
capb=$("$BWGATE" exec --quiet -- sh -c 'grep ^CapBnd /proc/self/status')
assert_match "empty bounding set" "$capb" 'CapBnd:[[:space:]]+0+$'
# Seccomp deny filter and no nested user namespaces.
ok_unless "no new user namespace inside" run 'unshare -U true'
ok_unless "no mount inside" run 'mount -t tmpfs none /tmp'
assert_match "seccomp filter active" \
	"$("$BWGATE" exec --quiet -- sh -c 'grep ^Seccomp: /proc/self/status')" 'Seccomp:[[:space:]]+2'
assert_eq "new session (no controlling terminal)" \
	"$("$BWGATE" exec --quiet -- sh -c 'ps -o sid= -p $$ >/dev/null 2>&1; cat /proc/self/stat | cut -d" " -f7')" 0

# Nested sandboxes: refused by default, possible when allowed by config.
ok_unless "no nested bwrap by default" run 'bwrap --ro-bind / / --unshare-user true'
if [ "$(id -u)" -ne 0 ]; then
	printf '{"sandbox":{"allow_nested_sandboxes":true}}\n' > "$T/nest.json"
	ok_if "nested bwrap when allow_nested_sandboxes is set" \
		"$BWGATE" exec --quiet --config "$T/nest.json" -- \
		bwrap --ro-bind / / --unshare-user --unshare-pid --proc /proc true
else
	skip "nested bwrap when allowed" "as root uid 0 cannot be mapped into a nested namespace without CAP_SETFCAP"
fi

# Network: the host's loopback and abstract sockets are unreachable.
PY=/usr/bin/python3
if [ -x "$PY" ]; then
	"$PY" - "$T" <<'PYEOF' &
import socket, sys, os
t = sys.argv[1]
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(5)
a = socket.socket(socket.AF_UNIX); a.bind("\0bwgate-test-%d" % os.getpid()); a.listen(5)
open(t + "/port.tmp", "w").write("%d %d" % (s.getsockname()[1], os.getpid()))
os.rename(t + "/port.tmp", t + "/port")
s.settimeout(20); a.settimeout(20)
try:
    s.accept()
except Exception:
    pass
PYEOF
	srv=$!
	wait_for 10 test -e "$T/port"
	read -r port pid < "$T/port"
	ok_unless "host loopback unreachable with network off" \
		run "$PY -c 'import socket; socket.create_connection((\"127.0.0.1\", $port), 2)'"
	ok_unless "host abstract socket unreachable" \
		run "$PY -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"\\0bwgate-test-$pid\")'"
	# With --network too (the sandbox has its own namespace): see
	# contain-net.sh.
	kill $srv 2>/dev/null; wait $srv 2>/dev/null
else
	skip "network isolation" "python3 not installed"
fi

# Nothing left behind in the project by the sandbox itself.
assert_eq "no placeholders or stray files in the project" \
	"$(cd "$P" && find . -path ./.git -prune -o -print | sort | tr '\n' ' ')" \
	". ./out-etc ./out-tmp ./src ./src/a.txt ./src/b.txt "

done_testing
