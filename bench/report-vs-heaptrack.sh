#!/bin/sh
# report-vs-heaptrack.sh - time to a report, side by side with heaptrack.
#
# Run from the build directory (make report-vs-heaptrack):
#     sh SRCDIR/bench/report-vs-heaptrack.sh [OPS]
# Records the same workload (bench/workload mixed OPS, default 2 million
# operations) once with heaptrack and once under spprof-mem at its default
# sampling rate, then times each tool's own report of its own recording:
# `heaptrack_print FILE` against `memprof-report --top 20 FILE`.  Prints
# recording time, file size and report time (best of 3) for both.
set -eu
ops=${1:-2000000}
workload=./bench/workload
runtime=./lib/.libs/libspprof-alloc.so.0
report=./src/memprof-report

if ! command -v heaptrack >/dev/null || ! command -v heaptrack_print >/dev/null; then
	echo "report-vs-heaptrack: heaptrack is not installed (apt-get install heaptrack); skipped"
	exit 0
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/report-vs-heaptrack.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT

now() { date +%s%N; }
seconds() { awk -v ns="$1" 'BEGIN { printf "%.3f", ns / 1e9 }'; }

# Best of three runs of a command, in nanoseconds.
best_of_three() {
	best=
	for _ in 1 2 3; do
		start=$(now)
		"$@" >/dev/null 2>&1
		took=$(($(now) - start))
		if [ -z "$best" ] || [ "$took" -lt "$best" ]; then best=$took; fi
	done
	echo "$best"
}

start=$(now)
heaptrack -o "$scratch/ht" "$workload" mixed "$ops" >/dev/null 2>&1
ht_record=$(($(now) - start))
ht_file=$(ls "$scratch"/ht*)

start=$(now)
SPPROF_OUTPUT=$scratch/sp.mlyze LD_PRELOAD=$runtime "$workload" mixed "$ops" >/dev/null
sp_record=$(($(now) - start))

ht_report=$(best_of_three heaptrack_print "$ht_file")
sp_report=$(best_of_three "$report" --top 20 "$scratch/sp.mlyze")

printf 'workload: bench/workload mixed %s\n' "$ops"
printf '%-16s %10s %12s %12s\n' tool "record s" "file KiB" "report s"
printf '%-16s %10s %12s %12s\n' heaptrack "$(seconds "$ht_record")" \
	"$(($(wc -c <"$ht_file") / 1024))" "$(seconds "$ht_report")"
printf '%-16s %10s %12s %12s\n' spprof-mem "$(seconds "$sp_record")" \
	"$(($(wc -c <"$scratch/sp.mlyze") / 1024))" "$(seconds "$sp_report")"
awk -v a="$ht_report" -v b="$sp_report" \
	'BEGIN { printf "memprof-report is %.0fx faster to a report\n", a / b }'
