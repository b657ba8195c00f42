#!/bin/bash
# contain-nested (issue 36): with nested sandboxes allowed, a call from
# another mount namespace (unshare, a nested bwrap) is judged by identity:
# its names are resolved in its own root, and what it would create, write,
# rename, link, remove or chmod on the project's file system is refused
# (EACCES, reported); what it makes on its own tmpfs works. Before, such
# calls were not judged at all: a nested namespace created sub/.envrc and
# .git/hooks/pre-commit on the host. Checked on the host. Run as root, as
# an ordinary user and nested (.ci/run).
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
mkdir -p "$P/sub"
echo '{"sandbox":{"allow_nested_sandboxes":true}}' > "$T/nest.json"
if ! "$BWGATE" exec --quiet --project "$P" --config "$T/nest.json" -- \
    unshare -Um true > "$T/probe" 2>&1; then
	skip "calls from a nested mount namespace" \
	    "no user namespace can be made here: $(head -c 200 "$T/probe")"
	done_testing
	exit 0
fi

# 1. unshare: a new user and mount namespace, the same tree.
jexec --config "$T/nest.json" -- unshare -Um sh -c '
	echo x > sub/.envrc
	echo hook > .git/hooks/pre-commit
	mkdir -p newdir/.vscode
	echo plain > plain.txt
	echo more >> src/a.txt
	mv src/a.txt src/b.txt
	ln -s /tmp/x sub/.mcp.json
	chmod 777 src/a.txt
	echo t > /tmp/tt && cat /tmp/tt
	mkdir /tmp/dd && mv /tmp/tt /tmp/dd/u && ln -s u /tmp/dd/l &&
	    ln /tmp/dd/u /tmp/dd/h && chmod 600 /tmp/dd/u &&
	    truncate -s 1 /tmp/dd/u && rm -r /tmp/dd && echo tmp-ok
	echo hi > /dev/null && echo devnull-ok'
for f in sub/.envrc .git/hooks/pre-commit newdir plain.txt sub/.mcp.json \
    src/b.txt; do
	ok_unless "$f not made on the host" test -e "$P/$f" -o -L "$P/$f"
done
assert_eq "src/a.txt unchanged" "$(cat "$P/src/a.txt")" hello
assert_eq "src/a.txt's mode unchanged" "$(stat -c %a "$P/src/a.txt")" 644
assert_match "the nested namespace's own tmpfs works" "$(jfield .stdout)" \
    't.*tmp-ok.*devnull-ok'
assert_match "the command saw EACCES" "$(jfield .stderr)" "Permission denied"
assert_match "refusals reported" \
    "$(jfield '[.violations[] | .path]')" "sub/.envrc"
# What the agent reads says what happened: an ordinary file is not
# "protected", the nested sandbox cannot change the project.
assert_eq "plain.txt's refusal is a nested one" \
    "$(jfield '[.violations[] | select(.path | endswith("/plain.txt")) | .reason]')" \
    '["nested"]'
assert_match "  with words that say so" \
    "$(jfield '.violations[] | select(.path | endswith("/plain.txt")) | .hint')" \
    "a nested sandbox cannot change the project"
"$BWGATE" exec --project "$P" --config "$T/nest.json" -- unshare -Um \
    sh -c 'echo plain > plain.txt' > "$T/text" 2>&1
assert_match "  in the summary" "$(cat "$T/text")" \
    "refused write '.*plain.txt' \\(nested\\)"
ok_unless "  never \"protected\" for it" grep -q "plain.txt.*protected" "$T/text"

# 2. A descriptor of the project opened before the namespace, named
#    through /proc: identity, not names, decides.
jexec --config "$T/nest.json" -- sh -c 'exec 3< .; unshare -Um sh -c "
	echo x > /proc/self/fd/3/sub/.envrc || echo refused-1
	echo y > /proc/self/fd/3/x.txt || echo refused-2"'
ok_unless "sub/.envrc not made through a descriptor" test -e "$P/sub/.envrc"
ok_unless "x.txt not made through a descriptor" test -e "$P/x.txt"
assert_match "both refused" "$(jfield .stdout)" "refused-1.*refused-2"

# 3. A unix socket bound to a path makes a name (bind): judged as a
#    create. Nested, on the project's file system: refused; in the
#    nested namespace's own tmpfs: made, and the socket works. Before, a
#    nested bind made sub/.envrc and s.sock on the host.
BIND='
import os, socket, sys
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind(p)
        s.listen(1)
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(p)
        print("bound", p)
    except OSError as e:
        print("refused", p, e.errno)'
jexec --config "$T/nest.json" -- unshare -Um python3 -c "$BIND" \
    sub/.envrc s.sock "$P/abs.sock" /tmp/own.sock
for f in sub/.envrc s.sock abs.sock; do
	ok_unless "nested bind: $f not made on the host" test -e "$P/$f" \
	    -o -L "$P/$f"
done
assert_match "nested bind: refused with EACCES" "$(jfield .stdout)" \
    "refused sub/.envrc 13.*refused s.sock 13.*refused $P/abs.sock 13"
assert_match "nested bind: its own tmpfs works" "$(jfield .stdout)" \
    "bound /tmp/own.sock"
assert_match "nested bind: reported" \
    "$(jfield '[.violations[] | .path]')" "s.sock"

# 4. A nested bwrap binding the project elsewhere (an ordinary user only:
#    root cannot map uid 0 without CAP_SETFCAP, exec-confine.sh).
if [ "$(id -u)" -ne 0 ] && command -v bwrap > /dev/null; then
	jexec --config "$T/nest.json" -- bwrap --ro-bind / / --tmpfs /tmp \
	    --bind "$P" /tmp/p --unshare-user --dev /dev -- sh -c '
		echo x > /tmp/p/sub/.envrc; echo y > /tmp/p/plain2
		echo y > /tmp/y && echo bwrap-tmp-ok'
	ok_unless "nested bwrap: sub/.envrc not made" test -e "$P/sub/.envrc"
	ok_unless "nested bwrap: plain2 not made" test -e "$P/plain2"
	assert_match "nested bwrap: its tmpfs works" "$(jfield .stdout)" \
	    "bwrap-tmp-ok"
	# A project file bind-mounted onto a name of the nested tmpfs: the
	# name's directory is not the project's, what it opens is.
	jexec --config "$T/nest.json" -- unshare -Urm python3 -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
open("/tmp/t", "w").close()
print("mount", libc.mount(b"src/a.txt", b"/tmp/t", None, 4096, None))
try:
    with open("/tmp/t", "w") as f:
        f.write("evil\n")
    print("written")
except OSError as e:
    print("refused", e.errno)'
	assert_match "a bind-mounted project file: refused" "$(jfield .stdout)" \
	    "mount 0.*refused 13"
	assert_eq "  src/a.txt unchanged" "$(cat "$P/src/a.txt")" hello
else
	skip "a nested bwrap" "as root uid 0 cannot be mapped into a nested namespace without CAP_SETFCAP"
fi

done_testing
