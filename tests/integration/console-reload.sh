#!/bin/bash
# console-reload: `bwgate reload`, SIGHUP of a headless console, a reload
# that fails to parse, and a request queued before a reload keeping the
# verdict it was shown; the audit log rotating by size without splitting a
# record.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"
RULES="$XDG_CONFIG_HOME/bwgate/allowlist.json"
cp "$RULES" "$T/rules.orig"

# A small audit log limit, so that rotation happens within the test.
cat > "$XDG_CONFIG_HOME/bwgate/config.json" <<'JSON'
{"console": {"audit_max_bytes": 30000, "audit_keep": 3}}
JSON

start_console --headless --auto-allowlisted
# Is there a record matching a jq condition in the log or its rotations?
audit_has() {
	cat "$AUDIT".* "$AUDIT" 2>/dev/null | jq -s -e "any(.[]; $1)"
}
"$BWGATE" run -- echo before > /dev/null 2>&1
assert_eq "echo is allowed before the reload" "$?" 0

# A new rule denies echo; the console knows only after a reload.
jq '.rules += [{"id":"no-echo","command":["echo"],"verdict":"deny","reason":"reload test"}]' \
    "$T/rules.orig" > "$RULES"
"$BWGATE" run -- echo stale > /dev/null 2>&1
assert_eq "rules are not re-read by themselves" "$?" 0
"$BWGATE" reload
assert_eq "bwgate reload succeeds" "$?" 0
"$BWGATE" run -- echo after > "$T/out" 2> "$T/err"
ok_unless "after bwgate reload the new deny rule applies" test "$?" -eq 0
ok_if "the reload is in the audit log" \
    audit_has '.record == "reload" and .ok == true'

# A rule file that does not parse: the old rules stay, and it says why.
echo '{"version":1,"rules":[' > "$RULES"
"$BWGATE" reload 2> "$T/reload.err"
assert_eq "a broken rule file: reload refused (exit 1)" "$?" 1
ok_if "the refusal names the file" grep -q 'allowlist.json' "$T/reload.err"
"$BWGATE" run -- echo still > /dev/null 2>&1
ok_unless "the old rules (echo denied) stay after a failed reload" \
    test "$?" -eq 0
ok_if "the failed reload is in the audit log with its reason" \
    audit_has '.record == "reload" and .ok == false and (.error | test("allowlist"))'
"$BWGATE" run -- true 2> "$T/true.err"
assert_eq "the console still answers after a failed reload" "$?" 0; cat "$T/true.err" | sed "s/^/# /"

# SIGHUP of a headless console reloads instead of stopping it.
cp "$T/rules.orig" "$RULES"
kill -HUP "$CPID"
ok_if "SIGHUP reloads (echo allowed again)" \
    wait_for 10 "$BWGATE" run -- echo hup
ok_if "the console survived SIGHUP" kill -0 "$CPID"
ok_if "the SIGHUP reload is in the audit log" \
    audit_has '.record == "reload" and .by == "SIGHUP"'

# Rotation: keep writing until the log has rotated more than keep times.
for i in $(seq 1 60); do "$BWGATE" run -- echo "$i" > /dev/null 2>&1; done
ok_if "the log rotated (audit.jsonl.1 exists)" test -f "$AUDIT.1"
ok_if "at most audit_keep (3) rotated files are kept" \
    sh -c "test ! -e '$AUDIT.4'"
ok_if "every file holds whole JSON records only" \
    sh -c "cat '$AUDIT' '$AUDIT'.* | jq -e . > /dev/null"
first=$(head -n 1 "$AUDIT" | jq -r .record)
assert_eq "the first record of the current file is audit-rotated" \
    "$first" audit-rotated
assert_eq "it names the file before it" \
    "$(head -n 1 "$AUDIT" | jq -r .previous)" audit.jsonl.1
# One record can be large (a start record carries the agent's environment
# in its exec argv): the bound is the limit plus the largest record.
big=$(cat "$AUDIT" "$AUDIT".* | LC_ALL=C awk '{ n = length($0) + 1; if (n > m) m = n } END { print m + 0 }')
ok_if "each file stays near the limit (no file over 30000 + one record)" \
    sh -c "for f in '$AUDIT' '$AUDIT'.*; do [ \$(stat -c %s \"\$f\") -le $((30000 + big)) ] || exit 1; done"
# The sequence numbers of the files, oldest first, run on without a gap.
seqs=$(for f in "$AUDIT.3" "$AUDIT.2" "$AUDIT.1" "$AUDIT"; do
	[ -f "$f" ] && jq -r .seq "$f"; done)
ok_if "seq numbers run on across files without a gap" \
    sh -c "echo '$seqs' | awk 'NR > 1 && \$1 != prev + 1 { exit 1 } { prev = \$1 }'"
ok_if "previous_last_seq joins each file to the one before it" \
    sh -c "[ \$(head -n 1 '$AUDIT' | jq .previous_last_seq) -eq \$(tail -n 1 '$AUDIT.1' | jq .seq) ]"

stop_console
assert_eq "clean exit" "$CRC" 0
done_testing
