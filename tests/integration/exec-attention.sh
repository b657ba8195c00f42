#!/bin/bash
# exec-attention: the change report calls out what matters: any change
# under a .git at any depth, the auto-run files (configuration key
# "attention"), new executables, symbolic links pointing outside the
# project, files with more than one hard link, .bwgate.json; in the JSON
# report ("attention") and as a marked line in the human summary, first.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
# .envrc and .vscode/ are also protected by default (bwgate(1) SECURITY):
# lifted here, so the command can change them and the report say so.
LIFT='"sandbox": {"protected": ["!.envrc", "!.vscode/"]}'
mkdir -p "$XDG_CONFIG_HOME/bwgate"
echo "{$LIFT}" > "$XDG_CONFIG_HOME/bwgate/config.json"
printf 'echo old\n' > "$P/old.sh"
printf 'all:\n' > "$P/Makefile"

# kind_of PATH: the attention kinds the report gives a path.
kind_of() {
	jq -r --arg p "$1" '[.attention[] | select(.path == $p) | .kind] |
	    join(",")' "$T/report.json"
}

jexec -- sh -c '
	echo "export X=1" > .envrc
	mkdir -p .vscode .github/workflows sub/.git/hooks deep
	echo "{}" > .vscode/tasks.json
	echo "on: push" > .github/workflows/ci.yml
	echo "#!/bin/sh" > sub/.git/hooks/pre-commit
	echo "{}" > deep/.bwgate.json
	printf "#!/bin/sh\n" > new.sh; chmod +x new.sh
	chmod +x old.sh
	ln -s /etc/passwd out-link
	ln -s ../src/a.txt deep/in-link
	ln -s ../../.. deep/up
	ln src/a.txt hard
	echo plain > plain.txt
	echo "x:" >> Makefile'
assert_eq "exec ran" "$?" 0
assert_eq ".envrc: auto-run" "$(kind_of .envrc)" auto-run
assert_eq ".vscode/ (a directory pattern)" "$(kind_of .vscode/tasks.json)" \
    auto-run
assert_eq ".github/workflows/" \
    "$(kind_of .github/workflows/ci.yml)" auto-run
# A nested .git is not made at all: refused at the call (issue 36).
ok_unless "a nested .git: refused, not made" test -e "$P/sub/.git"
assert_eq "a .bwgate.json at any depth" "$(kind_of deep/.bwgate.json)" rules
assert_eq "a new executable" "$(kind_of new.sh)" executable
assert_eq "a file that became executable" "$(kind_of old.sh)" executable
assert_eq "a link out of the project" "$(kind_of out-link)" symlink
assert_match "says where it points" \
    "$(jq -r '.attention[] | select(.path == "out-link") | .why' \
    "$T/report.json")" '/etc/passwd'
assert_eq "a link climbing out" "$(kind_of deep/up)" symlink
assert_eq "a link inside: nothing" "$(kind_of deep/in-link)" ""
assert_eq "a second hard link" "$(kind_of hard)" hardlink
assert_eq "a plain file: nothing" "$(kind_of plain.txt)" ""
assert_eq "Makefile is not on the default list" "$(kind_of Makefile)" ""

# The human summary: a marked line each, before the change lists.
"$BWGATE" exec --project "$P" -- sh -c 'echo y >> .envrc; echo z > z.txt' \
    2> "$T/human.err"
assert_match "the human summary marks it" "$(cat "$T/human.err")" \
    'bwgate: ! attention: \.envrc: modified: an auto-run path'
first=$(grep -n 'attention' "$T/human.err" | head -1 | cut -d: -f1)
list=$(grep -n '^bwgate:   [+~]' "$T/human.err" | head -1 | cut -d: -f1)
ok_if "attention comes before the change lists" test "$first" -lt "$list"

# The configuration adds paths; it cannot remove the shipped ones.
echo "{$LIFT, \"attention\": [\"Makefile\", \"tools/\"]}" > \
    "$XDG_CONFIG_HOME/bwgate/config.json"
jexec -- sh -c 'echo "y:" >> Makefile; mkdir -p tools; touch tools/t;
    echo >> .envrc'
assert_eq "a configured file" "$(kind_of Makefile)" auto-run
assert_eq "a configured directory" "$(kind_of tools/t)" auto-run
assert_eq "the shipped list still counts" "$(kind_of .envrc)" auto-run
echo "{$LIFT}" > "$XDG_CONFIG_HOME/bwgate/config.json"

# A change that needs nothing says so with an empty list.
jexec -- sh -c 'echo q > q.txt'
assert_eq "no attention for a plain change" \
    "$(jq -c '.attention' "$T/report.json")" '[]'
done_testing
