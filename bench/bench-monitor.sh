#!/bin/bash
# bench-monitor.sh: how much the live monitor slows a write-heavy command.
#
#	bench-monitor.sh BUILDDIR [FILES [RUNS]]
#
# The command creates FILES small files (default 20000) in 20 new
# directories with a plain shell loop. Each run starts from an empty
# directory. Prints medians of RUNS runs (default 7) of the command's wall
# time with the monitor off and on (bench/bench-monitor: the monitor, its
# pipe and JSON lines, no sandbox), their ratio (target: at most 1.15), and
# whether every file was seen; also the writer's CPU time with and without
# (what the kernel's event queueing costs it, robust to other load). When `bwgate exec --no-monitor` exists, the
# same command through bwgate exec with and without the monitor too.
set -eu

builddir=${1:?usage: bench-monitor.sh BUILDDIR [FILES [RUNS]]}
files=${2:-20000}
runs=${3:-7}
bench=$builddir/bench/bench-monitor
bwgate=$builddir/bwgate

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-monitor.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

per=$((files / 20))
load=$(cut -d' ' -f1-3 /proc/loadavg)
cmd="for d in \$(seq 20); do mkdir d\$d; i=0; while [ \$i -lt $per ]; do
echo x > d\$d/f\$i; i=\$((i + 1)); done; done"

median() {
	sort -n | awk '{ t[NR] = $1 }
	    END { m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
		  printf "%.1f\n", m }'
}

# One run in a fresh directory; prints the bench-monitor line.
one() {
	rm -rf "$tmp/p"
	mkdir "$tmp/p"
	"$bench" "$@" "$tmp/p" sh -c "$cmd"
}

: >"$tmp/off"
: >"$tmp/on"
: >"$tmp/cpuoff"
: >"$tmp/cpuon"
: >"$tmp/watcher"
seen=yes
lossy=0
i=0
one -n >/dev/null		# warm up
while [ "$i" -lt "$runs" ]; do
	# Alternate so drift and other load affect both sides alike.
	line=$(one -n)
	echo "$line" | awk '{ print $2 }' >>"$tmp/off"
	echo "$line" | awk '{ print $12 }' >>"$tmp/cpuoff"
	line=$(one)
	echo "$line" | awk '{ print $2 }' >>"$tmp/on"
	echo "$line" | awk '{ print $12 }' >>"$tmp/cpuon"
	echo "$line" | awk '{ print $14 }' >>"$tmp/watcher"
	created=$(echo "$line" | awk '{ print $8 }')
	[ "$created" -eq $((files + 20)) ] ||
	    seen="no ($created of $((files + 20)))"
	lossy=$((lossy + $(echo "$line" | awk '{ print $10 }')))
	i=$((i + 1))
done
off=$(median <"$tmp/off")
on=$(median <"$tmp/on")
cpuoff=$(median <"$tmp/cpuoff")
cpuon=$(median <"$tmp/cpuon")
echo "# live monitor on a shell loop creating $files files in" \
    "$(df -T "$tmp" | awk 'NR == 2 { print $2 }')" \
    "(medians of $runs, ms; target ratio <= 1.15)"
echo "# load average before: $load"
echo "monitor_off_ms $off"
echo "monitor_on_ms $on"
echo "ratio_monitor $(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.2f", a / b }')"
echo "# the writer's own CPU time (user+system), less sensitive to other load"
echo "writer_cpu_off_ms $cpuoff"
echo "writer_cpu_on_ms $cpuon"
echo "ratio_writer_cpu $(awk -v a="$cpuon" -v b="$cpuoff" 'BEGIN { printf "%.2f", a / b }')"
echo "watcher_cpu_ms $(median <"$tmp/watcher")"
echo "all_created_seen $seen"
echo "lossy_runs $lossy"

# Through the real binary, when it can turn the monitor off.
if [ ! -x "$bwgate" ] || ! "$bwgate" exec --help 2>&1 | grep -q -- --no-monitor
then
	echo "# bwgate exec --no-monitor not available: exec comparison not run"
	exit 0
fi
exec_one() {
	local s e
	rm -rf "$tmp/p"
	mkdir "$tmp/p"
	s=$(date +%s%N)
	"$bwgate" exec "$@" --project "$tmp/p" --cwd "$tmp/p" -- sh -c "$cmd" \
	    >/dev/null 2>&1 || true
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
}
: >"$tmp/xoff"
: >"$tmp/xon"
i=0
while [ "$i" -lt "$runs" ]; do
	exec_one --no-monitor >>"$tmp/xoff"
	exec_one >>"$tmp/xon"
	i=$((i + 1))
done
xoff=$(median <"$tmp/xoff")
xon=$(median <"$tmp/xon")
echo "# the same through bwgate exec (whole run, ms)"
echo "exec_no_monitor_ms $xoff"
echo "exec_monitor_ms $xon"
echo "ratio_exec_monitor $(awk -v a="$xon" -v b="$xoff" 'BEGIN { printf "%.2f", a / b }')"
