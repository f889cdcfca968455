#!/bin/sh
# storm.sh - 8 threads allocating, reallocating and freeing millions of
# blocks (some freed by other threads) under the runtime at a low rate:
# the program finishes without a crash or a damaged block, no sampled
# block of the storm stays live, and the profile is finalised and sane.
. "$(dirname "$0")/common.sh"

profile=$scratch/storm.mlyze
SPPROF_OUTPUT=$profile SPPROF_SAMPLING_RATE=4096
export SPPROF_OUTPUT SPPROF_SAMPLING_RATE
run_preloaded 90 "$integ_bin/storm" 8 2000000
unset SPPROF_OUTPUT SPPROF_SAMPLING_RATE

test -f "$profile" || fail "no profile $profile"
test ! -e "$profile.part" || fail "streamed file $profile.part left behind"
check_profile --complete --unique-live --min-allocs=100000 "$profile"
pass
