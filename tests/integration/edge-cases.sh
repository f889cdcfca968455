#!/bin/sh
# edge-cases.sh - the interposed malloc family (edge-cases.c) and C++
# allocation (edge-cases-cxx.cc) keep glibc's semantics: checked first
# without the runtime, so that the expectations are glibc's own, then under
# LD_PRELOAD dormant, recording at the default rate, and recording with
# SPPROF_SAMPLING_RATE=1 so that every block goes through the sampled
# paths (also with MALLOC_PERTURB_, which fills fresh and freed memory),
# and with settings the runtime cannot use.
. "$(dirname "$0")/common.sh"

for program in edge-cases edge-cases-cxx; do
	watched 60 "$integ_bin/$program" || fail "$program failed on its own"
	run_preloaded 60 "$integ_bin/$program"

	SPPROF_OUTPUT=$scratch/$program-default.mlyze
	export SPPROF_OUTPUT
	run_preloaded 60 "$integ_bin/$program"
	check_profile --complete --unique-live "$SPPROF_OUTPUT"

	SPPROF_OUTPUT=$scratch/$program-all.mlyze SPPROF_SAMPLING_RATE=1
	export SPPROF_SAMPLING_RATE
	run_preloaded 60 "$integ_bin/$program" --all-sampled
	check_profile --complete --unique-live --min-allocs=100 \
		"$SPPROF_OUTPUT"
	unset SPPROF_OUTPUT SPPROF_SAMPLING_RATE
done

SPPROF_OUTPUT=$scratch/perturb.mlyze SPPROF_SAMPLING_RATE=1 MALLOC_PERTURB_=165
export SPPROF_OUTPUT SPPROF_SAMPLING_RATE MALLOC_PERTURB_
run_preloaded 60 "$integ_bin/edge-cases" --all-sampled
check_profile --complete "$SPPROF_OUTPUT"
unset MALLOC_PERTURB_

# A live-block table too small for the program: the blocks it cannot take
# are ordinary ones, and nothing is lost.
SPPROF_OUTPUT=$scratch/full.mlyze SPPROF_HEAP_MAP_CAPACITY=1024
export SPPROF_HEAP_MAP_CAPACITY
run_preloaded 60 "$integ_bin/edge-cases" --full-tables
check_profile --complete --unique-live "$SPPROF_OUTPUT"
unset SPPROF_HEAP_MAP_CAPACITY

# Settings the runtime cannot use are reported and do not disturb the
# program: a profile that cannot be created, values out of range.
SPPROF_OUTPUT=$scratch/no/such/directory/x.mlyze SPPROF_SAMPLING_RATE=0
SPPROF_FOLLOW_FORK=yes
export SPPROF_FOLLOW_FORK
run_preloaded 60 "$integ_bin/edge-cases" 2>"$scratch/stderr"
for setting in SPPROF_SAMPLING_RATE=0 SPPROF_FOLLOW_FORK=yes \
	"cannot create the profile $SPPROF_OUTPUT.part"; do
	grep -qF "libspprof-alloc: $setting" "$scratch/stderr" ||
		fail "the runtime did not report $setting"
done
pass
