#!/bin/sh
# One way to pass descriptors (fdpass.h): no source of bwgate but
# src/util/fdpass.c builds or reads SCM_RIGHTS control messages (the CMSG_
# macros), the helpers' programs included.
set -u
s=${BWGATE_SRCDIR:-.}
echo "1..2"
n=$(find "$s/src" "$s/ui" -name '*.c' | wc -l)
bad=$(grep -ln 'CMSG_[A-Z]' $(find "$s/src" "$s/ui" -name '*.c') |
    grep -v '/src/util/fdpass\.c$')
if [ "$n" -lt 50 ]; then
	echo "not ok 1 - only $n sources found under $s/src"
	exit 1
fi
if [ -z "$bad" ]; then
	echo "ok 1 - no source but fdpass.c passes descriptors by hand ($n sources)"
else
	echo "$bad" | sed 's/^/# by hand: /'
	echo "not ok 1 - a source passes descriptors by hand"
fi
# The check sees what it should.
if grep -q 'CMSG_FIRSTHDR' "$s/src/util/fdpass.c"; then
	echo "ok 2 - fdpass.c itself uses CMSG_FIRSTHDR (the check is not blind)"
else
	echo "not ok 2 - fdpass.c uses no CMSG_FIRSTHDR"
fi
