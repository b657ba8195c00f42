#!/bin/bash
# bench-exec: `bwgate exec -- true` on a small project against bare bwrap
# with the same argv (taken from the report) and against /bin/true.
# Target: bwgate <= 1.3x bare bwrap. Prints medians in ms and the ratios.
set -u
: "${BWGATE:?}"
N=${N:-100}
P=$(mktemp -d /tmp/bwgate-bench.XXXXXX)
trap 'rm -rf "$P"' EXIT
mkdir -p "$P/.git/hooks" "$P/src"
for i in $(seq 1 50); do echo "$i" > "$P/src/f$i.c"; done
echo '{}' > "$P/.bwgate.json"
cd "$P"

# Median wall time in ms of N runs of a command.
median() {
	local t0 t1 i
	for i in $(seq 1 "$N"); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		echo $(( (t1 - t0) / 1000 ))
	done | sort -n | awk '{ a[NR] = $1 } END { printf "%.3f", a[int((NR + 1) / 2)] / 1000 }'
}

# The exact argv bwgate ran; descriptors it names are supplied by the shell.
"$BWGATE" exec --json -- true > "$P/report.json" 2>/dev/null
mapfile -t ARGV < <(jq -r '.bwrap_argv[]' "$P/report.json")
bare=()
redir=()
for ((i = 0; i < ${#ARGV[@]}; i++)); do
	a=${ARGV[$i]}
	case "$a" in
	--bind-fd|--ro-bind-fd)
		bare+=("$a" "${ARGV[$((i + 1))]}" "${ARGV[$((i + 2))]}")
		redir+=("${ARGV[$((i + 1))]}<${ARGV[$((i + 2))]}")
		i=$((i + 2)) ;;
	--seccomp)
		i=$((i + 1)) ;;	# the filter is built per run; not replayable here
	--json-status-fd)
		bare+=("$a" "${ARGV[$((i + 1))]}")
		redir+=("${ARGV[$((i + 1))]}>/dev/null")
		i=$((i + 1)) ;;
	*)
		bare+=("$a") ;;
	esac
done
run_bare() { eval "exec ${redir[*]}"; exec "${bare[@]}"; }
export -f run_bare 2>/dev/null

m_true=$(median /bin/true)
m_bare=$(median bash -c "$(declare -p bare redir); $(declare -f run_bare); run_bare")
m_shell=$(median bash -c true)
m_bwgate=$(median "$BWGATE" exec --quiet -- true)
m_bwgate_nomon=$(median "$BWGATE" exec --quiet --no-monitor -- true)
echo "runs per case: $N (median wall time)"
printf '  /bin/true               %8.3f ms\n' "$m_true"
printf '  bash -c true (overhead) %8.3f ms\n' "$m_shell"
printf '  bare bwrap, same argv   %8.3f ms (launched through bash -c)\n' "$m_bare"
printf '  bwgate exec -- true     %8.3f ms\n' "$m_bwgate"
printf '  ... with --no-monitor   %8.3f ms\n' "$m_bwgate_nomon"
awk -v b="$m_bwgate" -v r="$m_bare" -v s="$m_shell" -v n="$m_bwgate_nomon" 'BEGIN {
	bare = r - s; if (bare <= 0) bare = r
	printf "  ratio bwgate / bare bwrap: %.2fx (target <= 1.3x)\n", b / bare
	printf "  ratio bwgate --no-monitor / bare bwrap: %.2fx\n", n / bare
}'
