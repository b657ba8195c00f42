#!/bin/bash
# console-write: file writes as console requests, over the raw protocol
# ("submit" with "write"): refusals before queueing, the file-write rules,
# the diff in the request, and the sandbox keeping a protected path
# read-only even when the operator approves the write.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"
ln -s "$T" out
ln -s /etc/passwd passwd
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }

# One write, its replies in $T/w.out (stops at the final message).
write_bg() {	# PATH CONTENT [FILE: the content instead]
	jq -cn --arg p "$1" --arg c "$2" --rawfile f "${3:-/dev/null}" \
	    '{type: "submit", tag: "w", write: {path: $p,
	    content: (if $f == "" then $c else $f end)}}' |
	    "$PEER" -t 20 -n 1 "$S" > "$T/w.out" &
	WPID=$!
}
reply() {
	jq -c "select(.type == \"$1\")" "$T/w.out"
}
# Has the queued reply arrived whole? (A long one is written in pieces:
# the file must end with the line's newline.)
queued_whole() {
	[ "$(tail -c 1 "$T/w.out" | od -An -c | tr -d ' ')" = '\n' ] &&
	    jq -e 'select(.type == "queued")' "$T/w.out"
}
refused() {
	write_bg "$1" "${2:-x}"; wait "$WPID"
	reply error | jq -r '[.code, .message] | join(": ")'
}

assert_match "'..' refused before queueing" "$(refused ../x)" "^write: .*'\.\.' is not allowed"
assert_match "absolute path outside refused" "$(refused /etc/x)" "^write: '/etc/x' is outside"
assert_match "symlink to a file outside refused" "$(refused passwd)" "^write: .*symbolic link"
assert_match "write through a symlinked directory refused" "$(refused out/x)" "^write: .*symbolic link"
assert_match "binary file refused" "$(printf 'a\0b' > bin; refused bin)" "^write: .*binary"
ok_unless "nothing was queued for them" \
    jq -e 'select(.record == "request")' "$AUDIT"

# A plain write waits for the operator (headless, not auto), who approves.
echo old > plain.txt
write_bg plain.txt $'new\n'
ok_if "plain write: queued" wait_for 10 queued_whole
assert_eq "plain write: allow by the file-write rule" \
    "$(reply queued | jq -c '[.verdict, .rule, .profile, .cwd]')" \
    "[\"allow\",\"file-write\",\"project\",\"$P\"]"
assert_eq "plain write: the request shows the diff" \
    "$(reply queued | jq -r .command | sed -n 1,4p | tr '\n' '|')" \
    "# bwgate: write_file 'plain.txt' (modified)|# @@ -1,1 +1,1 @@|# -old|# +new|"
id=$(reply queued | jq .id)
"$BWGATE" approve "$id" >/dev/null
wait "$WPID"
assert_eq "plain write: ran, exit 0" "$(reply result | jq -c '[.state, .exit_status]')" '["finished",0]'
assert_eq "plain write: the file" "$(cat plain.txt)" new
assert_eq "plain write: its change report" \
    "$(reply result | jq -c .report.changes.modified)" '["plain.txt"]'

# A protected path asks; approved, the sandbox still refuses the write.
cp .git/config "$T/config.before"
write_bg .git/config $'[core]\n\tfsmonitor = evil\n'
ok_if "protected write: queued" wait_for 10 queued_whole
assert_match "protected write: ask, with the reason" \
    "$(reply queued | jq -r '.verdict + " " + .reason')" "^ask write_file: '.git/config' is protected"
"$BWGATE" approve "$(reply queued | jq .id)" >/dev/null
wait "$WPID"
ok_unless "protected write: failed in the sandbox" \
    test "$(reply result | jq .exit_status)" = 0
assert_eq "protected write: .git/config unchanged on the host" \
    "$(cmp -s .git/config "$T/config.before" && echo same)" same
assert_match "protected write: the violation is reported" \
    "$(reply result | jq -c '.report.violations[] | [.path, .reason]')" \
    '"protected"'

# A large rewrite: the whole content fits in the one argument of bash -c,
# the diff in the comments is cut to what is left.
awk 'BEGIN { for (i = 0; i < 380; i++) printf "old %03d %0236d\n", i, 0 }' > big.txt
awk 'BEGIN { for (i = 0; i < 380; i++) printf "new %03d %0236d\n", i, i }' > "$T/big.new"
write_bg big.txt "" "$T/big.new"
ok_if "large write: queued" wait_for 10 queued_whole
assert_match "large write: the diff is cut, not the content" \
    "$(reply queued | jq -r .command | grep -c '^# ... (the diff is cut here')" "^1$"
"$BWGATE" approve "$(reply queued | jq .id)" >/dev/null
wait "$WPID"
assert_eq "large write: ran" "$(reply result | jq -c '[.state, .exit_status]')" '["finished",0]'
ok_if "large write: the file is exactly the new content" cmp big.txt "$T/big.new"
assert_match "quote-heavy content over the limit refused" \
    "$(refused q.txt "$(head -c 40000 /dev/zero | tr '\0' "'")")" \
    "^write: .*limited to 96 KiB"

# The operator can deny; the audit log has both decisions.
write_bg .envrc 'export X=1'
ok_if "attention write: queued" wait_for 10 queued_whole
assert_eq "attention write: ask" "$(reply queued | jq -r .verdict)" ask
"$BWGATE" deny --note "no direnv here" "$(reply queued | jq .id)" >/dev/null
wait "$WPID"
assert_eq "attention write: denied with the note" \
    "$(reply decided | jq -c '[.decision, .note]')" '["denied","no direnv here"]'
ok_unless "attention write: nothing written" test -e .envrc
assert_eq "audit: each write is a request with its decision" \
    "$(jq -r 'select(.record == "decision") | .decision' "$AUDIT" | tr '\n' ' ')" \
    "approved approved approved denied "
stop_console
ok_if "audit log is valid JSON lines" audit_valid
done_testing
