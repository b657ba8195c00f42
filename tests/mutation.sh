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
#	(more @ - + groups: one mutation made of several changes, for
#	checks that back each other up, where each alone is equivalent)
#	= tests/unit/test-x tests/integration/y.sh
#				the tests that must fail once it is applied
#
# The worktree is never touched: the sources are copied (tar, without .git
# and _build) into a directory of our own (mktemp -d), configured and built
# once; each mutation is applied there, built incrementally, the listed
# tests run (`make check TESTS=...`), and the file put back. A mutation
# SURVIVES when every listed test still passes. A list entry whose original
# text is not found exactly once, or whose mutant does not compile, is an
# ERROR in the list (it would otherwise count as caught). The score is
# printed, then "N passed, M failed" (caught; survived or errors) as the
# last line; the exit status is 0 only when every mutation was caught.
#
#	-j N	N workers side by side (each its own scratch tree), taking
#		the entries in turn from a shared queue
#	-s I/N	(a worker) only every Nth entry, from the Ith
#	-k	keep the scratch directory (its path is printed)
#	-o NAME	only this mutation (repeatable)
#	-v	show the failing tests' output
set -u
# Run from a copy: bash reads a script as it goes, and this one runs long
# enough for its file to be edited meanwhile.
if [ -z "${MUTATION_HERE:-}" ]; then
	self=$(mktemp "${TMPDIR:-/tmp}/bwgate-mutation-sh.XXXXXX") || exit 2
	cat "$0" > "$self" || exit 2
	MUTATION_HERE=$(cd "$(dirname "$0")" && pwd) MUTATION_SELF=$self \
	    exec bash "$self" "$@"
fi
rm -f -- "${MUTATION_SELF:-}"
here=$MUTATION_HERE
top=$(cd "$here/.." && pwd)
keep=no verbose=no only=() jobs=1 shard= queue=
pass_on=()
while getopts kvo:j:s:q: o; do
	case $o in
	k) keep=yes; pass_on+=(-k) ;;
	v) verbose=yes; pass_on+=(-v) ;;
	o) only+=("$OPTARG"); pass_on+=(-o "$OPTARG") ;;
	j) jobs=$OPTARG ;;
	s) shard=$OPTARG ;;
	q) queue=$OPTARG ;;	# (internal, with -s) see -j below
	*) echo "usage: $0 [-k] [-v] [-j N] [-o NAME]... [LIST]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

# -j N: N workers side by side, each with its own scratch tree; the
# tests mostly wait on sandboxes, so two workers on two cores take about
# half the time. Each checks every Nth of the listed tests on its
# unmutated tree (-s I/N; the trees are the same), then takes the next
# entry not yet taken from a shared queue (-q: a counter file under
# flock), so a worker that drew slow entries does not finish alone
# (every Nth entry each: 9 and 17 minutes, measured). Their reports in
# turn, then the sums.
[ ${#only[@]} -gt 0 ] && jobs=1	# a few named ones: one worker
if [ -z "$shard" ] && [ "$jobs" -gt 1 ]; then
	outs=() pids=() rc=0
	queue=$(mktemp "${TMPDIR:-/tmp}/bwgate-mutation-queue.XXXXXX") || exit 2
	echo 0 > "$queue"
	for ((w = 0; w < jobs; w++)); do
		outs+=("$(mktemp "${TMPDIR:-/tmp}/bwgate-mutation-out.XXXXXX")")
		bash "$here/mutation.sh" "${pass_on[@]}" -s "$w/$jobs" \
		    -q "$queue" "$@" > "${outs[$w]}" 2>&1 &
		pids+=($!)
	done
	for ((w = 0; w < jobs; w++)); do
		wait "${pids[$w]}" || rc=1
	done
	rm -f -- "$queue" "$queue.abort"
	p=0 f=0
	for o in "${outs[@]}"; do
		grep -v -E '^[0-9]+ passed, [0-9]+ failed$' "$o"
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$o" | tail -1)
		rm -f -- "$o"
		if [ -z "$line" ]; then
			rc=1 f=$((f + 1))	# a worker that could not count
			continue
		fi
		n=${line%% passed*} m=${line#*passed, }
		p=$((p + n)) f=$((f + ${m%% failed*}))
	done
	[ $((p + f)) -gt 0 ] || rc=1	# nothing tried
	echo "mutation score (all workers): $p of $((p + f)) caught"
	echo "$p passed, $f failed"
	exit "$rc"
fi
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
	[ -n "$queue" ] && : > "$queue.abort"	# the other workers stop
	exit 2
fi

# The list, read by python3: "list" prints one line per entry (name, TAB,
# tests, TAB, files), "apply NAME" mutates the scratch tree (1 when an
# original text is not there exactly once), "show NAME" says what changes.
PY='
import sys
def parse(path):
    entries, cur, grp = [], None, None
    def flush():
        if cur is None:
            return
        if not cur["groups"] or not cur["tests"] or any(
                g["old"] is None or g["new"] is None for g in cur["groups"]):
            sys.exit("mutation: %s: entry %r lacks @, -, + or =" % (path, cur["name"]))
        entries.append(cur)
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("#"):
            continue
        if line == "":
            flush(); cur = grp = None
        elif cur is None:
            cur = {"name": line, "groups": [], "tests": ""}
        elif line.startswith("@ "):
            grp = {"file": line[2:], "old": None, "new": None}
            cur["groups"].append(grp)
        elif grp is not None and line.startswith("- "):
            grp["old"] = line[2:] if grp["old"] is None else grp["old"] + "\n" + line[2:]
        elif grp is not None and (line.startswith("+ ") or line == "+"):
            grp["new"] = line[2:] if grp["new"] is None else grp["new"] + "\n" + line[2:]
        elif line.startswith("= "):
            cur["tests"] = line[2:]
        else:
            sys.exit("mutation: %s: stray line in %r: %s" % (path, cur["name"], line))
    flush()
    names = [e["name"] for e in entries]
    if len(set(names)) != len(names):
        sys.exit("mutation: %s: a name is used twice" % path)
    return entries
cmd, path = sys.argv[1], sys.argv[2]
entries = parse(path)
if cmd == "list":
    for e in entries:
        print("%s\t%s\t%s" % (e["name"], e["tests"],
            " ".join(sorted(set(g["file"] for g in e["groups"])))))
    sys.exit(0)
e = [x for x in entries if x["name"] == sys.argv[3]][0]
if cmd == "show":
    print("; ".join("%s: %s -> %s" % (g["file"], g["old"].strip(),
        g["new"].strip()) for g in e["groups"]))
    sys.exit(0)
src = sys.argv[4]
texts = {}
for g in e["groups"]:
    f = g["file"]
    if f not in texts:
        texts[f] = open(src + "/" + f, encoding="utf-8", newline="").read()
    if texts[f].count(g["old"]) != 1:
        print("the original text is not exactly once in %s: %s" % (f, g["old"]))
        sys.exit(1)
    texts[f] = texts[f].replace(g["old"], g["new"], 1)
for f, t in texts.items():
    open(src + "/" + f, "w", encoding="utf-8", newline="").write(t)
'
entries=$(python3 -c "$PY" list "$list") || exit 2
names=() files=() tests=()
while IFS=$'\t' read -r n t f; do
	names+=("$n") tests+=("$t") files+=("$f")
done <<< "$entries"

# This worker's entries: every Nth (-s I/N), by their place in the list.
in_shard() {
	[ -z "$shard" ] && return 0
	[ $(($1 % ${shard#*/})) -eq "${shard%/*}" ]
}

# The next entry this worker tries, in i: from the shared queue (-q),
# else the next in the list. False at the end, or when another worker's
# unmutated tests failed (FILE.abort).
i=-1
next_entry() {
	if [ -n "$queue" ]; then
		[ -e "$queue.abort" ] && return 1
		i=$(flock "$queue" sh -c 'n=$(cat "$1") && echo $((n + 1)) > "$1" &&
		    echo "$n"' sh "$queue") || return 1
	else
		i=$((i + 1))
	fi
	[ "$i" -lt ${#names[@]} ]
}

wanted() {
	[ ${#only[@]} -eq 0 ] && return 0
	local o
	for o in "${only[@]}"; do [ "$o" = "$1" ] && return 0; done
	return 1
}

# Every listed test must exist and pass on the unmutated tree, or a
# mutation would count as caught by a test that fails anyway. With a
# queue, any worker may take any entry: each checks every Nth test of
# the whole list (the trees are built from the same sources).
if [ -n "$queue" ]; then
	all_tests=$(for i in "${!names[@]}"; do wanted "${names[$i]}" &&
	    echo "${tests[$i]}"; done | tr ' ' '\n' | sort -u |
	    awk -v s="$shard" 'BEGIN { split(s, w, "/") }
	        (NR - 1) % w[2] == w[1]')
else
	all_tests=$(for i in "${!names[@]}"; do wanted "${names[$i]}" &&
	    in_shard "$i" && echo "${tests[$i]}"; done | tr ' ' '\n' | sort -u)
fi
for t in $all_tests; do
	case $t in
	*.sh) [ -f "$src/$t" ] ;;
	*) [ -x "$t" ] ;;
	esac || { echo "mutation: no test $t (not in the tree or not built)" >&2
	    [ -n "$queue" ] && : > "$queue.abort"; exit 2; }
done
echo "mutation: the listed tests on the unmutated tree:" $all_tests
if ! make -s -j2 check TESTS="$(echo $all_tests)" > "$scratch/base.log" 2>&1; then
	grep -h '^not ok\|^FAIL\|^ERROR' $(for t in $all_tests; do
	    echo "$t.log"; done) 2>/dev/null | head -20
	echo "mutation: the listed tests fail without any mutation" >&2
	[ -n "$queue" ] && : > "$queue.abort"	# the other workers stop
	exit 2
fi

caught=0 survived=0 errors=0 total=0
while next_entry; do
	name=${names[$i]}
	wanted "$name" && { [ -n "$queue" ] || in_shard "$i"; } || continue
	total=$((total + 1))
	rm -rf "$scratch/orig"
	mkdir "$scratch/orig"
	missing=
	for f in ${files[$i]}; do
		if [ -f "$src/$f" ]; then
			mkdir -p "$scratch/orig/$(dirname "$f")"
			cp -p "$src/$f" "$scratch/orig/$f"
		else
			missing=$f
		fi
	done
	if [ -n "$missing" ]; then
		echo "ERROR    $name: no file $missing"
		errors=$((errors + 1)); continue
	fi
	start=$(date +%s)
	if ! why=$(python3 -c "$PY" apply "$list" "$name" "$src"); then
		echo "ERROR    $name: $why"
		verdict=error
	elif ! make -s -j2 > "$scratch/m.log" 2>&1 ||
	    ! make -s -j2 check TESTS= > "$scratch/m.log" 2>&1; then
		echo "ERROR    $name: the mutant does not build"
		grep -m5 -i error "$scratch/m.log" | sed 's/^/	/'
		verdict=error
	elif make -s check TESTS="${tests[$i]}" > "$scratch/m.log" 2>&1; then
		verdict=survived
	else
		verdict=caught
	fi
	# Put the files back, newer than anything built from the mutant.
	for f in ${files[$i]}; do
		cp "$scratch/orig/$f" "$src/$f"
		touch "$src/$f"
	done
	secs=$(( $(date +%s) - start ))
	case $verdict in
	error)
		errors=$((errors + 1)) ;;
	survived)
		echo "SURVIVED $name ($(python3 -c "$PY" show "$list" "$name"); tests: ${tests[$i]}) ${secs}s"
		survived=$((survived + 1)) ;;
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
# For .ci/run's pass(): a caught mutation passes, the others fail.
echo "$caught passed, $((survived + errors)) failed"
# (A worker of a queue may find it emptied by the others.)
[ $survived -eq 0 ] && [ $errors -eq 0 ] && { [ $total -gt 0 ] || [ -n "$queue" ]; }
