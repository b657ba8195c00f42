#!/bin/bash
# ui-git: a commit approved with the git-write profile shows in the
# console's report pane: the attention line for .git, the commit's id and
# subject, the branch that moved; `bwgate show` and the agent's `bwgate
# run` print the same lines. Narrow (50x40) and wide (160x50) layouts.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

command -v git > /dev/null || { skip "ui git" "no git"; done_testing; exit; }
git config --global user.name "Host Operator"
git config --global user.email "operator@example.org"
git config --global init.defaultBranch main
P="$T/repo"
mkdir -p "$P"
(cd "$P" && git init -q . && echo hello > a.txt && git add -A &&
    git commit -qm initial) || exit 1

# The newest pending request's id, once there is one.
pending() {
	BWGATE_SOCKET="$S" "$BWGATE" list --json |
	    jq -e 'map(select(.state == "pending")) | last | .id'
}

run_layout() {
	local cols="$1" lines="$2" L="$1x$2" id old new
	ui_start "$cols" "$lines" || return 1
	old=$(git -C "$P" rev-parse HEAD)
	agent gc -- sh -c "echo $L >> a.txt && git commit -qam 'report pane $L'"
	check_screen "$L: #1 waits" 10 '^! +1 '
	wait_for 10 pending
	id=$(pending)
	BWGATE_SOCKET="$S" "$BWGATE" approve --profile git-write "$id" \
	    > "$T/approve" 2>&1
	wait_agent 60 gc
	assert_eq "$L: the commit ran" "$(agent_rc gc)" 0
	new=$(git -C "$P" rev-parse HEAD)
	# Tab to the report pane: queue, detail, files, output, report.
	keys BTab
	check_screen "$L: report pane focused" 5 "\[?report\]? +#$id "
	check_screen "$L: report: the attention line" 5 \
	    '! attention: \.git: 1 commit made'
	check_screen "$L: report: the commit line" 5 \
	    "git: commit ${new:0:12} report pane $L"
	if [ "$cols" -ge 100 ]; then
		check_screen "$L: report: the branch moved" 5 \
		    "git: refs/heads/main moved ${old:0:12}\.\.${new:0:12}"
	else
		check_screen "$L: report: the branch moved" 5 \
		    "git: refs/heads/main moved"
	fi
	assert_match "$L: bwgate run told the agent" "$(cat "$T/gc.err")" \
	    "bwgate: git: commit ${new:0:12} report pane $L"
	assert_match "$L: bwgate show: the same line" \
	    "$(BWGATE_SOCKET="$S" "$BWGATE" show "$id" 2>&1)" \
	    "git: commit ${new:0:12} report pane $L"
	assert_eq "$L: bwgate show --json: the commit" \
	    "$(BWGATE_SOCKET="$S" "$BWGATE" show "$id" --json |
	    jq -r '(.report // .).git.commits[0].id')" "$new"
	ui_stop
}

run_layout 50 40
run_layout 160 50
done_testing
