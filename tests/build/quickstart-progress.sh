#!/bin/sh
# quickstart-progress: ./quickstart says what it does from its first second
# and keeps saying it while make works (it was silent for about two
# minutes while it built). Run on a copy of the script in a scratch tree
# whose configure, dpkg-query and make are stand-ins (make takes 17 s):
# nothing is installed or built. TAP.
src="${BWGATE_SRCDIR:-$(dirname "$0")/../..}"
T=$(mktemp -d) || exit 1
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT

mkdir -p "$T/tree/share/bwgate" "$T/bin"
cp "$src/quickstart" "$T/tree/quickstart"
printf '#!/bin/sh\n: > Makefile\n' > "$T/tree/configure"
printf '#!/bin/sh\nexit 0\n' > "$T/tree/share/bwgate/demo.sh"
printf 'AC_INIT\n' > "$T/tree/configure.ac"
touch -d '2000-01-01' "$T/tree/configure.ac"
printf '#!/bin/sh\necho "install ok installed"\n' > "$T/bin/dpkg-query"
printf '#!/bin/sh\nsleep 17\n' > "$T/bin/make"
chmod +x "$T/tree/quickstart" "$T/tree/configure" \
    "$T/tree/share/bwgate/demo.sh" "$T/bin/dpkg-query" "$T/bin/make"

PATH="$T/bin:$PATH" "$T/tree/quickstart" > "$T/out" 2>&1 &
pid=$!

# Poll until a line matches, at most $2 seconds; 0 when it did.
within() {
	i=0
	while [ "$i" -lt $(($2 * 10)) ]; do
		grep -q -- "$1" "$T/out" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

echo "1..3"
if within '^quickstart: checking the packages' 2; then
	echo "ok 1 - the first line comes at once"
else
	echo "not ok 1 - nothing within 2 s"; sed 's/^/# /' "$T/out"
fi
if within '^quickstart: building' 5; then
	echo "ok 2 - it says it builds, before make ends"
else
	echo "not ok 2 - no 'building' line"; sed 's/^/# /' "$T/out"
fi
if within '^quickstart:   still building' 25; then
	echo "ok 3 - and again while make works"
else
	echo "not ok 3 - silent while make works"; sed 's/^/# /' "$T/out"
fi
wait "$pid" 2>/dev/null
pid=
