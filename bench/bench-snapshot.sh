#!/bin/bash
# bench-snapshot.sh: the large-tree benchmark of the change report.
#
#	bench-snapshot.sh BUILDDIR [FILES [RUNS]]
#
# Generates a FILES-file project (default 100000) in a temporary directory,
# then prints medians of RUNS runs (default 11):
#   - the snapshot scan with one and two threads and the diff alone
#     (bench/bench-snapshot);
#   - `bwgate exec -- true` and a command touching 10 files, against the
#     baseline of `find . -printf '%p %s %T@\n'` run twice plus bare bwrap
#     running the same command with the same argv (from the JSON report),
#     and their ratios (target: at most 0.8).
# The exec part needs `bwgate exec --json`; without it only the first part
# runs and the script says so.
set -eu

builddir=${1:?usage: bench-snapshot.sh BUILDDIR [FILES [RUNS]]}
files=${2:-100000}
runs=${3:-11}
bwgate=$builddir/bwgate
bench=$builddir/bench/bench-snapshot

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-large.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
proj=$tmp/project
"$bench" -g "$proj" -n "$files"
echo "# change report on a $files-file tree: scan and diff alone"
"$bench" -r "$runs" "$proj"

# The median wall time, in ms, of running "$@" $runs times.
median_ms() {
	local i=0 s e
	: >"$tmp/times"
	while [ "$i" -lt "$runs" ]; do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		e=$(date +%s%N)
		echo $(((e - s) / 1000)) >>"$tmp/times"
		i=$((i + 1))
	done
	sort -n "$tmp/times" | awk '{ t[NR] = $1 }
	    END { m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
		  printf "%.1f\n", m / 1000 }'
}

if [ ! -x "$bwgate" ] ||
    ! "$bwgate" exec --json --project "$proj" --cwd "$proj" -- true \
    >"$tmp/report.json" 2>"$tmp/report.err" ||
    ! jq -e '.bwrap_argv | length > 0' "$tmp/report.json" >/dev/null 2>&1
then
	echo "# bwgate exec --json did not give a report with bwrap_argv:" \
	    "exec comparison not run"
	sed 's/^/#   /' "$tmp/report.err" | head -5
	exit 0
fi

# Bare bwrap: the report's argv up to "--", with descriptor arguments
# (pre-opened binds, seccomp, status pipes) turned into plain binds of
# the same path or dropped, since their descriptors exist only in bwgate.
mapfile -d '' argv < <(jq -j '.bwrap_argv[] | (., "\u0000")' \
    "$tmp/report.json")
mkdir "$tmp/empty"
bare=()
i=0
while [ "$i" -lt "${#argv[@]}" ]; do
	a=${argv[$i]}
	case $a in
	--)
		break ;;
	--ro-bind-fd|--bind-fd)
		# The same path, or (for a placeholder bwgate made and has
		# removed since) an empty directory: one bind mount either way.
		dest=${argv[$((i + 2))]}
		src=$dest
		[ -e "$src" ] || src=$tmp/empty
		if [ "$a" = --ro-bind-fd ]; then
			bare+=(--ro-bind "$src" "$dest")
		else
			bare+=(--bind "$src" "$dest")
		fi
		i=$((i + 3)) ;;
	--file|--bind-data|--ro-bind-data)
		bare+=(--ro-bind /dev/null "${argv[$((i + 2))]}")
		i=$((i + 3)) ;;
	--seccomp|--add-seccomp-fd|--json-status-fd|--info-fd|--block-fd|\
	--userns-block-fd|--sync-fd|--userns|--userns2|--pidns)
		i=$((i + 2)) ;;
	*)
		bare+=("$a")
		i=$((i + 1)) ;;
	esac
done
bare+=(--)
if ! "${bare[@]}" true 2>"$tmp/bare.err"; then
	echo "# bare bwrap with the report's argv failed:" \
	    "exec comparison not run"
	sed 's/^/#   /' "$tmp/bare.err" | head -5
	exit 0
fi

touch10='touch d00/e0/f0/file0[0-9].c'
base_run() {
	(cd "$proj" && find . -printf '%p %s %T@\n' >/dev/null)
	"${bare[@]}" "$@"
	(cd "$proj" && find . -printf '%p %s %T@\n' >/dev/null)
}
exec_run() {
	"$bwgate" exec --json --project "$proj" --cwd "$proj" -- "$@"
}

base_true=$(median_ms base_run true)
base_touch=$(median_ms base_run sh -c "$touch10")
exec_true=$(median_ms exec_run true)
exec_touch=$(median_ms exec_run sh -c "$touch10")

# Check the touched run reports exactly the ten files.
n=$(exec_run sh -c "$touch10" | jq '.changes.modified | length')
echo "# bwgate exec on the same tree (medians of $runs, ms; target ratio <= 0.8)"
echo "baseline_true_ms $base_true"
echo "bwgate_exec_true_ms $exec_true"
echo "ratio_true $(awk -v a="$exec_true" -v b="$base_true" \
    'BEGIN { printf "%.2f", a / b }')"
echo "baseline_touch10_ms $base_touch"
echo "bwgate_exec_touch10_ms $exec_touch"
echo "ratio_touch10 $(awk -v a="$exec_touch" -v b="$base_touch" \
    'BEGIN { printf "%.2f", a / b }')"
echo "touch10_reported_modified $n"
