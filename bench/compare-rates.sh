#!/bin/sh
# compare-rates.sh - how often memprof-report --base calls a site changed,
# over many pairs of runs of tests/report/trend-program where the truth is
# known (the figures of memprof-report(1), COMPARING TWO RUNS).
#
# Run from the build directory after `make check`:
#     sh SRCDIR/bench/compare-rates.sh [PAIRS]
# For PAIRS pairs (default 500) of runs sampled at one per 32 KiB, seeded
# with SPPROF_SEED (a fixed sequence, so that the samples repeat), prints:
#  - base against base, at the peak and at the end: the share of reports
#    that call any site changed (false positives after Holm's correction),
#    and the share of sites whose own test would have, before it;
#  - grown against base (grow_me holds 2 MiB more), at the peak: how often
#    grow_me is called grown, how often its 95 % interval holds 2 MiB, and
#    how often another site is called changed.
# At the end the figures repeat exactly; the peak also depends on the
# addresses and times that deal the samples into halves, so its figures
# vary a little from one run of this script to the next.
set -eu
pairs=${1:-500}
testlib_dir=$(dirname "$0")/../tests
. "$testlib_dir/testlib.sh"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/compare-rates.XXXXXX") || exit 1
at_exit 'rm -rf "$scratch"'
report=$PWD/src/memprof-report
. "$testlib_dir/report/trend-common.sh"
seed=100000 # apart from the seeds of the tests

# same_program AT...: "any sites raw" of a report on two runs of base.
same_program() {
	profile base base && profile base new
	"$report" -f json --all "$@" --base "$scratch/base.mlyze" \
		"$scratch/new.mlyze" | rows p_value verdict | false_positives
}

# grown: "named covered others" of a report on base against grown.
grown() {
	profile base base && profile grown new
	"$report" -f json --all --base "$scratch/base.mlyze" \
		"$scratch/new.mlyze" | rows change change_ci95 verdict |
		grown_verdicts
}

# repeat N COMMAND...: the sums of the three columns of N runs.
repeat() {
	n=$1
	shift
	i=0
	while [ "$i" -lt "$n" ]; do
		"$@"
		i=$((i + 1))
	done | awk '{ a += $1; b += $2; c += $3 } END { print a, b, c }'
}

# print_false_positives WHERE "ANY SITES RAW"
print_false_positives() {
	where=$1
	set -- $2
	awk -v what="$where" -v any=$1 -v sites=$2 -v raw=$3 -v n="$pairs" 'BEGIN {
		printf "same program twice, %s: %d of %d reports called a " \
		       "site changed (%.1f %%); without the correction %.1f " \
		       "%% of the sites would be\n", what, any, n,
		       100 * any / n, 100 * raw / sites }'
}

print_false_positives "at the peak" "$(repeat "$pairs" same_program)"
print_false_positives "at the end" "$(repeat "$pairs" same_program --at end)"
set -- $(repeat "$pairs" grown)
awk -v named=$1 -v covered=$2 -v others=$3 -v n="$pairs" 'BEGIN {
	printf "grown by 2 MiB, at the peak: called grown in %d of %d " \
	       "pairs, its interval held 2 MiB in %d (%.1f %%), another " \
	       "site was called changed in %d (%.1f %%)\n", named, n,
	       covered, 100 * covered / n, others, 100 * others / n }'
