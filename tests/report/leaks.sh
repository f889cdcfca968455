#!/bin/sh
# memprof-report --leaks on profiles of trend-program in leak mode, written
# by the runtime: leak_me keeps exactly 4000 bytes more at every marker,
# every other site holds a steady level (churning or not).  Over RUNS
# runs, leak_me must be ranked first and called growing every time, its
# 95 % interval must hold the true rate in most runs (95 % on average; at
# least RUNS - 5 here, which a sound interval misses with a chance of 3 in
# 10,000), and another site may be called growing in few runs (at most 5 %
# after Holm's correction).  A profile whose process was killed (.part)
# gives the same answer.  The runs are seeded (trend-common.sh) and the
# growth per marker depends on the samples alone, so the figures repeat.
set -u
. "${srcdir:-.}/tests/report/common.sh"
. "${srcdir:-.}/tests/report/trend-common.sh"
RUNS=20
TRUTH=4000
RATE=8192

# judge: whether, in $scratch/rows, leak_me is first and growing, its
# interval holds TRUTH, and another site grows (1 or 0 each).
judge() {
	awk -v truth=$TRUTH '
		NR == 1 { first = $1 == "leak_me" && $4 == "growing"
			d = $2 - truth; covered = (d < 0 ? -d : d) <= $3 }
		NR > 1 && $4 == "growing" { others = 1 }
		END { print first + 0, covered + 0, others + 0 }' "$scratch/rows"
}

first=0 covered=0 others=0
i=0
while [ $i -lt $RUNS ]; do
	profile leak leak $RATE
	"$report" -f json --all --leaks "$scratch/leak.mlyze" >"$scratch/out" ||
		exit 99
	rows growth growth_ci95 verdict <"$scratch/out" >"$scratch/rows"
	set -- $(judge)
	first=$((first + $1)) covered=$((covered + $2)) others=$((others + $3))
	i=$((i + 1))
done
echo "leaking 4000 B per marker: ranked first and growing in $first of" \
	"$RUNS runs, its interval held the truth in $covered, another site" \
	"was called growing in $others"
verdict "leak_me ranked first, growing, in every run" $((first != RUNS))
verdict "the interval of leak_me holds 4000 B per marker in most runs" \
	$((covered < RUNS - 5)) "($covered of $RUNS)"
verdict "no other site called growing in most runs" $((others > 5)) \
	"($others of $RUNS)"

rm -f "$scratch/dead.mlyze.part"
(under_runtime SPPROF_OUTPUT="$scratch/dead.mlyze" SPPROF_SEED=1 \
	SPPROF_SAMPLING_RATE="$RATE" "$program" leak die; :) 2>/dev/null
"$report" -f json --leaks "$scratch/dead.mlyze.part" >"$scratch/out" \
	2>"$scratch/err"
status=$?
rows growth growth_ci95 verdict <"$scratch/out" >"$scratch/rows"
set -- $(judge)
[ "$status" -eq 0 ] && [ "$1" -eq 1 ] && grep -q "not finalised" "$scratch/err"
verdict "a killed process's .part: leak_me ranked first, growing" $? \
	"(exit status $status)"
[ "$failures" -eq 0 ]
