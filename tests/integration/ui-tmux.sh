#!/bin/bash
# ui-tmux: `bwgate --tmux` opens the console in a side pane of the current
# tmux window and sets BWGATE_SOCKET in the session environment; outside
# tmux it says why it cannot.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)

err=$(cd "$P" && "$BWGATE" --tmux 2>&1); rc=$?
assert_eq "outside tmux: 125" "$rc" 125
assert_match "says it is not inside tmux" "$err" 'not inside tmux'
err=$(cd "$P" && TMUX=/nonexistent,1,0 PATH=/nonexistent "$BWGATE" --tmux 2>&1)
assert_match "tmux missing: says so" "$err" 'tmux is not installed'

# A shell pane in tmux runs bwgate --tmux, as a person would, with a
# socket of its own so only the session environment can lead agents there.
# The option is spelled as getopt allows (an abbreviation): the socket is
# the one the option parser saw, not a second parse of the argv.
S="$T/side.sock"
cat > "$T/launch.sh" <<SH
#!/bin/sh
cd '$P' && '$BWGATE' --tmux --sock '$S' > '$T/launch.out' 2> '$T/launch.err'
echo \$? > '$T/launch.rc'
exec sleep 3600
SH
chmod +x "$T/launch.sh"
tm new-session -d -s ui -x 200 -y 50 "$T/launch.sh"
wait_for 10 test -s "$T/launch.rc"
assert_eq "bwgate --tmux exits 0" "$(cat "$T/launch.rc")" 0
assert_eq "it prints the export line" "$(cat "$T/launch.out")" \
    "export BWGATE_SOCKET=$S"
assert_eq "the window now has two panes" \
    "$(tm list-panes -t ui | wc -l)" 2
assert_eq "BWGATE_SOCKET is in the session environment" \
    "$(tm show-environment -t ui BWGATE_SOCKET)" "BWGATE_SOCKET=$S"
pane=$(tm list-panes -t ui -F '#{pane_id} #{pane_width}' | tail -1)
check_screen "the side pane runs the console" 10 'queue ' "${pane%% *}"
ok_if "the side pane is the narrower one" test "${pane##* }" -lt 120

# A second --tmux for the project whose console runs: that pane is
# selected, no new (broken) pane is opened.
l2=$(tm split-window -d -P -F '#{pane_id}' -t ui "cd '$P' && '$BWGATE' --tmux --socket '$S' > '$T/l2.out' 2> '$T/l2.err'; echo \$? > '$T/l2.rc'; exec sleep 3600")
wait_for 10 test -s "$T/l2.rc"
assert_eq "a second --tmux for the project: exit 0" "$(cat "$T/l2.rc")" 0
assert_match "it names the pane of the running console" "$(cat "$T/l2.err")" \
    "already runs in tmux pane ${pane%% *} \\(pid [0-9]+\\): selected it"
assert_eq "and opens no pane (two, plus the launcher's)" \
    "$(tm list-panes -t ui | wc -l)" 3
assert_eq "the console's pane is the active one" \
    "$(tm display-message -p -t ui '#{pane_id}')" "${pane%% *}"
tm kill-pane -t "$l2"

# Per project: a --tmux without --socket sets nothing in the session, and
# a second project's --tmux in the same session opens its own console
# (it used to find the first one's BWGATE_SOCKET and refuse).
P5=$(new_project fifth)
tm new-window -d -t ui "cd '$P5' && '$BWGATE' --tmux > '$T/l5.out' 2> '$T/l5.err'; echo \$? > '$T/l5.rc'; exec sleep 3600"
wait_for 10 test -s "$T/l5.rc"
assert_eq "a second project's --tmux: exit 0" "$(cat "$T/l5.rc")" 0
assert_match "  it opened a pane of its own" "$(cat "$T/l5.err")" \
    'opened in tmux pane %[0-9]+; agents in this project find it'
S5=$(sed -n 's/^export BWGATE_SOCKET=//p' "$T/l5.out")
ok_if "  on the project's own socket, not the session's" sh -c \
    "test -n '$S5' && test '$S5' != '$S'"
ok_if "  its console listens" wait_for 10 test -S "$S5"
assert_eq "  the session's BWGATE_SOCKET is still the first one's" \
    "$(tm show-environment -t ui BWGATE_SOCKET)" "BWGATE_SOCKET=$S"
( cd "$P5" && env -u BWGATE_SOCKET "$BWGATE" run -- sh -c 'echo in-fifth' \
    > "$T/a5.out" 2> "$T/a5.err" ) &
a5=$!
p5=$(sed -n 's/.*opened in tmux pane \(%[0-9]*\).*/\1/p' "$T/l5.err")
check_screen "  an agent of that project reaches its pane" 10 \
    'echo in-fifth' "$p5"
tm send-keys -t "$p5" a a
wait "$a5"
assert_eq "  and runs there" "$?:$(cat "$T/a5.out")" "0:in-fifth"
[ -n "$p5" ] && tm kill-window -t "$p5"
ok_if "  its console stops with its window" wait_for 10 sh -c "! test -S '$S5'"

# From outside the project, with the project named by getopt's short
# option and --tmux abbreviated: the pane's console serves that project,
# on the socket the launcher exported (a hand parse of "--project" would
# take the launcher's directory and export another socket).
P2=$(new_project second)
tm new-window -d -t ui "cd '$T' && env -u BWGATE_SOCKET '$BWGATE' --tm -p '$P2' > '$T/l4.out' 2> '$T/l4.err'; echo \$? > '$T/l4.rc'; exec sleep 3600"
wait_for 10 test -s "$T/l4.rc"
assert_eq "--tm -p DIR from elsewhere: exit 0" "$(cat "$T/l4.rc")" 0
S4=$(sed -n 's/^export BWGATE_SOCKET=//p' "$T/l4.out")
ok_if "  the exported socket is the one the console listens on" \
    wait_for 10 test -S "$S4"
ok_if "  and it serves the named project" sh -c \
    "BWGATE_SOCKET='$S4' '$BWGATE' list --json >/dev/null && BWGATE_SOCKET='$S4' '$BWGATE' consoles | grep -qF '$P2'"
p4=$(sed -n 's/.*opened in tmux pane \(%[0-9]*\).*/\1/p' "$T/l4.err")
[ -n "$p4" ] && tm kill-window -t "$p4"
ok_if "  its console stops with its window" wait_for 10 sh -c "! test -S '$S4'"

# A directory named after a tmux format: tmux expands #() in -c and other
# format strings, which would run the command on the host. The console
# must start in that directory and nothing may run.
tm kill-pane -t "${pane%% *}"
wait_for 10 sh -c "! test -S '$S'"
export BWGATE_PWN="$T/pwned-by-tmux-format"
H=$(new_project 'x#(touch "$BWGATE_PWN")')
cat > "$T/launch3.sh" <<SH
#!/bin/sh
cd '$H' && '$BWGATE' --tmux --socket '$S' > '$T/l3.out' 2> '$T/l3.err'
echo \$? > '$T/l3.rc'
exec sleep 3600
SH
chmod +x "$T/launch3.sh"
tm new-window -d -t ui -e "BWGATE_PWN=$BWGATE_PWN" "$T/launch3.sh"
wait_for 10 test -s "$T/l3.rc"
assert_eq "--tmux from 'x#(cmd)' exits 0" "$(cat "$T/l3.rc")" 0
pane=$(sed -n 's/.*opened in tmux pane \(%[0-9]*\).*/\1/p' "$T/l3.err")
check_screen "the console runs in the 'x#(cmd)' directory" 10 'queue ' \
    "$pane"
ok_unless "tmux did not run the #() command on the host" \
    test -e "$BWGATE_PWN"

# An agent in a new window of the session finds the console (the one of
# the 'x#(cmd)' project, so that is where it runs).
cat > "$T/agent.sh" <<SH
#!/bin/sh
unset XDG_RUNTIME_DIR
cd '$H' && '$BWGATE' run -- sh -c 'echo via-tmux | tee via-tmux.txt' > '$T/tagent.out' 2>&1
echo \$? > '$T/tagent.rc'
exec sleep 3600
SH
chmod +x "$T/agent.sh"
tm new-window -d -t ui "$T/agent.sh"
check_screen "the agent's request reaches the side pane" 10 \
    "^! +1 .*echo via-tmux" "${pane%% *}"
tm send-keys -t "${pane%% *}" a a
wait_for 20 test -s "$T/tagent.rc"
assert_eq "the agent ran through the console" "$(cat "$T/tagent.rc")" 0
assert_match "and got the output" "$(cat "$T/tagent.out")" via-tmux

# (Last: a failed --tmux still sets its socket in the session.)
# A console that cannot start keeps its pane open and says why.
: > "$T/not-a-socket"
tm split-window -d -t ui "cd '$P' && '$BWGATE' --tmux --socket '$T/not-a-socket' > '$T/l3.out' 2>&1; echo \$? > '$T/l3.rc'; exec sleep 3600"
wait_for 10 test -s "$T/l3.rc"
bad=$(sed -n 's/.*opened in tmux pane \(%[0-9]*\).*/\1/p' "$T/l3.out")
check_screen "the failed console's pane says why it stopped" 10 \
    'not a socket|exited with status 125' "$bad"
tm kill-pane -t "$bad"

done_testing
