#!/bin/bash
# door-rulefile: the project's rule file (.bwgate.json) is read through
# the door (beneath.h): no link followed, opened non-blocking, a regular
# file of at most 4 MiB. The attack: a project whose .bwgate.json is a
# FIFO (reading it by path blocked the console's start forever), a link
# to /etc/passwd or to a rule file outside the project, a file of 5 MiB,
# a directory. Each time `bwgate check`, `bwgate exec` and the console
# start within a deadline, say one line on why the file is ignored, and
# the rules outside are not used. (Without a profile exec reads no rule
# file; with the project's links the sandbox refuses to run, one line.)
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
X="$T/outside"
mkdir -p "$X"
cd "$P" || exit 1
# Rules outside the project that, followed, would deny ls.
cat > "$X/rules.json" <<'J'
{"rules": [{"id": "no-ls", "pattern": "ls *", "verdict": "deny",
  "reason": "from outside the project"}]}
J
chmod 0644 "$X/rules.json"

# Each kind of file, and the words the one line must hold.
setup() {
	rm -rf "$P/.bwgate.json"
	case $1 in
	fifo) mkfifo "$P/.bwgate.json" ;;
	passwd) ln -s /etc/passwd "$P/.bwgate.json" ;;
	outside) ln -s "$X/rules.json" "$P/.bwgate.json" ;;
	huge) truncate -s 5M "$P/.bwgate.json" &&
	      chmod 0644 "$P/.bwgate.json" ;;
	dir) mkdir "$P/.bwgate.json" ;;
	esac
}
declare -A why=([fifo]='is not a regular file \(a FIFO\)'
    [passwd]='is or goes through a symbolic link'
    [outside]='is or goes through a symbolic link'
    [huge]='is larger than 4194304 bytes'
    [dir]='is not a regular file \(a directory\)')

for kind in fifo passwd outside huge dir; do
	setup "$kind"
	out=$(timeout 30 "$BWGATE" check --project "$P" -- 'ls -l' 2>&1); rc=$?
	assert_eq "$kind: bwgate check finishes and allows ls" "$rc" 0
	assert_match "$kind: check says why the file is ignored, once" \
	    "$(grep -c '\.bwgate\.json' <<<"$out"):$(grep '\.bwgate\.json' <<<"$out")" \
	    "^1:rules: +in '$P': '\.bwgate\.json' ${why[$kind]}.*ignored until it is fixed"
	out=$(timeout 30 "$BWGATE" exec --project "$P" -- true 2>&1); rc=$?
	case $kind in
	passwd|outside)
		# A protected path that is a link: the sandbox refuses to
		# run with it (one line), as for .git.
		assert_eq "$kind: bwgate exec ends, refusing" "$rc" 125
		assert_match "$kind: exec says why, in one line" \
		    "$(wc -l <<<"$out"):$out" \
		    "^1:bwgate: protected path '$P/\.bwgate\.json' is a symbolic link" ;;
	*)
		assert_eq "$kind: bwgate exec runs" "$rc" 0 ;;
	esac
	# With a profile, exec reads the project's rules: one warning.
	out=$(timeout 30 "$BWGATE" exec --profile readonly --project "$P" \
	    -- true 2>&1); rc=$?
	assert_eq "$kind: bwgate exec --profile runs" "$rc" 0
	assert_match "$kind: exec says why the file is ignored, once" \
	    "$(grep -c '\.bwgate\.json' <<<"$out"):$(grep '\.bwgate\.json' <<<"$out")" \
	    "^1:bwgate: warning: in '$P': '\.bwgate\.json' ${why[$kind]}"
	if start_console --headless; then
		ok_if "$kind: the console starts" true
		assert_match "$kind: the console says why, in one line" \
		    "$(grep -c '\.bwgate\.json' "$T/console.err"):$(grep '\.bwgate\.json' "$T/console.err")" \
		    "^1:bwgate: warning: in '$P': '\.bwgate\.json' ${why[$kind]}"
		stop_console
	else
		ok_if "$kind: the console starts" false
		kill -KILL "$CPID" 2>/dev/null; wait "$CPID" 2>/dev/null
	fi
done
rm -rf "$P/.bwgate.json"
ok_if "the file outside is untouched" \
    grep -q 'from outside the project' "$X/rules.json"

# A regular rule file still counts (the door reads it).
cp "$X/rules.json" "$P/.bwgate.json"
out=$(timeout 30 "$BWGATE" check --project "$P" -- 'ls -l' 2>&1); rc=$?
assert_eq "a regular rule file is read: its deny counts" "$rc" 77
assert_match "and is named" "$out" 'rule: +[^ ]*/\.bwgate\.json:no-ls'
rm -f "$P/.bwgate.json"

done_testing
