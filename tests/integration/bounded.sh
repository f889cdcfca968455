#!/bin/sh
# bounded.sh - a profile with a size limit: checkpointed ten times and
# more, its streamed file stays within the limit and one stream window,
# and the report estimates the live set, the leak rate and the totals
# since the start within their intervals; killed at random moments and
# inside checkpoints, it always leaves a streamed file that reads.
. "$(dirname "$0")/common.sh"

report=$abs_top_builddir/src/memprof-report
limit=131072
window=1048576 # STREAM_WINDOW_BYTES
profile=$scratch/bounded.mlyze

# The largest size of FILE until PID ends, in "$2.max".
watch_size() {
	max=0
	while kill -0 "$1" 2>/dev/null; do
		size=$(stat -c %s "$2" 2>/dev/null || echo 0)
		test "$size" -le "$max" || max=$size
		sleep 0.005
	done
	echo "$max" >"$2.max"
}

SPPROF_OUTPUT=$profile SPPROF_SAMPLING_RATE=4096 SPPROF_MAX_SIZE=$limit \
	watched 60 under_runtime \
	"$integ_bin/bounded" 6 15000 1000000 >"$scratch/bounded.out" &
pid=$!
watch_size "$pid" "$profile.part"
wait "$pid" || fail "the bounded run failed"
cat "$scratch/bounded.out"
"$report" --format=json "$profile" >"$scratch/report.json" ||
	fail "$profile does not read"
"$report" --leaks --format=json "$profile" >"$scratch/leaks.json" ||
	fail "$profile does not read with --leaks"

# Within twice the 95 % interval: about four standard deviations, so
# that a correct estimate fails once in ten thousand runs.
/usr/bin/env python3 - "$scratch" "$limit" "$window" <<'PY' || fail "estimates"
import json, sys
scratch, limit, window = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
truth = dict(line.split() for line in open(scratch + "/bounded.out"))
report = json.load(open(scratch + "/report.json"))
leaks = json.load(open(scratch + "/leaks.json"))
profile = report["profiles"][0]
biggest = int(open(scratch + "/bounded.mlyze.part.max").read())
problems = []

def near(what, estimate, interval, true):
    ok = abs(estimate - true) <= 2 * interval
    print("%s: %.0f +- %.0f, truth %.0f" % (what, estimate, interval, true))
    if not ok:
        problems.append(what)

print("checkpoints: %d, largest streamed file: %d bytes" %
      (profile["checkpoints"], biggest))
if profile["checkpoints"] < 10:
    problems.append("fewer than 10 checkpoints")
if biggest > limit + window:
    problems.append("the streamed file grew past the limit and a window")
near("live at end", profile["end"]["bytes"], profile["end"]["bytes_ci95"],
     float(truth["live"]))
near("allocations", report["allocations"], report["allocations_ci95"],
     float(truth["allocations"]))
leak = [s for s in leaks["sites"] if s["site"] == "leak_block"]
if not leak:
    problems.append("no leak_block site")
else:
    near("leak per second", leak[0]["growth"], leak[0]["growth_ci95"],
         float(truth["leak"]))
if problems:
    print("wrong: " + ", ".join(problems))
    sys.exit(1)
PY

# Kills: half at a random moment, half as soon as a checkpoint starts
# (every sample is taken, so that a checkpoint lists 20000 blocks).
inside=0
for kill in $(seq 1 50); do
	part=$scratch/killed-$kill.mlyze
	SPPROF_OUTPUT=$part SPPROF_SAMPLING_RATE=1 SPPROF_MAX_SIZE=$limit \
		start_under_runtime \
		"$integ_bin/bounded" 10 200000 0 20000 >/dev/null
	pid=$started_pid
	if [ $((kill % 2)) = 0 ]; then
		# From the start of the profile: a run killed before it has
		# none, which an emulator's slow start would make likely.
		tries=0
		while [ ! -e "$part.part" ] && [ $tries -lt 1000 ]; do
			sleep 0.01
			tries=$((tries + 1))
		done
		sleep "$(awk "BEGIN { srand($kill); printf \"%.3f\", \
			0.05 + rand() * 0.5 }")"
	else
		tries=0
		while [ ! -e "$part.part.next" ] && [ $tries -lt 2000000 ]; do
			tries=$((tries + 1))
		done
	fi
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	test ! -e "$part.part.next" || inside=$((inside + 1))
	"$report" --format=json "$part.part" >/dev/null 2>"$scratch/read.err" ||
		{ cat "$scratch/read.err"; fail "$part.part does not read"; }
	rm -f "$part.part" "$part.part.next"
done
echo "50 killed runs read; $inside were killed inside a checkpoint"
test "$inside" -gt 0 || fail "no run was killed inside a checkpoint"
pass
