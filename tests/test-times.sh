#!/bin/sh
# test-times: how long each test of `make check` takes. It wraps the
# test driver and appends "SECONDS TEST" to $TEST_TIMES (test-times.txt
# in the build directory unless set), for finding the slow tests:
#
#	make -j2 check LOG_DRIVER="sh $SRC/tests/test-times.sh \
#	    env AM_TAP_AWK=awk sh $SRC/build-aux/tap-driver.sh"
#	sort -rn test-times.txt | head -20
#
# (Not part of any check: a tool for whoever makes the suite faster.)
name= prev=
for a; do
	[ "$prev" = --test-name ] && name=$a
	prev=$a
done
start=$(date +%s.%N)
"$@"
rc=$?
end=$(date +%s.%N)
echo "$start $end $name" |
    awk '{ printf "%.1f %s\n", $2 - $1, $3 }' >> "${TEST_TIMES:-test-times.txt}"
exit "$rc"
