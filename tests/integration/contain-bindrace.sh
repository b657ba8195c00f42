#!/bin/bash
# contain-bindrace: bwrap 0.8 turns a --bind-fd source back into a path
# and resolves every destination through what is there when it mounts. A
# second sandbox of the project that exchanges a directory for a link at
# that moment would leave a protected path unmounted (writable) or mount
# another tree. Here the exchange is made deterministic: a bwrap wrapper
# (BWGATE_BWRAP) swaps the directory holding a protected file for a
# relative link to a decoy just before bwrap starts, so the protected
# mount lands on the decoy and the real file would stay writable. bwgate must see, before the
# command runs, that the mounts are not what it opened, and refuse.
. "$(dirname "$0")/libtest.sh"

P="$T/proj"
mkdir -p "$P/x/sub" "$P/z/sub"
git init -q "$P"
echo ORIGINAL > "$P/x/sub/keep"
echo DECOY > "$P/z/sub/keep"
ln -s z "$P/y"
mkdir -p "$XDG_CONFIG_HOME/bwgate"
echo '{"sandbox":{"protected":["x/sub/keep"]}}' \
    > "$XDG_CONFIG_HOME/bwgate/config.json"
BWRAP_REAL=$("$BWGATE" doctor --json 2>/dev/null | jq -r '.bwrap // empty')
[ -x "$BWRAP_REAL" ] || BWRAP_REAL=$(command -v bwrap)
cat > "$T/swap.py" <<'PY'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
    ctypes.c_char_p, ctypes.c_uint]
d = sys.argv[1].encode()
if libc.renameat2(-100, d + b"/x", -100, d + b"/y", 2) != 0:   # EXCHANGE
    sys.exit("exchange failed")
PY
# Only the run's bwrap (its options come through --args), once: the
# probes bwgate makes first must see the project as it is.
cat > "$T/bwrap-swap" <<EOF2
#!/bin/sh
case " \$* " in
*" --args "*)
	if [ ! -e "$T/swapped" ]; then
		: > "$T/swapped"
		python3 "$T/swap.py" "$P" || exit 99
	fi ;;
esac
exec "$BWRAP_REAL" "\$@"
EOF2
chmod +x "$T/bwrap-swap"

out=$(cd "$P" && BWGATE_BWRAP="$T/bwrap-swap" "$BWGATE" exec --project "$P" \
    -- sh -c 'echo PWNED > y/sub/keep; echo PWNED > x/sub/keep; : > ran' 2>&1)
rc=$?
# The exchange made the real directory y and x the link: put it back.
[ -e "$T/swapped" ] && python3 "$T/swap.py" "$P"
ok_if "the wrapper made the exchange" test -e "$T/swapped"
assert_eq "the swapped sandbox is refused (125)" "$rc" 125
assert_match "  saying its mounts are not what bwgate opened" "$out" \
    "not (where it was put|what bwgate opened)"
assert_eq "the protected file is unchanged" "$(cat "$P/x/sub/keep")" ORIGINAL
ok_unless "the command never ran" sh -c "test -e '$P/ran' || test -e '$P/x/ran'"
assert_eq "  and so is the decoy" "$(cat "$P/z/sub/keep")" DECOY

# The same run without the swap works (the check passes what is right).
out=$(cd "$P" && "$BWGATE" exec --project "$P" -- sh -c 'cat x/sub/keep' 2>&1)
assert_eq "without the swap it runs" "$?" 0
assert_match "  and reads the protected file" "$out" ORIGINAL
done_testing
