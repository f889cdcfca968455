#!/bin/sh
# End to end: alloc-program runs under the runtime (libspprof-alloc) at a
# sampling rate of 1 byte, where each of its blocks is sampled for sure
# and stands for exactly its size; memprof-report must then find its sites
# and sizes exactly, at the peak of the heap and at the end
# (runtime/alloc-program-AT.out; the command line, pid, duration and time
# of the peak are masked).
set -u
. "${srcdir:-.}/tests/report/common.sh"
program=$PWD/tests/report/alloc-program
runtime=$PWD/lib/.libs/libspprof-alloc.so.0

[ -f "$runtime" ] || { echo "no $runtime: skipped"; exit 77; }
(cd "$scratch" && LD_PRELOAD=$runtime SPPROF_OUTPUT=$scratch/program.mlyze \
	SPPROF_SAMPLING_RATE=1 "$program") || exit 99
for at in peak end; do
	(cd "$scratch" && NO_COLOR=1 "$report" --all --at $at program.mlyze >out 2>err)
	status=$?
	sed -e 's/^\(  command    \).*/\1COMMAND/' \
	    -e 's/^\(  pid        \).*/\1PID/' \
	    -e 's/^\(  duration   \).*/\1DURATION/' \
	    -e 's/^\(Peak heap    .* at \)[0-9.]* s$/\1TIME s/' \
	    "$scratch/out" >"$scratch/masked"
	[ "$status" -eq 0 ] &&
		diff -u "$here/runtime/alloc-program-$at.out" "$scratch/masked" &&
		diff -u /dev/null "$scratch/err"
	verdict "alloc-program --at $at" $? "(exit status $status)"
done
[ "$failures" -eq 0 ]
