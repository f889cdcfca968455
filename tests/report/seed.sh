#!/bin/sh
# SPPROF_SEED: two runs of trend-program with one seed sample the same
# blocks (their sites' estimates at the end, which depend on the samples
# alone, are equal), a run with another seed samples others, and a seed
# the runtime cannot use is reported and leaves the run sampled at random.
set -u
. "${srcdir:-.}/tests/report/common.sh"
. "${srcdir:-.}/tests/report/trend-common.sh"

# sampled SEED NAME: the live bytes and samples of each site at the end
# of a run seeded with SEED, in $scratch/NAME.
sampled() {
	rm -f "$scratch/run.mlyze"
	under_runtime SPPROF_OUTPUT="$scratch/run.mlyze" SPPROF_SEED="$1" \
		"$program" base 2>"$scratch/$2.err" || exit 99
	"$report" -f json --all --at end "$scratch/run.mlyze" |
		rows live_bytes live_samples >"$scratch/$2"
	[ -s "$scratch/$2" ] || exit 99
}

sampled 42 first && sampled 42 again && sampled 43 other
cmp -s "$scratch/first" "$scratch/again"
verdict "one seed, the same samples" $?
! cmp -s "$scratch/first" "$scratch/other"
verdict "another seed, other samples" $?

sampled 0x2a bad
grep -q "SPPROF_SEED=0x2a is not a whole number" "$scratch/bad.err"
verdict "a seed that is not a number is reported" $?
[ "$failures" -eq 0 ]
