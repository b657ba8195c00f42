#!/bin/bash
# One door for the project: bwgate's own host-side work (binds of nested
# .git, the sweep of a new .git, the file tools) never leaves the project,
# even when a second sandbox of the same project swaps a directory for a
# symbolic link to the outside while it works; a .git is never made by a
# command (refused at the call); git metadata is found at any depth and
# under node_modules.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/libgitattack.sh"

P="$T/proj"
git init -q "$P"
cd "$P" || exit 1
run() { "$BWGATE" exec --quiet --project "$P" "$@" 2>&1; }
Q="$P/.bwgate-quarantine"

# 1. mv lib node_modules/lib, then back: lib/.git (history that exists
#    nowhere else) is kept by both runs.
mkdir -p lib node_modules
git init -q lib
(cd lib && echo x > f && git add f && git -c user.name=t -c user.email=t@t \
    commit -qm unpushed)
head=$(git -C lib rev-parse HEAD)
run -- mv lib node_modules/lib > /dev/null
run -- mv node_modules/lib lib > "$T/out1"
assert_eq "lib/.git survives a round trip through node_modules" \
	"$(git -C lib rev-parse HEAD 2>/dev/null)" "$head"
ok_unless "  and was not moved aside" test -e "$Q"

# 2. A directory made before the run, renamed to .git by the command:
#    refused at the call (issue 36), so it stays what and where it was.
mkdir -p old && echo keep > old/data
out=$("$BWGATE" exec --project "$P" -- sh -c 'mkdir d && mv old d/.git' 2>&1)
ok_unless "an older directory renamed to .git is not there" \
	test -e d/.git
assert_eq "  it stays where it was" "$(cat old/data)" keep
assert_match "  the command saw the refusal" "$out" "Permission denied"
rm -rf old d

# 3. Any depth, any tree: a repository planted 70 directories deep and one
#    under node_modules do not survive the run; existing ones that deep
#    are read-only.
deep=$(printf 'd/%.0s' $(seq 70))
out=$(run -- sh -c "mkdir -p n/$deep && git init -q n/$deep && \
    mkdir -p node_modules/pkg && git init -q node_modules/pkg")
ok_unless "a .git planted 70 directories deep is removed" \
	test -e "n/$deep.git"
ok_unless "a .git planted under node_modules is removed" \
	test -e node_modules/pkg/.git
mkdir -p "e/$deep" node_modules/dep
evil_repo "e/$deep.git"
evil_repo node_modules/dep/.git
ok_unless "an existing .git 70 directories deep is read-only" \
	run -- sh -c "$(poison "e/$deep.git/config")"
ok_unless "an existing .git under node_modules is read-only" \
	run -- sh -c "$(poison node_modules/dep/.git/config)"
# Deeper than the scan reads (128): the tree holding it is read-only
# whole, and one made there during a run is searched for and removed.
deeper=$(printf 'z/%.0s' $(seq 140))
out=$(run -- sh -c "mkdir -p w/$deeper && mkdir w/$deeper.git")
ok_unless "a .git made 140 directories deep is removed" \
	test -e "w/$deeper.git"
ok_unless "  and the tree that deep is read-only next time" \
	run -- sh -c "mkdir w/$deeper.git"
host_git_status "$P"
ok_unless "the operator's git status ran nothing" test -e "$MARK"
rm -rf n e w node_modules/pkg node_modules/dep

# 4. The race: a canary tree outside the project, with a nested
#    repository where the project has one, and a symbolic link to it in
#    the project. A second sandbox exchanges the project's directory and
#    the link (renameat2 RENAME_EXCHANGE, a bounded number of times)
#    while runs here bind the nested .git, make a placeholder below it,
#    have a new .git swept below it and list it with the file tools.
C="$T/canary"
mkdir -p "$C/sub/new" "$C/sub/absent"
evil_repo "$C/sub/.git"
echo "CANARY-SECRET" > "$C/sub/.git/secret"
mkdir -p "$C/sub/new/.git"
echo "CANARY-SECRET" > "$C/sub/new/.git/keep"
sum() { (cd "$C" && find . -printf '%p %y %s %i\n' | sort &&
    find . -type f -exec sha256sum {} + | sort) | sha256sum; }
before=$(sum)
mkdir -p x/sub
evil_repo x/sub/.git
echo project > x/sub/.git/mine
ln -s "$C" y
mkdir -p "$XDG_CONFIG_HOME/bwgate"
echo '{"sandbox":{"protected":["x/sub/absent/"]}}' \
    > "$XDG_CONFIG_HOME/bwgate/config.json"
cat > "$T/swap.py" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
    ctypes.c_char_p, ctypes.c_uint]
n = 0
for i in range(int(sys.argv[1])):
    if libc.renameat2(-100, b"x", -100, b"y", 2) == 0:   # RENAME_EXCHANGE
        n += 1
    if i % 1000 == 0 and os.path.exists(sys.argv[2]):
        break
print("swaps", n)
if n % 2:
    libc.renameat2(-100, b"x", -100, b"y", 2)
PY
# Bounded by iterations; it stops sooner when the runs are over (the
# stop file), and after the first run has started (the go file).
mkdir -p "$T/sw"
# A sandbox cannot make the exchange any more (moving x, which holds the
# protected x/sub/absent, is refused at the call, issue 36); the swapper
# runs beside the runs on the host instead, to keep testing the door.
"$BWGATE" exec --quiet --project "$P" --ro "$T/swap.py" --ro "$T/sw" -- \
    python3 "$T/swap.py" 10 "$T/sw/stop" > "$T/swapper" 2>&1
assert_eq "a sandbox cannot swap a tree holding a protected path" \
    "$(cat "$T/swapper")" "swaps 0"
python3 "$T/swap.py" 100000000 "$T/sw/stop" > "$T/swapper" 2>&1 &
swapper=$!
wait_for 20 test -L "$P/x"
: > "$T/runs"
for i in $(seq 30); do
	run -- sh -c 'mkdir -p x/sub/new/.git 2>/dev/null; \
	    cat x/sub/.git/secret x/sub/.git/mine 2>/dev/null; \
	    ls x/sub 2>/dev/null' >> "$T/runs" 2>&1
	printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_directory","arguments":{"path":"x/sub/.git"}}}\n' |
	    "$BWGATE" mcp --project "$P" >> "$T/runs" 2>&1
done
touch "$T/sw/stop"
wait "$swapper"
grep -q '^swaps [1-9]' "$T/swapper"
ok_if "the swapper swapped the directory for the link" test $? = 0
[ -L x ] && { mv x x.tmp; mv y x; mv x.tmp y; }
assert_eq "the canary outside the project is unchanged" "$(sum)" "$before"
ok_if "  its nested .git is still there" test -f "$C/sub/new/.git/keep"
ok_unless "  and nothing of it reached a sandbox or the file tools" \
	grep -q CANARY-SECRET "$T/runs"
# (bwrap 0.8 turns a descriptor back into a path and mounts by name: when
# the exchange falls in between, bwrap itself may fail naming where it got
# to ("Can't bind mount .../canary/..."), and where it succeeded bwgate
# refuses the run before the command starts (contain-bindrace.sh). Those
# lines are bwrap's own; no other message may name a path in the canary.)
ok_unless "  bwgate opened nothing in it (no message names a path in it)" \
	sh -c "grep -v -e \"^bwrap: Can't\" -e \"sandbox setup failed: Can't\" \
	    -e 'is not what bwgate opened' -e 'is not where it was put' \
	    '$T/runs' | grep -q '$C/'"
ok_unless "  nothing was made in it" \
	sh -c "ls -A '$C/sub/absent' | grep -q ."
ok_if "the project's own nested .git is kept (in place or aside)" \
	sh -c "grep -rqx project x/sub/.git/mine $Q 2>/dev/null"
done_testing
