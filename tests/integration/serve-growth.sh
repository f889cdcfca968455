#!/bin/sh
# serve-growth.sh - memprof_site_growth_bytes_per_second runs to the
# moment of the scrape: leak-program's leak_slowly grows for a second,
# then the program allocates nothing more (and so writes no event); a
# scrape made when the program has lived three times as long as at the
# first must show a trend of less than half the first (the least-squares
# line of a site flat since falls as the square of the time), not the
# same slope for ever.  And the trend is that of a window ending at the
# scrape (--growth-window): a server whose window of 1 s (at most 1.25 s
# taken) starts 2 s after the last step finds it growing no more.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/ctl-helpers.sh"

ctl=$abs_top_builddir/src/memprof-ctl
export XDG_RUNTIME_DIR=$scratch/xdg SPPROF_SAMPLING_RATE=1024
mkdir -p "$XDG_RUNTIME_DIR"
cd "$scratch" || fail "no scratch directory"

# seconds - now, in seconds since the epoch (fractional).
seconds() {
	date +%s.%N
}

# growth - the growth of leak_slowly at a scrape of /metrics now (0
# when it has no series: not found growing).
growth() {
	/usr/bin/python3 - "$url/metrics" "$leaker" <<'PY' ||
import re, sys, urllib.request

text = urllib.request.urlopen(sys.argv[1], timeout=600).read().decode()
for line in text.splitlines():
    if (line.startswith("memprof_site_growth_bytes_per_second{") and
            f'pid="{sys.argv[2]}"' in line and 'site="leak_slowly"' in line):
        print(line.split()[-1])
        break
else:
    print(0)
PY
		fail "no /metrics: $(cat serve.err)"
}

# 1 MiB held, then 10 steps of 256 KiB leaked, 100 ms apart.
started=$(seconds)
SPPROF_OUTPUT=$scratch/leak.%p.mlyze start_under_runtime \
	"$integ_bin/leak-program" 1024 256 10 "$scratch/leak.stop" \
	>leak.out 2>leak.err
leaker=$started_pid
programs=$leaker
wait_for_line $leaker leak.out "live"
start_serve

first=$(growth)
first_age=$(/usr/bin/python3 -c "print($(seconds) - $started)")
/usr/bin/python3 -c "import sys; sys.exit(not $first > 0)" ||
	fail "leak_slowly was not found growing while it grew: $first"
# Until the program has lived three times as long as at the first scrape.
sleep "$(/usr/bin/python3 -c "print(2 * $first_age)")"
second=$(growth)
echo "leak_slowly: $first bytes/s at ${first_age}s, $second bytes/s three times later"
/usr/bin/python3 -c "import sys; sys.exit(not $second < $first / 2)" ||
	fail "a site that stopped growing keeps its slope: $first, then $second bytes/s"
stop_serve

sleep 2
start_serve --growth-window 1
third=$(growth)
[ "$third" = 0 ] ||
	fail "a site that grew before the window grows in it: $third bytes/s"

touch leak.stop
wait $leaker || fail "leak-program: exit status $?"
stop_serve
pass
