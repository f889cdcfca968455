#!/bin/sh
# late-load.sh - the runtime loaded late (with dlopen(), as memprof-ctl
# attach has a program do) while the program's threads allocate: each run
# gives one profile, under the name asked for, labelled as started by the
# attach, however soon a thread's sample comes after the load.  Runs many
# times, since a thread sampling in the instant after sampling begins is
# what is at stake.
. "$(dirname "$0")/common.sh"

report=$abs_top_builddir/src/memprof-report
cd "$scratch" || fail "no scratch directory"

runs=30
for run in $(seq 1 $runs); do
	rm -f late.*
	env SPPROF_OUTPUT="$scratch/late.%p.mlyze" SPPROF_SAMPLING_RATE=1024 SPPROF_UNWIND=fp \
		"$integ_bin/late-load" "$runtime_so" >late.out 2>late.err ||
		fail "run $run: exit status $?: $(cat late.err)"
	set -- late.*.mlyze
	[ $# -eq 1 ] && [ -f "$1" ] ||
		fail "run $run: not one finished profile: $(ls late.*)"
	case $1 in
	late.[0-9]*.[0-9]*.mlyze) fail "run $run: a second name: $1" ;;
	esac
	"$report" --all "$1" >late.txt 2>&1 || fail "run $run: $(cat late.txt)"
	grep -q "started by memprof-ctl attach" late.txt ||
		fail "run $run: not labelled as loaded late: $(head -12 late.txt)"
done
pass
