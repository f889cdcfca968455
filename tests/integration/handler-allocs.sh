#!/bin/sh
# handler-allocs.sh - every block sampled, a signal handler frees and
# allocates blocks while the program churns through thousands of live
# blocks: the live-block table grows and is rebuilt many times under the
# handler, which must never wait for the rebuild it interrupted.  The
# program finishes, and leaves its profile.
. "$(dirname "$0")/common.sh"

profile=$scratch/handler-allocs.mlyze
SPPROF_OUTPUT=$profile SPPROF_SAMPLING_RATE=1
export SPPROF_OUTPUT SPPROF_SAMPLING_RATE
run_preloaded 60 "$integ_bin/handler-allocs" >"$scratch/out"
cat "$scratch/out"
slots=$(sed -n 's/.* \([0-9]*\) heap map slots.*/\1/p' "$scratch/out")
test "${slots:-0}" -gt 1024 || fail "the table did not grow: ${slots:-?} slots"
test -f "$profile" || fail "no profile $profile"
# Blocks a handler freed while its thread was inside the runtime keep
# their FREE events: the profile's count of freed samples matches them.
check_profile --complete --unique-live "$profile"
pass
