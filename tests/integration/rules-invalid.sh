#!/bin/bash
# rules-invalid: a project rule file that cannot be used (invalid JSON, an
# unknown profile) never keeps bwgate from starting: it is ignored as a
# whole, with a warning naming the file and the error, and the other rule
# files still decide (the project's file is one a command may have written).
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"

printf '{"rules": [\n' > .bwgate.json
out=$("$BWGATE" check -- 'ls' 2>&1)
assert_eq "invalid JSON: bwgate check still answers (allow)" "$?" 0
assert_match "it names the file and the error" "$out" \
    "rules: +'$P/.bwgate.json':[0-9]+: invalid JSON; the project's rule file is ignored"
jout=$("$BWGATE" check --json -- 'ls')
assert_match "--json says it too" "$(jq -r .project_error <<< "$jout")" \
    "invalid JSON"

ok_if "the console starts" start_console --headless --auto-allowlisted
ok_if "it warns, naming the file" \
    grep -q "warning: '$P/.bwgate.json':[0-9]*: invalid JSON" "$T/console.err"
"$BWGATE" run -- true
assert_eq "and serves" "$?" 0
stop_console

# Valid JSON that the rules cannot use: a rule naming no such profile.
cat > .bwgate.json <<'JSON'
{"rules": [{"id": "mine", "command": ["make"], "verdict": "allow",
  "profile": "no-such-profile", "reason": "x"}]}
JSON
out=$("$BWGATE" check -- 'ls' 2>&1)
assert_eq "an unknown profile: bwgate check still answers" "$?" 0
assert_match "it names the file and the profile" "$out" \
    "bwgate.json.*no-such-profile.*ignored"
ok_if "the console starts" start_console --headless --auto-allowlisted
"$BWGATE" run -- true
assert_eq "and serves" "$?" 0
stop_console

# The shipped and user rule files are bwgate's and yours: still fatal.
mkdir -p "$XDG_CONFIG_HOME/bwgate"
printf '{"rules": [\n' > "$XDG_CONFIG_HOME/bwgate/allowlist.json"
out=$("$BWGATE" check -- 'ls' 2>&1)
assert_eq "an invalid user rule file is still an error (125)" "$?" 125
rm "$XDG_CONFIG_HOME/bwgate/allowlist.json"
done_testing
