#!/bin/bash
# mutation: break the security checks one at a time and make sure the suite
# notices (`make mutation`, or tests/mutation.sh [-k] [-o NAME...] [LIST]).
#
# The list (tests/mutations.list by default) holds blocks separated by blank
# lines; '#' starts a comment line:
#
#	name	a short name, unique in the list
#	@ src/file.c		the file to mutate
#	- exact original text	once in the file (any unique part of a
#				line; several '- ' lines are consecutive
#				lines, tabs and all)
#	+ replacement text	what it becomes (several '+ ' lines: lines)
#	= tests/unit/test-x tests/integration/y.sh
#				the tests that must fail once it is applied
#
# The worktree is never touched: the sources are copied (tar, without .git
# and _build) into a directory of our own (mktemp -d), configured and built
# once; each mutation is applied there, built incrementally, the listed
# tests run (`make check TESTS=...`), and the file put back. A mutation
# SURVIVES when every listed test still passes. A list entry whose original
# text is not found exactly once, or whose mutant does not compile, is an
# ERROR in the list (it would otherwise count as caught). The last line is
# the score; the exit status is 0 only when every mutation was caught.
#
#	-k	keep the scratch directory (its path is printed)
#	-o NAME	only this mutation (repeatable)
#	-v	show the failing tests' output
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
keep=no verbose=no only=()
while getopts kvo: o; do
	case $o in
	k) keep=yes ;;
	v) verbose=yes ;;
	o) only+=("$OPTARG") ;;
	*) echo "usage: $0 [-k] [-v] [-o NAME]... [LIST]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
list=${1:-$here/mutations.list}
[ -r "$list" ] || { echo "mutation: cannot read $list" >&2; exit 2; }
list=$(cd "$(dirname "$list")" && pwd)/$(basename "$list")

scratch=$(mktemp -d "${TMPDIR:-/tmp}/bwgate-mutation.XXXXXX") || exit 2
cleanup() {
	if [ "$keep" = yes ]; then
		echo "mutation: scratch tree kept in $scratch"
	else
		rm -rf -- "$scratch"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

src=$scratch/src
mkdir "$src"
(cd "$top" && tar --exclude=./.git --exclude=./_build --exclude='./_build*' \
    -cf - .) | (cd "$src" && tar -xf -) || exit 2
[ -x "$src/configure" ] || (cd "$src" && ./bootstrap >/dev/null 2>&1) ||
    { echo "mutation: bootstrap failed" >&2; exit 2; }
mkdir "$scratch/build"
cd "$scratch/build" || exit 2
echo "mutation: building the unmutated tree in $scratch"
if ! { "$src/configure" -q && make -s -j2 && make -s -j2 check TESTS=; } \
    > "$scratch/build.log" 2>&1; then
	tail -20 "$scratch/build.log"
	echo "mutation: the unmutated tree does not build" >&2
	exit 2
fi

# Parse the list into parallel arrays.
names=() files=() olds=() news=() tests=()
flush() {
	if [ -n "$n" ]; then
		if [ -z "$f" ] || [ -z "$old" ] || [ -z "$t" ] || [ "$hasnew" != yes ]; then
			echo "mutation: $list: entry '$n' lacks @, -, + or =" >&2
			exit 2
		fi
		names+=("$n") files+=("$f") olds+=("$old") news+=("$new")
		tests+=("$t")
	fi
	n="" f="" old="" new="" t="" hasnew=no
}
n="" f="" old="" new="" t="" hasnew=no
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	'#'*) ;;
	'') flush ;;
	'@ '*) f=${line#@ } ;;
	'- '*) old=${old:+$old$'\n'}${line#- } ;;
	'+ '*) [ "$hasnew" = yes ] && new=$new$'\n'${line#+ } ||
	    new=${line#+ }; hasnew=yes ;;
	'+') [ "$hasnew" = yes ] && new=$new$'\n' || new=""; hasnew=yes ;;
	'= '*) t=${line#= } ;;
	*) [ -z "$n" ] && n=$line || {
		echo "mutation: $list: stray line in '$n': $line" >&2; exit 2; } ;;
	esac
done < "$list"
flush

wanted() {
	[ ${#only[@]} -eq 0 ] && return 0
	local o
	for o in "${only[@]}"; do [ "$o" = "$1" ] && return 0; done
	return 1
}

# Replace the one occurrence of $2 by $3 in file $1; 1 when not exactly once.
mutate() {
	python3 - "$1" "$2" "$3" <<'EOF'
import sys
path, old, new = sys.argv[1], sys.argv[2], sys.argv[3]
with open(path, encoding="utf-8", newline="") as f:
    text = f.read()
if text.count(old) != 1:
    sys.exit(1)
with open(path, "w", encoding="utf-8", newline="") as f:
    f.write(text.replace(old, new, 1))
EOF
}

# Every listed test must exist and pass on the unmutated tree, or a
# mutation would count as caught by a test that fails anyway.
all_tests=$(for i in "${!names[@]}"; do wanted "${names[$i]}" &&
    echo "${tests[$i]}"; done | tr ' ' '\n' | sort -u)
for t in $all_tests; do
	case $t in
	*.sh) [ -f "$src/$t" ] ;;
	*) [ -x "$t" ] ;;
	esac || { echo "mutation: no test $t (not in the tree or not built)" >&2
	    exit 2; }
done
echo "mutation: the listed tests on the unmutated tree:" $all_tests
if ! make -s -j2 check TESTS="$(echo $all_tests)" > "$scratch/base.log" 2>&1; then
	grep -h '^not ok\|^FAIL\|^ERROR' $(for t in $all_tests; do
	    echo "$t.log"; done) 2>/dev/null | head -20
	echo "mutation: the listed tests fail without any mutation" >&2
	exit 2
fi

caught=0 survived=0 errors=0 total=0
surv_list=() err_list=()
for i in "${!names[@]}"; do
	name=${names[$i]} file=${files[$i]}
	wanted "$name" || continue
	total=$((total + 1))
	target=$src/$file
	if [ ! -f "$target" ]; then
		echo "ERROR    $name: no file $file"
		errors=$((errors + 1)); err_list+=("$name"); continue
	fi
	cp -p "$target" "$scratch/orig"
	if ! mutate "$target" "${olds[$i]}" "${news[$i]}"; then
		echo "ERROR    $name: the original text is not exactly once in $file"
		errors=$((errors + 1)); err_list+=("$name"); continue
	fi
	start=$(date +%s)
	if ! make -s -j2 > "$scratch/m.log" 2>&1 ||
	    ! make -s -j2 check TESTS= > "$scratch/m.log" 2>&1; then
		echo "ERROR    $name: the mutant does not build"
		sed 's/^/	/' "$scratch/m.log" | grep -m5 -i error
		errors=$((errors + 1)); err_list+=("$name")
		verdict=error
	elif make -s check TESTS="${tests[$i]}" > "$scratch/m.log" 2>&1; then
		verdict=survived
	else
		verdict=caught
	fi
	# Put the file back, newer than anything built from the mutant.
	cp "$scratch/orig" "$target"
	touch "$target"
	secs=$(( $(date +%s) - start ))
	case $verdict in
	survived)
		echo "SURVIVED $name ($file: ${olds[$i]} -> ${news[$i]}; ${tests[$i]}) ${secs}s"
		survived=$((survived + 1)); surv_list+=("$name") ;;
	caught)
		echo "caught   $name ${secs}s"
		caught=$((caught + 1))
		if [ "$verbose" = yes ]; then
			grep -h '^not ok' $(for t in ${tests[$i]}; do
			    echo "$t.log"; done) 2>/dev/null | sed 's/^/	/'
		fi ;;
	esac
done
# Rebuild the unmutated tree last so a kept scratch tree is sane.
make -s -j2 > /dev/null 2>&1

echo "mutation score: $caught of $total caught, $survived survived, $errors list errors"
[ $survived -eq 0 ] && [ $errors -eq 0 ] && [ $total -gt 0 ]
