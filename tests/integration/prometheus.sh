#!/bin/sh
# prometheus.sh - a real Prometheus server scrapes memprof-ctl serve's
# /metrics every second; its HTTP API must give the live heap of
# leak-program with a 95 % interval that holds the truth, and the growth
# of its leaking site, leak_slowly.  A second job finds its targets with
# the HTTP service discovery of /targets, without a pid: it must scrape
# leak-program's service.  The alert rule of the README checks with
# promtool.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/ctl-helpers.sh"

if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null
then
	echo "prometheus is not installed: not tested"
	exit 77
fi
command -v curl >/dev/null ||
	fail "curl is not installed: the test asks Prometheus with it (apt-get install curl)"
readme=$(cd "$(dirname "$0")/../.." && pwd)/README.md
cd "$scratch" || fail "no scratch directory"

# As root, the server would read every profiled process of the host
# (other tests', other users'), which may take longer than a scrape may:
# the program and the server run as nobody, from copies (the build tree
# may be private), and the server reads nobody's processes only.
bin=$scratch/bin
run_as=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	bin=$(mktemp -d /tmp/memprof-prometheus.XXXXXX) || exit 99
	run_as="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
mkdir -p "$bin/xdg" "$bin/out"
cp "$abs_top_builddir/src/.libs/memprof-ctl" "$runtime_so" \
	"$abs_top_builddir/src/mlyze/.libs/libmlyze.so.0" \
	"$integ_bin/leak-program" "$bin/" || exit 99
chmod 755 "$bin" "$bin"/*
[ -z "$run_as" ] || chown 65534:65534 "$bin/xdg" "$bin/out"
# Blocks of 16 KiB at this rate are all sampled (but one in 10^7), with
# weights a hair above their size: the interval is narrow, and holds the
# truth but in runs too rare to see, not in one of 20.
export XDG_RUNTIME_DIR=$bin/xdg SPPROF_SAMPLING_RATE=1024

# 8 MiB held, then 20 steps of 256 KiB leaked: 13 MiB live.
# It ends by itself within 300 s.
$run_as env SPPROF_OUTPUT="$bin/out/leak.%p.mlyze" \
	LD_PRELOAD="$bin/libspprof-alloc.so.0" SPPROF_SERVICE='shop "front"' \
	"$bin/leak-program" 8192 256 20 "$bin/leak.stop" \
	>leak.out 2>leak.err &
leaker=$!
wait_for_line $leaker leak.out "live"
truth=$(sed -n 's/^live \([0-9]*\) bytes$/\1/p' leak.out)
$run_as env LD_LIBRARY_PATH="$bin" "$bin/memprof-ctl" serve \
	--listen 127.0.0.1:0 --top-sites 3 >serve.out 2>serve.err &
server=$!
# All stop by themselves: at the end of the test, or of their timeouts.
# TERM, not KILL: $prom is timeout(1), which passes TERM on to Prometheus.
at_exit 'kill -TERM $server $prom $leaker 2>/dev/null
[ "$bin" = "$scratch/bin" ] || rm -rf "$bin"'
wait_for_line $server serve.out "serving on port"
url=http://127.0.0.1:$(sed -n 's/.*serving on port //p' serve.out)

free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_prometheus - on a free port of 127.0.0.1, scraping $url every
# second; its pid in $prom, its address in $api.  A port taken meanwhile
# by another program makes it try another.
start_prometheus() {
	target=${url#http://}
	cat >prometheus.yml <<EOF2
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: spprof
    static_configs:
      - targets: ["$target"]
  - job_name: spprof-services
    honor_labels: true
    http_sd_configs:
      - url: "$url/targets"
        refresh_interval: 2s
EOF2
	for attempt in 1 2 3; do
		port=$(free_port)
		starts=$((starts + 1))
		timeout 300 prometheus --config.file=prometheus.yml \
			--storage.tsdb.path="$scratch/tsdb.$starts" \
			--web.listen-address=127.0.0.1:$port \
			>prometheus.log 2>&1 &
		prom=$!
		api=http://127.0.0.1:$port
		for i in $(seq 300); do
			kill -0 $prom 2>/dev/null || break
			curl -sf "$api/-/ready" >/dev/null 2>&1 && return 0
			sleep 0.1
		done
		kill -TERM $prom 2>/dev/null
	done
	fail "prometheus did not start: $(tail -5 prometheus.log)"
}

# query PROMQL - the value of its first series now, or nothing.
query() {
	curl -sf -G "$api/api/v1/query" --data-urlencode "query=$1" |
		/usr/bin/python3 -c 'import json, sys
result = json.load(sys.stdin)["data"]["result"]
print(result[0]["value"][1] if result else "")'
}

# wait_for PROMQL - its value, once Prometheus has scraped it.  Debian's
# Prometheus 2.42 now and then panics as it writes its first chunks to
# disk ("expected newly cut file to have sequence:offset 1:8"): it is
# started again, with a storage of its own, a few times at most.
wait_for() {
	for i in $(seq 60); do
		if ! kill -0 $prom 2>/dev/null && [ $starts -lt 6 ]; then
			echo "prometheus ended: $(grep -m1 panic prometheus.log)"
			start_prometheus
		fi
		value=$(query "$1" 2>/dev/null)
		[ -n "$value" ] && return 0
		sleep 1
	done
	fail "no series $1 after 60 s: $(tail -5 prometheus.log)"
}

starts=0
start_prometheus
of="pid=\"$leaker\",service=\"shop \\\"front\\\"\""
# A scrape from before the program's last allocations (a busy machine
# delays them) shows less than the truth: the next ones catch up.
for scrape in $(seq 10); do
	wait_for "memprof_live_heap_bytes{$of}"
	live=$value
	wait_for "memprof_live_heap_lower_bytes{$of}"
	lower=$value
	wait_for "memprof_live_heap_upper_bytes{$of}"
	upper=$value
	echo "live heap: truth $truth, Prometheus $live [$lower, $upper]"
	/usr/bin/python3 -c "import sys; sys.exit(not $lower <= $truth <= $upper)" &&
		break
	[ $scrape -lt 10 ] || fail "the truth $truth is outside [$lower, $upper]"
	sleep 1
done

# Found by the service discovery, its configuration naming no pid: a
# target per service, which scrapes that service's processes.
wait_for "memprof_live_heap_bytes{job=\"spprof-services\",$of}"
echo "discovered by service: $value bytes live"
wait_for "count(memprof_live_heap_bytes{job=\"spprof-services\"})"
[ "$value" = 1 ] || fail "the discovered target of service shop \"front\" scrapes $value processes"

wait_for "memprof_site_growth_bytes_per_second{$of,site=\"leak_slowly\"}"
echo "leak_slowly grows by $value bytes/s"
/usr/bin/python3 -c "import sys; sys.exit(not $value > 0)" ||
	fail "leak_slowly does not grow: $value"
# Published by the runtime itself, nobody having asked it.
wait_for "memprof_runtime_total_samples_total{$of}"
[ "$value" -gt 0 ] || fail "the runtime's statistics are not published"

# The alert rule of the README, as written there.
sed -n '/^groups:$/,/^```$/p' "$readme" | sed '$d' \
	>rules.yml
grep -q memprof_site_growth_bytes_per_second rules.yml ||
	fail "no alert rule in the README"
promtool check rules rules.yml >promtool.out 2>&1 ||
	fail "promtool: $(cat promtool.out)"

touch "$bin/leak.stop"
wait $leaker || fail "leak-program: exit status $?"
stop_serve
pass
