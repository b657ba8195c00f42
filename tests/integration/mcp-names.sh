#!/bin/bash
# mcp-names: file names that are not valid UTF-8 through the MCP file tools.
# A real file named with the bytes \xff\xfe is listed with its exact bytes
# (name_base64) beside the readable name, and the agent names it back with
# path_base64; a file whose name really is U+FFFD U+FFFD stays a different
# file; the output is valid UTF-8 JSON throughout.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
BAD=$'\xff\xfe.txt'
LOOK=$'\xef\xbf\xbd\xef\xbf\xbd.txt'	# "��.txt": what BAD shows as
echo "latin bytes" > "$P/$BAD"
echo "replacement characters" > "$P/$LOOK"
B64=$(printf '%s' "$BAD" | base64)
DIRB64=$(printf '%s' $'d\xe9j\xe0' | base64)
mkdir "$P/"$'d\xe9j\xe0'
echo inside > "$P/"$'d\xe9j\xe0/f'

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
call() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$1" "$2" "$3"
}
{
	echo "$INIT"
	echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	call 2 list_directory '{}'
	call 3 read_file "{\"path_base64\":\"$B64\"}"
	call 4 read_file "{\"path\":\"$LOOK\"}"
	call 5 read_file "{\"path\":\"x\",\"path_base64\":\"$B64\"}"
	call 6 read_file '{"path_base64":"not base64!"}'
	call 7 read_file "{\"path_base64\":\"$(printf 'a\0b' | base64)\"}"
	call 8 write_file "{\"path_base64\":\"$B64\",\"content\":\"overwritten\"}"
	call 9 list_directory "{\"path_base64\":\"$DIRB64\"}"
	call 10 read_file '{}'
} | timeout 20 "$BWGATE" mcp > "$T/out.jsonl" 2> "$T/err"
assert_eq "mcp ends cleanly" "$?" 0
ok_if "the output is valid UTF-8" iconv -f UTF-8 -t UTF-8 -o /dev/null "$T/out.jsonl"
ok_if "every reply parses as JSON" jq -e -s 'length == 10' "$T/out.jsonl"

res() {
	jq -c "select(.id == $1) | $2" "$T/out.jsonl"
}
entry() {
	res 2 ".result.structuredContent.entries[] | select(.type == \"file\" and .name_base64 $1)"
}
assert_eq "listing: the \\xff\\xfe file carries its bytes" \
    "$(entry '!= null' | jq -r .name_base64)" "$B64"
assert_eq "  name_base64 decodes to the name on disk" \
    "$(entry '!= null' | jq -r .name_base64 | base64 -d | od -An -tx1 | tr -d ' \n')" \
    "fffe2e747874"
assert_eq "  its readable name shows U+FFFD" \
    "$(entry '!= null' | jq -r .name)" "$LOOK"
assert_eq "  the file really named U+FFFD U+FFFD has no name_base64" \
    "$(res 2 '[.result.structuredContent.entries[] | select(.name == "'"$LOOK"'")] | length')" 2
ok_if "  the text listing says how to name it" \
    grep -qF "not UTF-8: name_base64 $B64; pass path_base64" "$T/out.jsonl"
assert_eq "read_file with path_base64 reads the \\xff\\xfe file" \
    "$(res 3 .result.structuredContent.content)" '"latin bytes\n"'
assert_eq "  and gives its path back in base64" \
    "$(res 3 .result.structuredContent.path_base64)" "\"$B64\""
assert_eq "read_file of the U+FFFD name reads the other file" \
    "$(res 4 .result.structuredContent.content)" '"replacement characters\n"'
assert_eq "path and path_base64 together: invalid params" "$(res 5 .error.code)" -32602
assert_eq "not base64: invalid params" "$(res 6 .error.code)" -32602
assert_eq "a NUL in path_base64: invalid params" "$(res 7 .error.code)" -32602
assert_eq "write_file to a name that is not UTF-8: a tool error" \
    "$(res 8 .result.isError)" true
assert_match "  saying why and what to do" "$(res 8 .result.content[0].text)" \
    "not valid UTF-8.*run tool"
assert_eq "  the file is unchanged" "$(cat "$P/$BAD")" "latin bytes"
assert_eq "list_directory of a directory named in base64" \
    "$(res 9 '.result.structuredContent.entries[0].name')" '"f"'
assert_eq "  its path in base64 too" \
    "$(res 9 .result.structuredContent.path_base64)" "\"$DIRB64\""
assert_eq "no path at all: invalid params" "$(res 10 .error.code)" -32602
done_testing
