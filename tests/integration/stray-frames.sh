#!/bin/sh
# stray-frames.sh - a program built without frame pointers leaves anything
# in the frame-pointer register, and the stack walk then meets values that
# are not return addresses; none may reach the profile.  Debian's python3
# is such a program: a value with the script-frame tag bit (see
# lib/unwind/frames.h) recorded as a native frame made memprof-report
# reject most of its profiles at rate 1, so every one of 20 must now be
# read.
. "$(dirname "$0")/common.sh"

python=/usr/bin/python3
test -x "$python" || { echo "SKIP: $test_name: no $python"; exit 77; }
wrap=$abs_top_builddir/src/memprof-wrap
report=$abs_top_builddir/src/memprof-report

for run in $(seq 1 20); do
	profile=$scratch/run$run.mlyze
	watched 60 "$wrap" -r 1 -o "$profile" -- "$python" -c pass \
		>/dev/null 2>"$scratch/wrap$run.err" ||
		fail "run $run: memprof-wrap failed"
	watched 60 "$report" "$profile" >/dev/null 2>"$scratch/report$run.err" ||
		fail "run $run: $(cat "$scratch/report$run.err")"
done
pass
