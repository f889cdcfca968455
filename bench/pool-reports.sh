#!/bin/sh
# pool-reports.sh - what a report through <spprof/memprof-pool.h> costs,
# in instructions per call (callgrind), without the runtime, with it
# loaded and dormant, and with it recording; beside a malloc() and free()
# of the same size under the same runtime, measured in the same run.
#
# Usage: pool-reports.sh RUNTIME PROGRAM
#   RUNTIME  the libspprof-alloc.so.0 to preload
#   PROGRAM  bench/pool-reports, built with the header alone
# Environment: BENCH_POOL_CALLS (calls per run, default 1000000).
set -u

if [ $# -ne 2 ]; then
	echo "Usage: pool-reports.sh RUNTIME PROGRAM" >&2
	exit 2
fi
RUNTIME=$1
PROGRAM=$2
CALLS=${BENCH_POOL_CALLS:-1000000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

command -v valgrind >/dev/null || {
	echo "pool-reports: valgrind not installed, skipped"
	exit 0
}

# instructions CONFIG MODE: total Ir of one run.
instructions() {
	case $1 in
	absent) set -- "$2" ;;
	dormant) set -- "$2" "LD_PRELOAD=$RUNTIME" ;;
	recording) set -- "$2" "LD_PRELOAD=$RUNTIME" \
		"SPPROF_OUTPUT=$TMP/prof.mlyze" ;;
	esac
	mode=$1
	shift
	rm -f "$TMP/prof.mlyze"
	env "$@" valgrind --tool=callgrind \
		"--callgrind-out-file=$TMP/cg.out" "$PROGRAM" "$mode" "$CALLS" \
		>/dev/null 2>&1 || {
		echo "pool-reports: the run of $mode failed" >&2
		exit 1
	}
	sed -n 's/^summary: //p' "$TMP/cg.out"
}

echo "instructions per call (callgrind Ir, less the loop's), $CALLS calls"
printf '%-10s %8s %8s %8s %14s\n' "" alloc free "alloc+free" "malloc+free"
for config in absent dormant recording; do
	loop=$(instructions "$config" loop)
	printf '%-10s' "$config"
	for mode in alloc free both malloc; do
		total=$(instructions "$config" "$mode")
		awk -v t="$total" -v l="$loop" -v n="$CALLS" -v m="$mode" \
			'BEGIN { printf(m == "malloc" ? " %14.1f" : " %8.1f",
					(t - l) / n) }'
	done
	echo
done
