#!/bin/sh
# Random mutations: every profile of profiles/*.txt, with a few bytes
# changed, dropped or cut by each of MUTATION_SEEDS seeds, must give exit
# status 0 (with at most warnings) or 2 with one error naming the file and
# the offset; never a crash, a hang or another message.
set -u
. "${srcdir:-.}/tests/report/common.sh"
seeds=${MUTATION_SEEDS:-60}

# The outcome of one run is acceptable (see above): 0 yes, 1 no.
acceptable() {
	status=$1
	unexpected=$(grep -Ev '^memprof-report: (warning: |mut\.mlyze: offset [0-9]+: )' \
		"$scratch/err")
	errors=$(grep -Ec '^memprof-report: mut\.mlyze: offset' "$scratch/err")
	[ -z "$unexpected" ] || return 1
	case $status in
	0) [ "$errors" -eq 0 ] ;;
	2) [ "$errors" -eq 1 ] ;;
	*) return 1 ;;
	esac
}

runs=0
for script in "$here"/profiles/*.txt; do
	name=$(basename "$script" .txt)
	"$gen" compile "$script" "$scratch/$name.mlyze" || exit 99
	seed=1
	while [ "$seed" -le "$seeds" ]; do
		"$gen" mutate "$seed" "$scratch/$name.mlyze" "$scratch/mut.mlyze" ||
			exit 99
		# A reader that loops uses processor time, however busy the
		# machine: 20 s of it is a hang.
		(cd "$scratch" && ulimit -t 20 &&
			exec "$report" mut.mlyze >/dev/null 2>err)
		status=$?
		if ! acceptable "$status"; then
			verdict "$name seed $seed" 1 "(exit status $status)"
			cat "$scratch/err"
		fi
		runs=$((runs + 1))
		seed=$((seed + 1))
	done
done
echo "$runs mutated profiles, $failures failures"
[ "$failures" -eq 0 ]
