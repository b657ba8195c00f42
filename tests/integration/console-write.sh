#!/bin/bash
# console-write: file writes as console requests, over the raw protocol
# ("submit" with "write"): refusals before queueing, the verdicts (allow,
# deny for a protected path, ask for attention), "write N bytes to PATH"
# with the diff in the request, bytes carried exactly.
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
assert_match "a newline in the path refused" "$(refused $'x\n# $(touch pwn)')" "(^write: .*control character \(byte 0x0a\)|write.path. holds a control character \(U\+000A)"
ok_unless "no file from the newline path" test -e pwn
ok_unless "nothing was queued for them" \
    jq -e 'select(.record == "request")' "$AUDIT"

# A plain write waits for the operator (headless, not auto), who approves.
echo old > plain.txt
write_bg plain.txt $'new\n'
ok_if "plain write: queued" wait_for 10 queued_whole
assert_eq "plain write: allow by the file-write rule" \
    "$(reply queued | jq -c '[.verdict, .rule, .profile, .cwd]')" \
    "[\"allow\",\"file-write\",\"project\",\"$P\"]"
assert_eq "plain write: the request is what it does" \
    "$(reply queued | jq -r .command)" "write 4 bytes to plain.txt"
assert_eq "plain write: the audit log has the diff" \
    "$(jq -r 'select(.record == "request") | .request.write.diff' "$AUDIT")" \
    $'@@ -1,1 +1,1 @@\n-old\n+new'
assert_eq "plain write: bwgate's helper runs, no shell" \
    "$(reply queued | jq -c '.bwrap_argv[-2:]')" '["/run/bwgate/helper","--write"]'
id=$(reply queued | jq .id)
"$BWGATE" approve "$id" >/dev/null
wait "$WPID"
assert_eq "plain write: ran, exit 0" "$(reply result | jq -c '[.state, .exit_status]')" '["finished",0]'
assert_eq "plain write: the file" "$(cat plain.txt)" new
assert_eq "plain write: its change report" \
    "$(reply result | jq -c .report.changes.modified)" '["plain.txt"]'
assert_eq "plain write: the one program it ran is bwgate's helper" \
    "$(reply result | jq -c '[.report.executed[] | [.argv, .allowlisted]]')" \
    '[[["/run/bwgate/helper","--write"],true]]'

# A protected path is denied by the rule: the sandbox keeps it read-only,
# approving could not help.
cp .git/config "$T/config.before"
write_bg .git/config $'[core]\n\tfsmonitor = evil\n'
wait "$WPID"
assert_match "protected write: deny, with the reason" \
    "$(reply queued | jq -r '.verdict + " " + .reason')" "^deny write_file: '.git/config' is protected"
assert_eq "protected write: denied by the rule" \
    "$(reply decided | jq -c '[.decision, .by]')" '["denied","allowlist"]'
assert_eq "protected write: .git/config unchanged on the host" \
    "$(cmp -s .git/config "$T/config.before" && echo same)" same

# Bytes JSON text cannot hold (NUL, not UTF-8) go as content_base64 and
# are written exactly; so is a binary file replaced.
printf 'a\0b' > bin
printf 'x\0y\377\0\n' > "$T/bin.new"
jq -cn --arg c "$(base64 -w0 < "$T/bin.new")" \
    '{type: "submit", write: {path: "bin", content_base64: $c}}' |
    "$PEER" -t 20 -n 1 "$S" > "$T/w.out" &
WPID=$!
ok_if "binary write: queued" wait_for 10 queued_whole
assert_eq "binary write: shown as what it does" \
    "$(reply queued | jq -r .command)" "write 6 bytes to bin"
"$BWGATE" approve "$(reply queued | jq .id)" >/dev/null
wait "$WPID"
assert_eq "binary write: ran" "$(reply result | jq -c '[.state, .exit_status]')" '["finished",0]'
ok_if "binary write: byte-exact" cmp bin "$T/bin.new"

# A large rewrite (more than one argument of a command could hold) is
# written exactly; more than a write carries is refused.
awk 'BEGIN { for (i = 0; i < 1500; i++) printf "old %04d %0236d\n", i, 0 }' > big.txt
awk 'BEGIN { for (i = 0; i < 1500; i++) printf "new %04d %0236d\n", i, i }' > "$T/big.new"
write_bg big.txt "" "$T/big.new"
ok_if "large write: queued" wait_for 10 queued_whole
"$BWGATE" approve "$(reply queued | jq .id)" >/dev/null
wait "$WPID"
assert_eq "large write: ran" "$(reply result | jq -c '[.state, .exit_status]')" '["finished",0]'
ok_if "large write: the file is exactly the new content" cmp big.txt "$T/big.new"
head -c 600000 /dev/zero | tr '\0' x > "$T/q.big"
write_bg q.txt "" "$T/q.big"; wait "$WPID"
assert_match "content over the limit refused" \
    "$(reply error | jq -r '[.code, .message] | join(": ")')" \
    "^write: .*carry at most 512 KiB"

# A program (execute bit) asks; the operator can deny.
printf '#!/bin/sh\n' > run.sh
chmod +x run.sh
write_bg run.sh $'#!/bin/sh\ncurl x | sh\n'
ok_if "program write: queued" wait_for 10 queued_whole
assert_match "program write: ask" "$(reply queued | jq -r '.verdict + " " + .reason')" "^ask .*execute bit"
"$BWGATE" deny --note "no" "$(reply queued | jq .id)" >/dev/null
wait "$WPID"
assert_eq "program write: denied with the note" \
    "$(reply decided | jq -c '[.decision, .note]')" '["denied","no"]'
assert_eq "program write: nothing written" "$(cat run.sh)" '#!/bin/sh'
assert_eq "audit: each write is a request with its decision" \
    "$(jq -r 'select(.record == "decision") | .decision' "$AUDIT" | tr '\n' ' ')" \
    "approved denied approved approved denied "
stop_console
ok_if "audit log is valid JSON lines" audit_valid
done_testing
