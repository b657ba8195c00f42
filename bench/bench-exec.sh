#!/bin/bash
# bench-exec: `bwgate exec -- true` on a small project against bare bwrap
# with the same argv (taken from the report) and against /bin/true.
# Target: bwgate <= 1.3x bare bwrap. Prints medians in ms and the ratios.
#
# Both sides start through `bash -c` so the launcher costs the same. The
# bare run gets the descriptors the argv names from shell redirections; its
# --seccomp is dropped (the BPF program is built per run inside bwgate).
set -u
: "${BWGATE:?}"
N=${N:-60}
P=$(mktemp -d /tmp/bwgate-bench.XXXXXX)
trap 'rm -rf "$P"' EXIT
mkdir -p "$P/.git/hooks" "$P/src"
for i in $(seq 1 50); do echo "$i" > "$P/src/f$i.c"; done
echo '{}' > "$P/.bwgate.json"
cd "$P" || exit 1

# Run every case once per round, N rounds (interleaved, so drifting load
# hits all cases alike); print each case's median wall time in ms.
medians() {
	local i c t0 t1
	for i in $(seq 1 "$N"); do
		for c in "$@"; do
			t0=$(date +%s%N)
			bash -c "$c" >/dev/null 2>&1
			t1=$(date +%s%N)
			echo "$c	$(( (t1 - t0) / 1000 ))"
		done
	done > "$P/times"
	for c in "$@"; do
		awk -F'\t' -v c="$c" '$1 == c { print $2 }' "$P/times" | sort -n |
		    awk '{ a[NR] = $1 } END { printf "%.2f\n", a[int((NR + 1) / 2)] / 1000 }'
	done
}

# A shell line running exactly bwgate's bwrap argv (from a report).
bare_line() {
	"$BWGATE" exec --json "$@" -- true 2>/dev/null | jq -r '
	  .bwrap_argv as $a | reduce range(0; $a|length) as $i (
	    {skip: 0, redir: [], argv: []};
	    if .skip > 0 then .skip -= 1
	    elif ($a[$i] == "--bind-fd" or $a[$i] == "--ro-bind-fd") then
	      .redir += ["\($a[$i+1])<\($a[$i+2]|@sh)"] | .argv += $a[$i:$i+3] | .skip = 2
	    elif $a[$i] == "--block-fd" then
	      .redir += ["\($a[$i+1])<<<go"] | .argv += $a[$i:$i+2] | .skip = 1
	    elif $a[$i] == "--json-status-fd" then
	      .redir += ["\($a[$i+1])>/dev/null"] | .argv += $a[$i:$i+2] | .skip = 1
	    elif $a[$i] == "--seccomp" then .skip = 1
	    else .argv += [$a[$i]] end)
	  | "exec \(.redir | join(" ")) \(.argv | map(@sh) | join(" "))"'
}

bare=$(bare_line --no-observe)
{ read -r m_true; read -r m_bare; read -r m_full; read -r m_noobs; read -r m_min; } < <(
	medians /bin/true "$bare" "exec $BWGATE exec --quiet -- true" \
	    "exec $BWGATE exec --quiet --no-observe -- true" \
	    "exec $BWGATE exec --quiet --no-observe --no-monitor -- true")
echo "rounds: $N (median wall time; each case started by bash -c, interleaved)"
printf '  /bin/true                          %7.2f ms\n' "$m_true"
printf '  bare bwrap, same argv              %7.2f ms\n' "$m_bare"
printf '  bwgate exec -- true                %7.2f ms\n' "$m_full"
printf '  ... --no-observe                   %7.2f ms\n' "$m_noobs"
printf '  ... --no-observe --no-monitor      %7.2f ms\n' "$m_min"
awk -v b="$m_bare" -v f="$m_full" -v o="$m_noobs" -v m="$m_min" 'BEGIN {
	printf "  ratio bwgate / bare bwrap:                       %.2fx (target <= 1.3x)\n", f / b
	printf "  ratio without the violation observer:            %.2fx\n", o / b
	printf "  ratio without observer and live monitor:         %.2fx\n", m / b
}'
