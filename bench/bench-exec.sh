#!/bin/bash
# bench-exec: `bwgate exec -- true` on a small project against bare bwrap
# with the same argv (taken from the report) and against /bin/true.
# Target: bwgate <= 1.3x bare bwrap, and within 3x a minimal bwrap (issue
# 36: the system read-only, /proc, /dev, namespaces, nothing else). Prints
# medians in ms and the ratios.
#
# Both sides start through `bash -c` so the launcher costs the same; the
# baseline is bare bwrap with the same mounts (bare-bwrap.sh).
[ -z "${BASH_VERSION:-}" ] && exec bash "$0" "$@"
set -u
: "${BWGATE:?}"
. "$(dirname "$0")/bare-bwrap.sh"
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
			[ "$c" = "$BARE_LINE" ] && bare_clean
			echo "$c	$(( (t1 - t0) / 1000 ))"
		done
	done > "$P/times"
	for c in "$@"; do
		awk -F'\t' -v c="$c" '$1 == c { print $2 }' "$P/times" | sort -n |
		    awk '{ a[NR] = $1 } END { printf "%.2f\n", a[int((NR + 1) / 2)] / 1000 }'
	done
}

"$BWGATE" exec --json -- true > "$P/report.json" 2>/dev/null
bare_bwrap "$P/report.json"
rm -f "$P/report.json"
if ! bash -c "$BARE_LINE" >/dev/null 2>&1; then
	echo "bare bwrap with the same mounts fails:"
	bash -c "$BARE_LINE" 2>&1 | head -3
	exit 1
fi
bare_clean
bare=$BARE_LINE
minimal="exec bwrap --unshare-all --die-with-parent --ro-bind /usr /usr \
--symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
--proc /proc --dev /dev -- /bin/true"
# Without the observer only read-only profiles run (the fallback).
{ read -r m_true; read -r m_bare; read -r m_full; read -r m_noobs; read -r m_min; read -r m_minb; } < <(
	medians /bin/true "$bare" "exec $BWGATE exec --quiet -- true" \
	    "exec $BWGATE exec --quiet --profile readonly --no-observe -- true" \
	    "exec $BWGATE exec --quiet --profile readonly --no-observe --no-monitor -- true" \
	    "$minimal")
echo "rounds: $N (median wall time; each case started by bash -c, interleaved)"
printf '  /bin/true                          %7.2f ms\n' "$m_true"
printf '  bare bwrap, same argv              %7.2f ms\n' "$m_bare"
printf '  bwgate exec -- true                %7.2f ms\n' "$m_full"
printf '  ... readonly --no-observe         %7.2f ms\n' "$m_noobs"
printf '  ... readonly, no observer/monitor  %7.2f ms\n' "$m_min"
printf '  minimal bwrap                      %7.2f ms\n' "$m_minb"
awk -v b="$m_bare" -v f="$m_full" -v o="$m_noobs" -v m="$m_min" -v mb="$m_minb" 'BEGIN {
	printf "  ratio bwgate / bare bwrap:                       %.2fx (target <= 1.3x)\n", f / b
	printf "  ratio bwgate / minimal bwrap:                    %.2fx (target <= 3x)\n", f / mb
	printf "  ratio without the violation observer:            %.2fx\n", o / b
	printf "  ratio without observer and live monitor:         %.2fx\n", m / b
}'
