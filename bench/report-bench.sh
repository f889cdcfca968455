#!/bin/sh
# report-bench.sh - events per second of `memprof-report --top 20`.
#
# Run from the build directory after `make check` (or
# `make tests/report/mlyze-gen`):
#     sh SRCDIR/bench/report-bench.sh [EVENTS] [RUNS]
# Writes a finalised profile of EVENTS events (default 30 million: ALLOCs
# and FREEs around 50,000 live blocks, from 4096 stacks, some far more
# often than others) with the test generator, reads it once to warm the
# page cache, then times RUNS runs (default 5) and prints the best.  The
# target is 20 million events per second on one core.
set -eu
events=${1:-30000000}
runs=${2:-5}
gen=./tests/report/mlyze-gen
report=./src/memprof-report
target=20000000

for program in "$gen" "$report"; do
	if [ ! -x "$program" ]; then
		echo "report-bench: $program is missing; run make check first" >&2
		exit 1
	fi
done
profile=$(mktemp "${TMPDIR:-/tmp}/report-bench.XXXXXX") || exit 1
trap 'rm -f "$profile"' EXIT

"$gen" large "$events" "$profile"
size=$(wc -c <"$profile")
"$report" --top 20 "$profile" >/dev/null 2>&1 # warm-up: page cache, libtool

best=
i=0
while [ "$i" -lt "$runs" ]; do
	start=$(date +%s%N)
	"$report" --top 20 "$profile" >/dev/null 2>&1
	end=$(date +%s%N)
	elapsed=$((end - start))
	if [ -z "$best" ] || [ "$elapsed" -lt "$best" ]; then
		best=$elapsed
	fi
	i=$((i + 1))
done

awk -v events="$events" -v bytes="$size" -v ns="$best" -v target="$target" \
    -v runs="$runs" 'BEGIN {
	rate = events / (ns / 1e9)
	printf "memprof-report --top 20: %d events (%.0f MiB) in %.3f s (best of %d)\n",
	       events, bytes / 1048576, ns / 1e9, runs
	printf "%.1f million events/s (target %.0f million: %s)\n",
	       rate / 1e6, target / 1e6, (rate >= target ? "met" : "NOT met")
}'
