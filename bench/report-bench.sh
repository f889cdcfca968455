#!/bin/sh
# report-bench.sh - events per second of `memprof-report --top 20`.
#
# Run from the build directory after `make check` (or
# `make tests/report/mlyze-gen`):
#     sh SRCDIR/bench/report-bench.sh [EVENTS] [RUNS]
# Writes a finalised profile of EVENTS events (default 30 million: ALLOCs
# and FREEs around 50,000 live blocks, from 4096 stacks, some far more
# often than others) with the test generator, reads it once to warm the
# page cache, then times RUNS runs (default 5) and prints the best, by
# the clock and, when GNU time is there, by the CPU time of the process
# (steadier on a busy machine), and the largest resident set of the runs
# (the reader's memory, bounded by the live blocks and the stacks, not by
# the length of the profile).  The target is 20 million events per
# second on one core.
# Then writes a profile of FORMAT_EVENTS events (default 1 million) from
# FORMAT_STACKS stacks (default 100,000) and prints the best time of each
# format (--format=...) next to `--top 20`, and the size it writes; then
# the same for --base (the profile against a copy of itself: two profiles
# of FORMAT_EVENTS events read) and --leaks.
set -eu
events=${1:-30000000}
runs=${2:-5}
format_events=${FORMAT_EVENTS:-1000000}
format_stacks=${FORMAT_STACKS:-100000}
gen=./tests/report/mlyze-gen
report=./src/memprof-report
target=20000000

for program in "$gen" "$report"; do
	if [ ! -x "$program" ]; then
		echo "report-bench: $program is missing; run make check first" >&2
		exit 1
	fi
done
scratch=$(mktemp -d "${TMPDIR:-/tmp}/report-bench.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
profile=$scratch/large.mlyze

"$gen" large "$events" "$profile"
size=$(wc -c <"$profile")
"$report" --top 20 "$profile" >/dev/null 2>&1 # warm-up: page cache, libtool

i=0
while [ "$i" -lt "$runs" ]; do
	start=$(date +%s%N)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S %M' -o "$scratch/cpu" \
			"$report" --top 20 "$profile" >/dev/null 2>&1
	else
		"$report" --top 20 "$profile" >/dev/null 2>&1
		echo "- - -" >"$scratch/cpu"
	fi
	end=$(date +%s%N)
	echo "$((end - start)) $(cat "$scratch/cpu")" >>"$scratch/times"
	i=$((i + 1))
done

awk -v events="$events" -v bytes="$size" -v target="$target" -v runs="$runs" '
{
	wall = $1 / 1e9
	if (best_wall == "" || wall < best_wall) best_wall = wall
	if ($2 != "-") {
		cpu = $2 + $3
		if (best_cpu == "" || cpu < best_cpu) best_cpu = cpu
		if ($4 > peak_kib) peak_kib = $4
	}
}
function line(what, seconds,   rate) {
	rate = events / seconds
	printf "%-10s %.3f s: %5.1f million events/s (target %.0f million: %s)\n",
	       what, seconds, rate / 1e6, target / 1e6,
	       (rate >= target ? "met" : "NOT met")
}
END {
	printf "memprof-report --top 20 on %d events (%.0f MiB), best of %d runs\n",
	       events, bytes / 1048576, runs
	line("wall clock", best_wall)
	if (best_cpu != "" && best_cpu > 0) line("CPU time", best_cpu)
	if (peak_kib > 0)
		printf "%-10s %.1f MiB, the largest resident set of the runs\n",
		       "memory", peak_kib / 1024
}' "$scratch/times"

# Time to write each format, best of the runs, CPU time when GNU time is
# there (else the clock).
"$gen" large "$format_events" "$profile" "$format_stacks"
cp "$profile" "$scratch/base.mlyze"
"$report" --top 20 "$profile" "$scratch/base.mlyze" >/dev/null 2>&1 # warm-up
echo "writing each format: $format_events events, $format_stacks stacks," \
	"best of $runs runs"
for format in "--top 20" --format=json --format=folded \
	      --format=speedscope --format=pprof --format=html \
	      "--base=$scratch/base.mlyze" --leaks; do
	best=
	i=0
	while [ "$i" -lt "$runs" ]; do
		start=$(date +%s%N)
		if [ -x /usr/bin/time ]; then
			# shellcheck disable=SC2086 # the format may be two words
			/usr/bin/time -f '%U %S' -o "$scratch/cpu" \
				"$report" $format "$profile" >"$scratch/out" \
				2>/dev/null || true
			seconds=$(awk '{ print $1 + $2 }' "$scratch/cpu")
		else
			# shellcheck disable=SC2086
			"$report" $format "$profile" >"$scratch/out" 2>/dev/null ||
				true
			end=$(date +%s%N)
			seconds=$(awk -v ns="$((end - start))" \
				'BEGIN { print ns / 1e9 }')
		fi
		best=$(awk -v a="$seconds" -v b="${best:-$seconds}" \
			'BEGIN { print (a < b ? a : b) }')
		i=$((i + 1))
	done
	case $format in
	--base=*) label="--base (2 files)" ;;
	*) label=$format ;;
	esac
	printf '%-20s %6.2f s  %6.1f MiB written\n' "$label" "$best" \
		"$(wc -c <"$scratch/out" | awk '{ print $1 / 1048576 }')"
done
