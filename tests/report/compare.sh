#!/bin/sh
# memprof-report --base on profiles of trend-program written by the
# runtime, where the truth is known:
#  - grown against base: grow_me, and only it, holds exactly 2 MiB more.
#    Over PAIRS pairs of runs, compared at their end, the report must call
#    grow_me grown in every pair, its 95 % interval must hold the true
#    2 MiB in most pairs (95 % on average; at least PAIRS - 5 here), and
#    another site may be called changed in few pairs (at most 5 %, after
#    Holm's correction).  At the peak, the default, grow_me is grown too.
#  - with --format=pprof, the file holds the base as negative samples:
#    go tool pprof (when there) finds in it what -diff_base finds in the
#    two profiles.
#  - a base recorded from a program that has moved since: with
#    --base-sysroot its sites are still matched by name.
#  - the same program against itself over SELF_PAIRS pairs: the share of
#    reports that call any site changed (false positives) is measured and
#    printed, and must stay near 5 % at most.
# The runs are seeded (trend-common.sh) and compared at their end, which
# depends on the samples alone, so that the figures repeat: the peak also
# depends on the addresses and times that deal the samples into halves.
set -u
. "${srcdir:-.}/tests/report/common.sh"
. "${srcdir:-.}/tests/report/trend-common.sh"
PAIRS=20
SELF_PAIRS=50

# compare_runs BASE_MODE NEW_MODE KEY...: $scratch/rows of the sites of
# memprof-report --base --at end on a run in each mode (see rows).
compare_runs() {
	profile "$1" base && profile "$2" new
	shift 2
	"$report" -f json --all --at end --base "$scratch/base.mlyze" \
		"$scratch/new.mlyze" >"$scratch/out" || exit 99
	rows "$@" <"$scratch/out" >"$scratch/rows"
}

covered=0 named=0 others=0
i=0
while [ $i -lt $PAIRS ]; do
	compare_runs base grown change change_ci95 verdict
	set -- $(grown_verdicts <"$scratch/rows")
	named=$((named + $1)) covered=$((covered + $2)) others=$((others + $3))
	i=$((i + 1))
done
echo "grown by 2 MiB: named in $named of $PAIRS pairs, its interval" \
	"held the truth in $covered, another site was called changed in $others"
verdict "grow_me called grown in every pair" $((named != PAIRS))
verdict "the interval of grow_me holds 2 MiB in most pairs" \
	$((covered < PAIRS - 5)) "($covered of $PAIRS)"
verdict "no other site called changed in most pairs" $((others > 5)) \
	"($others of $PAIRS)"

# At the peak, with ample samples: 2 MiB stands far out of the noise.
profile base base 4096 && profile grown new 4096
"$report" -f json --all --base "$scratch/base.mlyze" "$scratch/new.mlyze" |
	rows verdict | grep -q "^grow_me grown$"
verdict "at the peak, grow_me called grown" $?

# pprof_top FILE [OPTION...]: the live bytes of each function, as pprof
# -top shows them (flat and name).
pprof_top() {
	HOME=$scratch GOCACHE=$scratch/go-cache go tool pprof -top -unit=B \
		-sample_index=inuse_space "$@" 2>/dev/null |
		awk '/^ *flat / { on = 1; next } on { print $1, $6 }' | sort
}

if command -v go >/dev/null 2>&1; then
	cd "$scratch" || exit 99
	"$report" -f pprof --base base.mlyze new.mlyze >diff.pb.gz &&
		"$report" -f pprof base.mlyze >base.pb.gz &&
		"$report" -f pprof new.mlyze >new.pb.gz || exit 99
	pprof_top diff.pb.gz >ours && pprof_top -diff_base base.pb.gz \
		new.pb.gz >theirs
	[ -s ours ] && grep -q " grow_me$" ours && diff -u theirs ours
	verdict "pprof: the base as negative samples, as -diff_base" $?
	cd - >/dev/null || exit 99
else
	echo "skipped: go tool pprof (no go)"
fi

# The formats without a comparison, and --leaks with --base, are bad usage.
for args in "-f folded" "-f speedscope" --leaks; do
	# shellcheck disable=SC2086 # two words
	"$report" $args --base "$scratch/base.mlyze" "$scratch/new.mlyze" \
		>/dev/null 2>&1
	status=$?
	[ "$status" -eq 2 ]
	verdict "--base $args: bad usage" $? "(exit status $status)"
done

# The base program ran at $scratch/old, and lies under $scratch/root now.
mkdir -p "$scratch/old" && cp "$program" "$scratch/old/trend-program" &&
	(program=$scratch/old/trend-program; profile base moved) &&
	mkdir -p "$scratch/root$scratch" &&
	mv "$scratch/old" "$scratch/root$scratch/old" || exit 99
profile base new
"$report" -f json --all --base "$scratch/moved.mlyze" \
	--base-sysroot "$scratch/root" "$scratch/new.mlyze" 2>/dev/null |
	rows base new >"$scratch/rows"
awk '$1 == "grow_me" && $2 > 0 && $3 > 0 { found = 1 } END { exit !found }' \
	"$scratch/rows"
verdict "--base-sysroot: a moved program's sites match by name" $?

reports=0 sites=0 uncorrected=0
i=0
while [ $i -lt $SELF_PAIRS ]; do
	compare_runs base base p_value verdict
	set -- $(false_positives <"$scratch/rows")
	reports=$((reports + $1)) sites=$((sites + $2))
	uncorrected=$((uncorrected + $3))
	i=$((i + 1))
done
awk -v r=$reports -v n=$SELF_PAIRS -v s=$sites -v u=$uncorrected 'BEGIN {
	printf "same program twice: %d of %d reports called a site changed " \
	       "(%.1f %%); without the correction %d of %d sites would be " \
	       "(%.1f %%)\n", r, n, 100 * r / n, u, s, 100 * u / s }'
# A false-positive rate of 5 % reaches 10 of 50 with a chance of 3 in 1,000.
verdict "equal runs: few reports call any site changed" $((reports > 10)) \
	"($reports of $SELF_PAIRS)"
[ "$failures" -eq 0 ]
