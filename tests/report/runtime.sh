#!/bin/sh
# End to end: alloc-program runs under the runtime (libspprof-alloc) at a
# sampling rate of 1 byte, where each of its blocks is sampled for sure
# and stands for exactly its size; memprof-report must then find its sites
# and sizes exactly (runtime/alloc-program.out; the command line, pid and
# duration of the run are masked).
set -u
. "${srcdir:-.}/tests/report/common.sh"
program=$PWD/tests/report/alloc-program
runtime=$PWD/lib/.libs/libspprof-alloc.so.0

[ -f "$runtime" ] || { echo "no $runtime: skipped"; exit 77; }
(cd "$scratch" && LD_PRELOAD=$runtime SPPROF_OUTPUT=$scratch/program.mlyze \
	SPPROF_SAMPLING_RATE=1 "$program") || exit 99
(cd "$scratch" && NO_COLOR=1 "$report" program.mlyze >out 2>err)
status=$?
sed -e 's/^\(  command    \).*/\1COMMAND/' -e 's/^\(  pid        \).*/\1PID/' \
    -e 's/^\(  duration   \).*/\1DURATION/' "$scratch/out" >"$scratch/masked"
[ "$status" -eq 0 ] &&
	diff -u "$here/runtime/alloc-program.out" "$scratch/masked" &&
	diff -u /dev/null "$scratch/err"
verdict alloc-program $? "(exit status $status)"
[ "$failures" -eq 0 ]
