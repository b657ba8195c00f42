#!/bin/bash
# git-ops: a git-write run says what it did to the repository (the
# report's "git", the text summary, an attention line): commits with ids
# and subjects (at most 20, then "and N more"), refs created, deleted,
# moved, forced (an amend), the index changed (git add only); a read-only
# run and a run that changes nothing say nothing. The host reads the
# repository without running anything of it: a planted log.showSignature
# + gpg.program and core.fsmonitor that real git on the host does run
# (checked) stay unrun by bwgate; a hostile subject is shown escaped and
# forges no report line, and its JSON is exact. The MCP run tool's result
# carries the same object and lines.
. "$(dirname "$0")/libtest.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

command -v git > /dev/null || { skip "git ops" "no git"; done_testing; exit; }
command -v jq > /dev/null || { skip "git ops" "no jq"; done_testing; exit; }
git config --global user.name "Host Operator"
git config --global user.email "operator@example.org"
git config --global init.defaultBranch main
P="$T/repo"
mkdir -p "$P"
cd "$P" || exit 1
git init -q .
echo hello > a.txt
git add -A && git commit -qm initial

# gexec ARGS: a git-write run; the JSON report in $T/report.json.
gexec() {
	"$BWGATE" exec --json --project "$P" --profile git-write -- \
	    sh -c "$1" > "$T/report.json" 2> "$T/stderr"
}
# The same run's text summary in $T/text.
gtext() {
	"$BWGATE" exec --project "$P" --profile git-write -- sh -c "$1" \
	    > /dev/null 2> "$T/text"
}

# A commit.
old=$(git rev-parse HEAD)
gexec 'echo more >> a.txt && git commit -qam "first by the agent"'
new=$(git rev-parse HEAD)
assert_eq "commit: it ran" "$(jfield .exit_code)" 0
assert_eq "commit: its id and subject" \
    "$(jq -c '[.git.commits[] | [.id, .subject]]' "$T/report.json")" \
    "[[\"$new\",\"first by the agent\"]]"
assert_eq "commit: counted" "$(jfield .git.commits_total)" 1
assert_eq "commit: the branch moved, old..new" \
    "$(jq -c '.git.refs' "$T/report.json")" \
    "[{\"name\":\"refs/heads/main\",\"change\":\"moved\",\"old\":\"$old\",\"new\":\"$new\"}]"
assert_eq "commit: the index changed with it" \
    "$(jfield .git.index_changed)" true
assert_eq "commit: an attention entry for .git" \
    "$(jq -r '.attention[] | select(.path == ".git") | .why' \
    "$T/report.json")" \
    "1 commit made, refs/heads/main moved, index changed"

# The text summary (bwgate exec; the console's pane uses the same lines).
gtext 'echo again >> a.txt && git commit -qam "second by the agent"'
new2=$(git rev-parse HEAD)
assert_match "text: the attention line" "$(cat "$T/text")" \
    '^bwgate: ! attention: \.git: 1 commit made, refs/heads/main moved'
assert_match "text: the commit line" "$(cat "$T/text")" \
    "bwgate: git: commit ${new2:0:12} second by the agent"
assert_match "text: the ref line" "$(cat "$T/text")" \
    "bwgate: git: refs/heads/main moved ${new:0:12}\.\.${new2:0:12}"

# An amend: the branch moved, not a fast-forward.
gexec 'git commit -q --amend -m "amended by the agent"'
amended=$(git rev-parse HEAD)
assert_eq "amend: forced" "$(jq -c '.git.refs' "$T/report.json")" \
    "[{\"name\":\"refs/heads/main\",\"change\":\"forced\",\"old\":\"$new2\",\"new\":\"$amended\"}]"
assert_eq "amend: the new commit" \
    "$(jq -r '.git.commits[0].subject' "$T/report.json")" \
    "amended by the agent"
gtext 'git commit -q --amend -m "amended twice"'
assert_match "amend: said in words" "$(cat "$T/text")" \
    'refs/heads/main forced [0-9a-f]{12}\.\.[0-9a-f]{12} \(not a fast-forward\)'

# A branch created, then deleted; a tag.
head=$(git rev-parse HEAD)
gexec 'git branch feature'
assert_eq "branch: created, no commit" \
    "$(jq -c '[.git.refs, .git.commits, .git.index_changed]' \
    "$T/report.json")" \
    "[[{\"name\":\"refs/heads/feature\",\"change\":\"created\",\"old\":null,\"new\":\"$head\"}],[],false]"
gexec 'git branch -D -q feature'
assert_eq "branch: deleted" "$(jq -c '.git.refs' "$T/report.json")" \
    "[{\"name\":\"refs/heads/feature\",\"change\":\"deleted\",\"old\":\"$head\",\"new\":null}]"
gtext 'git tag v1'
assert_match "tag: created, in words" "$(cat "$T/text")" \
    "bwgate: git: refs/tags/v1 created at ${head:0:12}"
gexec 'git tag -a v2 -m "annotated"'
assert_eq "annotated tag: created, no commit listed" \
    "$(jq -c '[.git.refs[0].name, .git.refs[0].change, .git.commits_total]' \
    "$T/report.json")" '["refs/tags/v2","created",0]'

# git add only: the index, nothing else.
echo staged > b.txt
gexec 'git add b.txt'
assert_eq "git add: the index changed, no ref, no commit" \
    "$(jq -c '.git' "$T/report.json")" \
    '{"commits":[],"commits_total":0,"refs":[],"index_changed":true}'
git reset -q

# Nothing to say: a read-only run, a git-write run that changes nothing.
"$BWGATE" exec --json --project "$P" -- git log --oneline \
    > "$T/report.json" 2> "$T/stderr"
assert_eq "read-only run: no git report" "$(jfield .git)" null
gexec 'git status --short > /dev/null; git log -1 > /dev/null'
assert_eq "git-write run that changes nothing: no git report" \
    "$(jfield .git)" null
assert_eq "and no attention for .git" \
    "$(jq '[.attention[] | select(.path == ".git")] | length' \
    "$T/report.json")" 0

# Many commits: 20 listed, the rest counted.
gexec 'for i in $(seq 1 25); do git commit -q --allow-empty -m "c$i"; done'
assert_eq "25 commits: 20 listed" "$(jq '.git.commits | length' \
    "$T/report.json")" 20
assert_eq "25 commits: all counted" "$(jfield .git.commits_total)" 25
assert_eq "25 commits: newest first" \
    "$(jq -r '.git.commits[0].subject' "$T/report.json")" c25
gtext 'for i in $(seq 1 22); do git commit -q --allow-empty -m "d$i"; done'
assert_match "22 commits: and 2 more" "$(cat "$T/text")" \
    'bwgate: git: \.\.\. and 2 more commits'
assert_eq "22 commits: 20 commit lines" \
    "$(grep -c '^bwgate: git: commit ' "$T/text")" 20

# A hostile subject: escapes, a carriage return and a forged report line.
subject=$(printf 'evil\033[2J\033]0;x\007\rbwgate: no changes in the project\tX')
printf '%s' "$subject" > "$T/subject"
cp "$T/subject" "$P/.subject"
gexec 'git commit -q --allow-empty --cleanup=verbatim -F .subject'
assert_eq "hostile subject: the JSON is exact" \
    "$(jq -j '.git.commits[0].subject' "$T/report.json" | od -An -tx1)" \
    "$(od -An -tx1 < "$T/subject")"
gtext 'git commit -q --allow-empty --cleanup=verbatim -F .subject'
rm -f "$P/.subject"
ok_unless "hostile subject: no escape byte reaches the terminal" \
    grep -q "$(printf '[\033\r\007]')" "$T/text"
assert_match "hostile subject: shown escaped, on its line" "$(cat "$T/text")" \
    'bwgate: git: commit [0-9a-f]{12} evil\\e\[2J\\e\]0;x\\x07\\rbwgate: no changes in the project\\tX'
assert_eq "hostile subject: no forged line" \
    "$(grep -c '^bwgate: no changes in the project' "$T/text")" 1

# A planted configuration (as an earlier compromise would leave it): a
# signed-looking commit, log.showSignature + gpg.program, core.fsmonitor,
# core.pager, a hooks path. bwgate's git runs none of it.
MARK="$T/ran"
mkdir -p "$T/hooks"
cat > "$T/evil" <<EOF
#!/bin/sh
echo "\$0 \$*" >> "$MARK"
exit 1
EOF
chmod +x "$T/evil"
for h in post-commit reference-transaction post-checkout; do
	cp "$T/evil" "$T/hooks/$h"
done
cp .git/config "$T/config.saved"
cat >> .git/config <<EOF
[log]
	showSignature = true
[gpg]
	program = $T/evil
[core]
	fsmonitor = $T/evil
	pager = $T/evil
	hooksPath = $T/hooks
	alternateRefsCommand = $T/evil
EOF
# The run writes a commit object with a signature header itself (the
# sandbox does not see $T: nothing inside can run $T/evil), and tries to
# plant a hook and more configuration, which the sandbox refuses.
gexec '
tree=$(git write-tree)
parent=$(git rev-parse HEAD)
c=$(printf "tree %s\nparent %s\nauthor A <a@a> 0 +0000\ncommitter A <a@a> 0 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n x\n -----END PGP SIGNATURE-----\n\nsigned looking\n" "$tree" "$parent" | git hash-object -t commit -w --stdin)
git update-ref refs/heads/main "$c"
printf "[core]\n\tpager = touch .git/pwned\n" >> .git/config 2>/dev/null
printf "#!/bin/sh\ntouch .git/pwned\n" > .git/hooks/post-update 2>/dev/null
exit 0'
assert_eq "planted config: the run's commit is reported" \
    "$(jq -r '.git.commits[0].subject' "$T/report.json")" "signed looking"
ok_unless "planted config: bwgate's host side ran nothing of it" \
    test -e "$MARK"
ok_unless "planted config: the run could not add a hook" \
    test -e .git/hooks/post-update
# The oracle: the planted configuration is live for a plain host git.
git log -1 --format='%H %s' > /dev/null 2>&1
ok_if "planted config: a plain host git log runs gpg.program (the attack is real)" \
    grep -q -- '--verify' "$MARK"
rm -f "$MARK"
git status > /dev/null 2>&1
ok_if "planted config: a plain host git status runs core.fsmonitor" \
    test -s "$MARK"
cp "$T/config.saved" .git/config

# A repository made by the run: a new .git is refused at the call (the
# operator entering the directory would run its config), nothing lands.
mkdir -p "$T/fresh"
echo x > "$T/fresh/f"
"$BWGATE" exec --json --project "$T/fresh" --profile git-write -- sh -c \
    'git init -q -b main && git add f && git commit -qm "first ever"' \
    > "$T/report.json" 2> "$T/stderr"
assert_eq "git init: refused at the mkdir of .git, nothing reported" \
    "$(jq -c '[.exit_code != 0, .git, [.violations[] | select(.path ==
    "'"$T"'/fresh/.git") | [.operation, .reason]]]' "$T/report.json")" \
    '[true,null,[["mkdir","protected"]]]'
ok_unless "git init: no .git lands" test -e "$T/fresh/.git"
# A repository the host made, empty: the run's first commit is reported
# and its branch as created.
git -C "$T/fresh" init -q -b main
"$BWGATE" exec --json --project "$T/fresh" --profile git-write -- sh -c \
    'git add f && git commit -qm "first ever"' \
    > "$T/report.json" 2> "$T/stderr"
assert_eq "empty repository: the first commit" \
    "$(jq -r '.git.commits[0].subject' "$T/report.json")" "first ever"
assert_eq "empty repository: the branch created" \
    "$(jq -c '[.git.refs[] | [.name, .change, .old, .new]]' "$T/report.json")" \
    "[[\"refs/heads/main\",\"created\",null,\"$(git -C "$T/fresh" rev-parse HEAD)\"]]"

# An object directory that leads out of the project: the run cannot make
# one (a symbolic link below .git is refused at the call) ...
mkdir -p "$T/elsewhere"
gexec 'git commit -q --allow-empty -m "tries a link" &&
ln -s "$PWD/../elsewhere" .git/objects/pack/linked'
assert_eq "linked object store: the run's link is refused at the call" \
    "$(jq -c '[.exit_code != 0, [.violations[] | select(.path | endswith(
    "/.git/objects/pack/linked")) | [.operation, .reason]]]' \
    "$T/report.json")" '[true,[["symlink","protected"]]]'
ok_unless "linked object store: no link lands" \
    test -L .git/objects/pack/linked
# ... but one left by an earlier compromise (made here by the host): git
# is not run (it would read there), the refs are still reported, a
# warning says why.
mv .git/objects/pack "$T/pack.saved"
ln -s "$T/elsewhere" .git/objects/pack
gexec 'git commit -q --allow-empty -m "linked out"'
rm -f .git/objects/pack
mv "$T/pack.saved" .git/objects/pack
assert_eq "linked object store: the ref still reported" \
    "$(jq -r '.git.refs[0] | .name + " " + .change' "$T/report.json")" \
    "refs/heads/main moved"
assert_eq "linked object store: no commit listed, not counted" \
    "$(jq -c '[.git.commits, .git.commits_total]' "$T/report.json")" \
    '[[],null]'
assert_match "linked object store: a warning says why" \
    "$(jq -r '.warnings[]' "$T/report.json")" \
    'commits made are not listed: the object store leads out'

# The agent through MCP: the run tool's result has the git object and the
# lines (a commit approved with git-write in a headless console).
. "$HERE/console-lib.sh"
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
coproc MCP { cd "$P" && exec "$BWGATE" mcp 2>"$T/mcp.err"; }
MCPPID=$MCP_PID
CLEANUP_EXTRA="kill -KILL $CPID $MCPPID 2>/dev/null"
send() { printf '%s\n' "$1" >&"${MCP[1]}"; }
expect() {
	local line
	while IFS= read -r -t 30 line <&"${MCP[0]}"; do
		if printf '%s' "$line" | jq -e "$1" >/dev/null 2>&1; then
			printf '%s' "$line"
			return 0
		fi
	done
	return 1
}
pending() {
	"$BWGATE" list --json | jq -e 'map(select(.state == "pending")) |
	    last | .id'
}
send '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
expect '.id == 1' > /dev/null
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
send '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run","arguments":{"command":"git commit -q --allow-empty -m \"through mcp\""}}}'
wait_for 20 pending
"$BWGATE" approve --profile git-write "$(pending)" > "$T/approve" 2>&1
expect '.id == 2' > "$T/mcp.json"
head=$(git rev-parse HEAD)
assert_eq "mcp: the result's git object names the commit" \
    "$(jq -r '.result.structuredContent.git.commits[0] | .id + " " + .subject' \
    "$T/mcp.json")" "$head through mcp"
assert_match "mcp: the text says it" \
    "$(jq -r '.result.content[0].text' "$T/mcp.json")" \
    "git: commit ${head:0:12} through mcp"
assert_match "mcp: and the branch" \
    "$(jq -r '.result.content[0].text' "$T/mcp.json")" \
    'git: refs/heads/main moved [0-9a-f]{12}\.\.[0-9a-f]{12}'
eval "exec ${MCP[1]}>&-"
wait "$MCPPID"
stop_console
done_testing
