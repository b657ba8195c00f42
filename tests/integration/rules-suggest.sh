#!/bin/bash
# rules-suggest: `bwgate rules suggest` proposes rules from what the
# operator approved again and again in this project, and writes them only
# when accepted; never for what was denied, what ran with the network or
# extra paths, what a rule or mode approved, or what is allowed already.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P" || exit 1
start_console --headless || exit 1

# Submit a command and approve it through the control socket (or deny).
n=0
decide() {
	local how="$1"; shift
	n=$((n + 1))
	"$BWGATE" run "$@" > /dev/null 2>&1 &
	local pid=$!
	wait_for 20 sh -c "'$BWGATE' list --json 2>/dev/null |
	    jq -e '.[] | select(.id == $n and .state == \"pending\")' > /dev/null"
	"$BWGATE" "$how" "$n" > /dev/null
	wait "$pid"
}
for d in a b c; do decide approve -- mkdir -p "dir-$d"; done
for i in 1 2 3; do decide approve -- make -v; done
decide approve -- cp src/a.txt b.txt
decide approve -- cp src/a.txt c.txt
decide deny -- cp src/a.txt d.txt
decide approve -- cp src/a.txt e.txt
for i in 1 2 3; do decide approve --network -- ln -sf a "l$i"; done
for i in 1 2 3; do decide approve --rw "$T" -- chmod 0644 src/a.txt; done
for i in 1 2 3; do decide approve -- sleep 0; done	# allowed by a rule

out=$("$BWGATE" rules suggest --json); rc=$?
assert_eq "suggest: exit 0" "$rc" 0
assert_eq "two suggestions" "$(echo "$out" | jq -c '[.[].pattern]')" \
	'["mkdir *","make -v"]'
assert_eq "  a prefix for three different mkdir commands" \
	"$(echo "$out" | jq -r '.[0] | "\(.kind) \(.approved) \(.profile)"')" \
	"prefix 3 project"
assert_eq "  an exact rule for make -v, approved three times" \
	"$(echo "$out" | jq -r '.[1] | "\(.kind) \(.approved)"')" "exact 3"
ok_unless "  none for cp (denied once)" sh -c "echo '$out' | grep -q '\"cp'"
ok_unless "  none for what ran with the network or extra paths" \
	sh -c "echo '$out' | grep -Eq '\"(ln|chmod)'"
ok_unless "nothing written before it is accepted" \
	test -e "$XDG_CONFIG_HOME/bwgate/projects"
text=$("$BWGATE" rules suggest)
assert_match "the text lists them with their profile" "$text" \
	"1  mkdir \* +profile project +approved 3 times"
assert_match "  and says how to accept" "$text" "--accept N"
err=$("$BWGATE" rules suggest --accept 7 2>&1); rc=$?
assert_eq "a number that is not a suggestion: refused" "$rc" 125
assert_match "  saying why" "$err" "not numbers of the 2 suggestions"

out=$("$BWGATE" rules suggest --accept 1,2); rc=$?
assert_eq "accept: exit 0" "$rc" 0
assert_match "  says where they went" "$out" "added mkdir \* .*projects/"
v=$("$BWGATE" check --json -- mkdir -p dir-z | jq -r '.verdict + " " + .profile')
assert_eq "another mkdir is now allowed, in the project profile" "$v" \
	"allow project"
v=$("$BWGATE" check --json -- make -v | jq -r .verdict)
assert_eq "make -v is now allowed" "$v" allow
v=$("$BWGATE" check --json -- make install | jq -r .verdict)
assert_eq "make install still asks (the exact rule)" "$v" ask
assert_eq "nothing more to suggest" "$("$BWGATE" rules suggest --json)" "[]"
ok_unless "nothing in the project's own rule file" test -e .bwgate.json

stop_console
done_testing
