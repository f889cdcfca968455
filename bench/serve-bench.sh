#!/bin/sh
# serve-bench.sh - what a scrape of memprof-ctl serve costs, against the
# length of the stream it reads.
#
# Usage: serve-bench.sh BUILDDIR [MIB...]
# For each size (default 1 64 256 MiB), a program (bench/stream-grower)
# records with every allocation sampled until its stream holds about
# that many MiB of events, and stops allocating; /metrics is scraped
# (the first scrape: the server replays the stream), the program makes
# 10,000 events more, and /metrics is scraped again (the second: the
# server takes up its replay where it stopped).  Prints, side by side,
# the server's CPU time for each, its children's included (from
# /proc/PID/stat, in clock ticks of 10 ms), and the time each took by the clock; then the same for
# /debug/pprof/heap, which takes up the same replay (its first scrape
# comes after the first of /metrics, and reads what that one left).
# The target: a second scrape of the 256 MiB stream under 50 ms.  As root, the programs run as nobody, so that the server
# reads their processes only.
set -u
builddir=$1
shift
sizes=${*:-1 64 256}
ctl=$builddir/src/memprof-ctl
grower=$builddir/bench/stream-grower
runtime=$builddir/lib/.libs/libspprof-alloc.so.0
for f in "$ctl" "$grower" "$runtime"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "serve-bench: $f is missing (make bench)" >&2; exit 2; }
done
dir=$(mktemp -d /tmp/serve-bench.XXXXXX) || exit 1
run_as=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	run_as="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chown 65534:65534 "$dir"
fi
chmod 755 "$dir"
server=
grower_pid=
trap 'kill $server $grower_pid 2>/dev/null; rm -rf "$dir"' EXIT
export XDG_RUNTIME_DIR=$dir

$run_as "$ctl" serve --listen 127.0.0.1:0 >"$dir/serve.out" 2>"$dir/serve.err" &
server=$!
for i in $(seq 300); do
	grep -q "serving on port" "$dir/serve.out" 2>/dev/null && break
	sleep 0.1
done
url=http://127.0.0.1:$(sed -n 's/.*serving on port //p' "$dir/serve.out")

# wait_for FILE TEXT
wait_for() {
	while ! grep -q "$2" "$1" 2>/dev/null; do
		kill -0 $grower_pid 2>/dev/null || { echo "serve-bench: stream-grower ended: $(cat "$dir/grower.err")" >&2; exit 1; }
		sleep 0.2
	done
}

# scrape PATH - "CPU_MS WALL_MS" of one request of the server.
scrape() {
	/usr/bin/python3 - "$server" "$url$1" <<'PY'
import os, sys, time, urllib.request

def cpu_ms(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    # Its own time and that of the children it reaped (memprof-report).
    ticks = sum(int(f) for f in fields[11:15])
    return ticks * 1000 / os.sysconf("SC_CLK_TCK")

pid, url = sys.argv[1], sys.argv[2]
before, start = cpu_ms(pid), time.monotonic()
body = urllib.request.urlopen(url, timeout=600).read()
wall = (time.monotonic() - start) * 1000
print(f"{cpu_ms(pid) - before:.0f} {wall:.0f}")
PY
}

# 12 bytes an event, two events a pair.
printf '%-10s %-9s %12s %12s %12s %12s\n' stream page "1st CPU ms" "2nd CPU ms" \
	"1st wall ms" "2nd wall ms"
for mib in $sizes; do
	rm -f "$dir/go" "$dir/stop"
	pairs=$((mib * 1048576 / 24))
	$run_as env LD_PRELOAD="$runtime" SPPROF_SAMPLING_RATE=1 \
		SPPROF_MAX_SIZE=1073741824 SPPROF_OUTPUT="$dir/g.%p.mlyze" \
		"$grower" $pairs 5000 "$dir/go" "$dir/stop" \
		>"$dir/grower.out" 2>"$dir/grower.err" &
	grower_pid=$!
	wait_for "$dir/grower.out" ready
	part=$dir/g.$grower_pid.mlyze.part
	written=$(/usr/bin/python3 -c "import sys; d = open(sys.argv[1], 'rb').read(); print(len(d.rstrip(b'\0')) >> 20)" "$part")
	first=$(scrape /metrics)
	first_pprof=$(scrape "/debug/pprof/heap?pid=$grower_pid")
	touch "$dir/go"
	wait_for "$dir/grower.out" more
	second=$(scrape /metrics)
	second_pprof=$(scrape "/debug/pprof/heap?pid=$grower_pid")
	set -- $first $second
	printf '%-10s %-9s %12s %12s %12s %12s\n' "${written}MiB" /metrics $1 $3 $2 $4
	set -- $first_pprof $second_pprof
	printf '%-10s %-9s %12s %12s %12s %12s\n' "" "pprof" $1 $3 $2 $4
	touch "$dir/stop"
	wait $grower_pid
	grower_pid=
done
