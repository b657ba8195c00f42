#!/bin/bash
# door-symlinks: the door (src/util/beneath.c) refuses every symbolic link
# on the way, not only those that lead out of the project: a link to a file
# or a directory inside the project is refused by the MCP file tools, and a
# protected path that is, or goes through, a link inside the project stops
# the run (bwgate(1), One door to the project; doc/agents.md, File tools).
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P"
mkdir -p real/deep
echo inner > real/deep/f.txt
ln -s real/deep/f.txt file-link
ln -s real dir-link

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
read_call() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"%s"}}}\n' "$1" "$2"
}
{
	echo "$INIT"
	echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	read_call 2 real/deep/f.txt
	read_call 3 file-link
	read_call 4 dir-link/deep/f.txt
	read_call 5 real/../dir-link/deep/f.txt
} | timeout 20 "$BWGATE" mcp > "$T/out.jsonl" 2> "$T/err"
res() { jq -c "select(.id == $1) | .result.isError" "$T/out.jsonl"; }
txt() { jq -r "select(.id == $1) | .result.content[0].text" "$T/out.jsonl"; }
assert_eq "read_file of a plain path: served" "$(res 2)" false
assert_match "with its content" "$(txt 2)" inner
assert_eq "a link to a file inside the project: refused" "$(res 3)" true
assert_match "saying why" "$(txt 3)" "symbolic link"
assert_eq "a path through a link to a directory inside: refused" "$(res 4)" true
assert_match "saying why" "$(txt 4)" "symbolic link"
assert_eq "a path with '..': refused" "$(res 5)" true

# Protected paths: .envrc a link to a file inside, .claude a link to a
# directory inside; and a nested repository reached through a link.
for what in file dir; do
	rm -f .envrc .claude
	if [ $what = file ]; then ln -s real/deep/f.txt .envrc
	else ln -s real .claude; fi
	"$BWGATE" exec --quiet -- sh -c 'echo ran > ran.txt' 2> "$T/err"
	assert_eq "a protected path that is a link to a $what inside: refused (125)" "$?" 125
	assert_match "saying why" "$(cat "$T/err")" "symbolic link"
	ok_unless "the command did not run" test -e ran.txt
done
rm -f .envrc .claude
"$BWGATE" exec --quiet -- sh -c 'echo ran > ran.txt'
assert_eq "without the links it runs" "$?" 0
done_testing
