#!/bin/bash
# ui-layout: a narrow tmux side pane (50x40), 80x24 and a wide terminal,
# live resize between them; every pane reachable with Tab; nothing drawn
# past the width; colours, and none with NO_COLOR.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)

# Widest line of the screen in columns (wc -L counts display width).
screen_width() {
	screen | wc -L
}

ui_start 50 40 || { done_testing; exit 1; }
agent one -- sh -c 'printf "%s\n" "wide: 日本語テキスト"; echo done > f.txt'
check_screen "50x40: the queue shows the request" 10 '^! +1 .*sh -c'
check_screen "50x40: the detail pane is there" 5 '^ detail +#1'
check_screen "50x40: a tabbed pane below (files)" 5 '^\[files\] output +report'
check_screen "50x40: status line with hints" 10 '\? help'
ok_if "50x40: nothing wider than the pane" test "$(screen_width)" -le 50
keys Tab
check_screen "Tab: focus on detail" 5 '^ detail +#1'
keys Tab Tab
check_screen "Tab twice more: the output tab comes to the front" 5 \
    '^ files +\[output\] +report'
keys a a
wait_agent 20 one
check_screen "50x40: output with wide characters" 10 '^wide: 日本語テキスト'
ok_if "50x40: wide characters do not overflow" test "$(screen_width)" -le 50

tm resize-window -t ui -x 80 -y 24
check_screen "80x24: queue and one tabbed pane" 10 \
    '^ detail +files +\[output\] +report'
ok_if "80x24: nothing wider than the screen" test "$(screen_width)" -le 80
assert_eq "80x24: 24 lines" "$(screen | wc -l)" 24
keys Tab
check_screen "80x24: Tab reaches the report" 5 '\[report\]'
check_screen "80x24: the change report" 5 '1 created, 0 modified'
keys Tab Tab
check_screen "80x24: back round to detail" 5 '^\[detail\]'
check_screen "80x24: the detail of #1" 5 'command sh -c'

tm resize-window -t ui -x 200 -y 50
check_screen "wide: every pane at once" 10 '^ queue .* files'
check_screen "wide: output and report side by side" 5 ' output .*#1'
check_screen "wide: report" 5 ' report .*#1'
check_screen "wide: detail" 5 '^ detail +#1'

tm resize-window -t ui -x 30 -y 8
check_screen "tiny: still drawn" 10 'queue'
tm resize-window -t ui -x 50 -y 40
check_screen "back to 50x40" 10 '^ detail +#1'
ok_if "back to 50x40: width" test "$(screen_width)" -le 50

# Colours by default; NO_COLOR turns them off (attributes stay).
agent two -- sh -c 'exit 0'
check_screen "pending again" 10 '^! +2 '
colors=$(tm capture-pane -p -e -t ui | grep -c $'\e\\[[0-9;]*3[0-7]m\|\e\\[[0-9;]*38;5')
ok_if "colours are used" test "$colors" -gt 0
keys d Enter
wait_agent 10 two
ui_stop
sed -i "s|^'[^ ]*bwgate' |NO_COLOR=1 &|" "$T/console.sh"
rm -f "$T/console.rc"
tm new-session -d -s ui -x 80 -y 24 "$T/console.sh"
check_screen "NO_COLOR: console started" 10 'queue '
agent three -- sh -c 'exit 0'
check_screen "NO_COLOR: console up" 10 '^! +[0-9]+ '
colors=$(tm capture-pane -p -e -t ui | grep -c $'\e\\[[0-9;]*3[0-7]m\|\e\\[[0-9;]*38;5')
assert_eq "NO_COLOR: no colours" "$colors" 0
ok_if "NO_COLOR: the selection is still reverse video" bash -c \
    "tmux -S '$TMUX_SOCK' capture-pane -p -e -t ui | grep -q \$'\\e\\\\[[0-9;]*7m'"
done_testing
