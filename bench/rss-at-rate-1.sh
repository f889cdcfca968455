#!/bin/sh
# rss-at-rate-1.sh - the peak resident memory of real programs with every
# block sampled, against the same programs bare.
#
# Usage: rss-at-rate-1.sh BUILDDIR SRCDIR
#
# At -r 1 the runtime keeps a record for every live block of the program:
# the test of its own memory.  For each program the peak resident set
# (VmHWM) of the profiled process is measured bare and under memprof-wrap
# -r 1, BENCH_RSS_ROUNDS times (default 3) in alternation; the ratio is
# the median over rounds of profiled / bare in the same round.  The
# programs: ruby running the soak test's workload (tests/soak/ruby.soak),
# and redis-server taking 300000 SETs of 100 bytes from redis-benchmark
# over a Unix socket.  A program that is not installed is skipped.  The
# target is a ratio of at most 1.5.

set -u

[ $# -eq 2 ] || {
	echo "usage: rss-at-rate-1.sh BUILDDIR SRCDIR" >&2
	exit 2
}
wrap=$1/src/memprof-wrap
srcdir=$2
rounds=${BENCH_RSS_ROUNDS:-3}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/rss-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# peak_of COMMAND...: the largest peak resident set, in KiB, of COMMAND
# and the processes it waited for (wait4's, as time(1) reports it).
peak_of() {
	/usr/bin/python3 -c '
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss if status == 0 else "failed")
' "$@"
}

# ruby PREFIX...: the soak test's ruby workload.
ruby_load() {
	peak_of "$@" sh "$srcdir/tests/soak/ruby.soak"
}

# redis PREFIX...: the server's own peak, read before it stops.
redis_load() {
	dir=$(mktemp -d "$scratch/redis.XXXXXX")
	"$@" redis-server --port 0 --unixsocket "$dir/sock" --save '' \
		--appendonly no --dir "$dir" --pidfile "$dir/pid" \
		--logfile "$dir/log" >/dev/null 2>&1 &
	for attempt in $(seq 100); do
		redis-cli -s "$dir/sock" ping >/dev/null 2>&1 && break
		sleep 0.1
	done
	redis-benchmark -s "$dir/sock" -t set -n 300000 -r 300000 -d 100 \
		-q >/dev/null 2>&1
	awk '$1 == "VmHWM:" { print $2 }' "/proc/$(cat "$dir/pid")/status"
	redis-cli -s "$dir/sock" shutdown nosave >/dev/null 2>&1
	wait
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

mib() {
	awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'
}

echo "peak resident memory at -r 1 (every block sampled) against bare,"
echo "median of $rounds rounds"
printf '  %-8s %12s %12s %7s\n' program bare "-r 1" ratio
misses=0
# Each program with the commands it needs.
for needs in "ruby ruby" "redis redis-server redis-benchmark redis-cli"; do
	set -- $needs
	program=$1
	shift
	for command in "$@"; do
		command -v "$command" >/dev/null 2>&1 || program=
	done
	if [ -z "$program" ]; then
		printf '  %-8s not installed, skipped\n' "$1"
		continue
	fi
	rm -f "$scratch/bare" "$scratch/profiled" "$scratch/ratios"
	for round in $(seq "$rounds"); do
		bare=$("${program}_load" env)
		profiled=$("${program}_load" "$wrap" -r 1 \
			-o "$scratch/$program.%p.mlyze" --)
		rm -f "$scratch"/*.mlyze*
		case "$bare$profiled" in *failed* | "") continue ;; esac
		echo "$bare" >>"$scratch/bare"
		echo "$profiled" >>"$scratch/profiled"
		awk -v p="$profiled" -v b="$bare" \
			'BEGIN { printf "%.3f\n", p / b }' >>"$scratch/ratios"
	done
	if [ ! -s "$scratch/ratios" ]; then
		printf '  %-8s failed to run\n' "$program"
		misses=$((misses + 1))
		continue
	fi
	ratio=$(median <"$scratch/ratios")
	printf '  %-8s %12s %12s %7.2f\n' "$program" \
		"$(mib "$(median <"$scratch/bare")")" \
		"$(mib "$(median <"$scratch/profiled")")" "$ratio"
	awk -v r="$ratio" 'BEGIN { exit !(r > 1.5) }' &&
		misses=$((misses + 1))
done
echo "  (ratio = median over rounds of peak with / peak without; target <= 1.5:" \
	"$([ "$misses" -eq 0 ] && echo met || echo "$misses missed"))"
