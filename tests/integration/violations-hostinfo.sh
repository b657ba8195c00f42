#!/bin/bash
# violations-hostinfo: a refusal tells a command nothing about the host's
# files. The same write attempts aimed at host paths the sandbox does not
# show, once where the host has something and once where it has nothing,
# give the same report (violations, exit status, error output), with the
# observer (exact) and without it (inferred from the error output).
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
# Host places the sandbox does not show: a directory and a file in the
# host /tmp (the sandbox has a private one) and in $HOME (hidden).
HT=$(mktemp -d /tmp/bwgate-hostinfo.XXXXXX)
CLEANUP_EXTRA="rm -rf '$HT'"
mkdir "$HT/dir"
echo secret > "$HT/file"
mkdir -p "$HOME/.ssh"
echo key > "$HOME/.ssh/id_ed25519"
ABSENT=/tmp/bwgate-hostinfo-absent.$$

# The attempts, with @ standing for the place.
attempts=(
	'echo x > @/file'
	'echo x > @/dir/new'
	'mkdir @/dir'
	'rm -f @/file'
	'touch @/file'
)
# The report with the place's name replaced by PLACE.
report_of() {
	local place=$1 script=$2; shift 2
	"$BWGATE" exec --json --project "$P" "$@" -- \
	    sh -c "${script//@/$place}" > "$T/r.json" 2> /dev/null
	jq -S -c '{exit_code, stderr, violations: [.violations[] |
	    {operation, path, reason, exact}]}' < "$T/r.json" |
	    sed "s|$place|PLACE|g"
}
for how in exact inferred; do
	opts=()
	[ $how = inferred ] && export BWGATE_NO_NOTIFY=1
	for a in "${attempts[@]}"; do
		have=$(report_of "$HT" "$a")
		none=$(report_of "$ABSENT" "$a")
		assert_eq "$how: /tmp, '$a': the same whether the host has it" \
		    "$have" "$none"
		have=$(report_of "$HOME/.ssh" "${a//file/id_ed25519}")
		none=$(report_of "$HOME/.nothing" "${a//file/id_ed25519}")
		assert_eq "$how: \$HOME, '$a': the same whether the host has it" \
		    "$have" "$none"
	done
	unset BWGATE_NO_NOTIFY
done
# And the host's files are as they were.
assert_eq "the host file is untouched" "$(cat "$HT/file")" secret
assert_eq "the host key is untouched" "$(cat "$HOME/.ssh/id_ed25519")" key
ok_unless "nothing was made on the host" test -e "$HT/dir/new"
done_testing
