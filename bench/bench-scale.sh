#!/bin/bash
# bench-scale: a command's cost against the project's size, writers side by
# side, and what recording system calls costs on a real build (issue 12).
#  1. `bwgate exec --profile readonly -- true` and `bwgate exec -- touch x`
#     on projects of SCALE_FILES files (default 100000 400000), each as a
#     ratio to the same command on a 10-file project measured in the same
#     run (interleaved). The writer once with no scan for nested .git kept
#     (the first writable run in a project; from 1,024 directories on it
#     starts the project's watcher, which the next runs ask), then as
#     usual; also with --changes snapshot, the scan this replaces.
#     Targets: read-only <= 1.2x, writer <= 1.3x.
#  2. make -j8 of eight one-second targets with SHELL=bwgate-sh through a
#     headless console, writers side by side and --writers alone, against
#     bare make. Target: side by side < 1.5 s.
#  3. Building bwgate itself (make -j2 after configure) inside the sandbox
#     with seccomp notification on and off (BWGATE_NO_NOTIFY=1), in pairs
#     (on then off, then the other way round): the median of each side's
#     wall time, the median of the pairs' ratios (drift cancels within a
#     pair) and the same for the machine's CPU time while the build ran
#     (what the recording costs, less exposed to the host's other load
#     than wall time; run the bench on an otherwise idle machine).
#     Target: <= 5 %.
# Medians of R runs (default 5; R_BUILD, default 5, for the build).
# SCALE_SKIP="files make build" leaves parts out.
[ -z "${BASH_VERSION:-}" ] && exec bash "$0" "$@"
set -u
: "${BWGATE:?}" "${BWGATE_SRCDIR:?}"
R=${R:-5}
R_BUILD=${R_BUILD:-5}
SCALE_FILES=${SCALE_FILES:-100000 400000}
SKIP=${SCALE_SKIP:-}
T=$(mktemp -d /tmp/bwgate-bench-scale.XXXXXX)
mkdir -p "$T/run" "$T/state" "$T/config/bwgate"
chmod 0700 "$T/run"
export XDG_RUNTIME_DIR="$T/run" XDG_STATE_HOME="$T/state"
export XDG_CONFIG_HOME="$T/config"
unset BWGATE_SOCKET BWGATE_NO_NOTIFY BWGATE_CHANGES
CPID=
trap '[ -n "$CPID" ] && kill $CPID 2>/dev/null; wait 2>/dev/null; chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"' EXIT

skip() { case " $SKIP " in *" $1 "*) return 0 ;; esac; return 1; }

# A project of n files, 100 per directory.
project() {
	local p=$1 n=$2
	mkdir -p "$p/.git"
	python3 - "$p" "$n" <<'PY'
import os, sys
p, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(p, "d%d" % (i // 100))
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%d.c" % i), "w") as f:
        f.write("x\n")
PY
}

# Wall time of one run and the machine's CPU time while it ran (user,
# system and interrupts of every CPU, from /proc/stat: a sandbox's pid
# namespace keeps its processes' times out of the run's rusage), in
# microseconds: "WALL CPU". Meant for a machine otherwise idle.
wall_cpu() {
	python3 - "$@" <<'PY'
import os, subprocess, sys, time
def busy():
	with open("/proc/stat") as f:
		v = [int(x) for x in f.readline().split()[1:8]]
	return (v[0] + v[1] + v[2] + v[5] + v[6]) * 1e6 / os.sysconf("SC_CLK_TCK")
b0, t0 = busy(), time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL)
print("%d %d" % ((time.monotonic() - t0) * 1e6, busy() - b0))
PY
}

# Wall time of one run in microseconds.
us() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" > /dev/null 2>&1
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000 ))
}

# Median of a list of numbers on stdin.
median() {
	sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

# pair SMALL BIG ARGS...: median ms of `bwgate exec ARGS` in each project,
# interleaved: "small big".
pair() {
	local small=$1 big=$2 i
	shift 2
	for i in $(seq 1 "$R"); do
		echo "s $(cd "$small" && us "$BWGATE" exec --quiet --project "$small" "$@")"
		echo "b $(cd "$big" && us "$BWGATE" exec --quiet --project "$big" "$@")"
	done > "$T/pair"
	printf '%s %s\n' \
	    "$(awk '$1 == "s" { print $2 }' "$T/pair" | median)" \
	    "$(awk '$1 == "b" { print $2 }' "$T/pair" | median)"
}

report() {
	# report LABEL SMALL_US BIG_US
	awk -v l="$1" -v s="$2" -v b="$3" 'BEGIN {
		printf "%-44s %8.1f ms %8.1f ms  %5.2fx\n", l, s / 1000, b / 1000, b / s }'
}

if ! skip files; then
	echo "-- project size (10 files vs N; medians of $R)"
	printf '%-44s %11s %11s  %s\n' "" "10 files" "N files" "ratio"
	project "$T/p10" 10
	for n in $SCALE_FILES; do
		t0=$(date +%s)
		project "$T/p$n" "$n"
		echo "   (made a $n-file project in $(( $(date +%s) - t0 )) s)"
		# A project is older than its last command: wait until every
		# directory is past gitscan's settling time (2 s), or each run
		# reads again those that were made last.
		sleep 2.2
		read -r s b < <(pair "$T/p10" "$T/p$n" --profile readonly -- true)
		report "read-only exec -- true, N=$n" "$s" "$b"
		# The first writable run reads every directory for nested .git
		# and keeps the scan (runtime directory); the next ones stat
		# each directory and read only those that changed.
		s=$(cd "$T/p10" && us "$BWGATE" exec --quiet --project "$T/p10" -- touch x)
		b=$(cd "$T/p$n" && us "$BWGATE" exec --quiet --project "$T/p$n" -- touch x)
		report "writer, first run (no scan kept), N=$n" "$s" "$b"
		# From 1,024 directories on, that run also started the
		# project's watcher (gitwatch); runs ask it once it has read
		# the project (a few hundred ms).
		if [ $((n / 100)) -ge 1024 ]; then
			for i in $(seq 100); do
				ls "$T/run/bwgate" | grep -q '^gitwatch-.*\.sock$' &&
					break
				sleep 0.1
			done
		fi
		read -r s b < <(pair "$T/p10" "$T/p$n" -- touch x)
		report "writer exec -- touch x, N=$n" "$s" "$b"
		read -r s b < <(pair "$T/p10" "$T/p$n" --changes snapshot -- touch x)
		report "writer, --changes snapshot, N=$n" "$s" "$b"
		method=$(cd "$T/p$n" && "$BWGATE" exec --json --project "$T/p$n" -- touch y | jq -r .changes_method)
		echo "   (writer change report method: $method)"
		chmod -R u+rwX "$T/p$n"; rm -rf "$T/p$n"
	done
fi

start_console() {
	rm -f "$T/out"
	"$BWGATE" --headless --auto-allowlisted "$@" > "$T/out" 2> "$T/err" &
	CPID=$!
	for i in $(seq 200); do
		grep -q '^export' "$T/out" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "console did not start"; cat "$T/err"; exit 1
}
stop_console() { kill "$CPID"; wait "$CPID" 2>/dev/null; CPID=; }

if ! skip make; then
	echo "-- make -j8 of eight one-second targets (median of $R)"
	P="$T/mk"
	mkdir -p "$P/.git" "$T/bin"
	ln -sf "$BWGATE" "$T/bin/bwgate-sh"
	cat > "$XDG_CONFIG_HOME/bwgate/allowlist.json" <<'JSON'
{"version":1,"rules":[
 {"id":"sleep","pattern":["sleep 1"],"verdict":"allow","profile":"project","reason":"bench"},
 {"id":"touch","pattern":["touch *"],"verdict":"allow","profile":"project","reason":"bench"}
]}
JSON
	{
		echo "all: t1 t2 t3 t4 t5 t6 t7 t8"
		for i in 1 2 3 4 5 6 7 8; do printf 't%s:\n\tsleep 1 && touch $@\n' "$i"; done
	} > "$P/Makefile"
	cd "$P" || exit 1
	mk() { rm -f t?; us make -s -j8 "$@"; }
	bare=$(for i in $(seq 1 "$R"); do mk; done | median)
	start_console
	together=$(for i in $(seq 1 "$R"); do mk SHELL="$T/bin/bwgate-sh"; done | median)
	ok=$(ls t? 2>/dev/null | wc -l)
	stop_console
	start_console --writers alone
	alone=$(for i in $(seq 1 "$R"); do mk SHELL="$T/bin/bwgate-sh"; done | median)
	stop_console
	awk -v b="$bare" -v t="$together" -v a="$alone" -v ok="$ok" 'BEGIN {
		printf "bare make -j8                                %8.2f s\n", b / 1e6
		printf "SHELL=bwgate-sh, writers side by side        %8.2f s  %5.2fx  (%d/8 targets made)\n", t / 1e6, t / b, ok
		printf "SHELL=bwgate-sh, --writers alone             %8.2f s  %5.2fx\n", a / 1e6, a / b }'
	cd "$T" || exit 1
	rm -f "$XDG_CONFIG_HOME/bwgate/allowlist.json"
fi

if ! skip build; then
	echo "-- building bwgate in the sandbox, notification on/off (median of $R_BUILD)"
	B="$T/build"
	mkdir -p "$B"
	if git -C "$BWGATE_SRCDIR" rev-parse HEAD > /dev/null 2>&1; then
		git -C "$BWGATE_SRCDIR" ls-files -z |
		    (cd "$BWGATE_SRCDIR" && xargs -0 tar cf -) | tar xf - -C "$B"
	else
		cp -r "$BWGATE_SRCDIR/." "$B"
		rm -rf "$B/_build"
	fi
	cd "$B" || exit 1
	git init -q . 2>/dev/null
	"$BWGATE" exec --quiet --project "$B" -- sh -c \
	    './bootstrap > /dev/null 2>&1 && ./configure -q > /dev/null' ||
	    { echo "bench-scale: configure failed in the sandbox"; exit 1; }
	build() {
		make -s clean > /dev/null 2>&1
		wall_cpu "$BWGATE" exec --quiet --timeout 1200 --project "$B" -- make -s -j2
	}
	# Each pair in the other order than the last: whichever runs second
	# in a pair gains nothing from it over the run.
	for i in $(seq 1 "$R_BUILD"); do
		if [ $((i % 2)) -eq 1 ]; then
			on=$(build)
			off=$(BWGATE_NO_NOTIFY=1 build)
		else
			off=$(BWGATE_NO_NOTIFY=1 build)
			on=$(build)
		fi
		echo "$on $off"
	done > "$T/build.times"
	build_col() { awk -v c="$1" '{ print $c }' "$T/build.times" | median; }
	build_ratio() { awk -v a="$1" -v b="$2" '{ printf "%d\n", $a * 1e6 / $b }' "$T/build.times" | median; }
	make -s clean > /dev/null 2>&1
	calls=$("$BWGATE" exec --json --project "$B" -- make -s -j2 2>/dev/null |
	    jq -r '"\(.sandbox.observed_calls) calls notified, \(.changes.created | length) created, method \(.changes_method)"')
	awk -v on="$(build_col 1)" -v off="$(build_col 3)" \
	    -v pw="$(build_ratio 1 3)" -v con="$(build_col 2)" \
	    -v coff="$(build_col 4)" -v pc="$(build_ratio 2 4)" 'BEGIN {
		printf "make -j2, notification off (snapshot)        %8.2f s wall %8.2f s CPU\n", off / 1e6, coff / 1e6
		printf "make -j2, notification on (recorded calls)   %8.2f s wall %8.2f s CPU\n", on / 1e6, con / 1e6
		printf "   on over off, medians:   wall %+5.1f %%   CPU %+5.1f %%\n", (on - off) * 100 / off, (con - coff) * 100 / coff
		printf "   on over off, median of the %s pairs: wall %+5.1f %%   CPU %+5.1f %%\n", "'"$R_BUILD"'", pw / 1e4 - 100, pc / 1e4 - 100 }'
	echo "   (last build: $calls)"
fi
