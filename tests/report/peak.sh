#!/bin/sh
# The peak of a real program, profiled by the runtime at its default
# rate: rotating-program holds 46 MiB (32, 12 and 2 MiB in three sites)
# at every moment while it replaces its blocks.  Over 12 runs, the peak's
# 95 % interval must hold 46 MiB in at least 7, the sites' intervals at
# the peak must hold their sizes in at least 26 of 36, and the summary
# must say that no moment stands out ("no single peak") in at least 7:
# the heap never left its level.  (The coverage itself, over many more
# runs, is measured by check-heap on simulated programs; these few real
# runs show that the runtime's samples behave as simulated.)  The program
# keeps time by the clock, so its runs differ however they are seeded:
# at the rates measured on the simulations (92 %, 93 % and 94 %), the
# three verdicts fail by chance about once in 5,000 runs of this test,
# while an estimator that held the peak in 22 % of the runs, as the
# largest of the estimates over time does, cannot pass.
set -u
. "${srcdir:-.}/tests/report/common.sh"
program=$PWD/tests/report/rotating-program
runs=12

need_runtime
python=$(python_with json)
[ -n "$python" ] || { echo "no python3: skipped"; exit 77; }

run=1
while [ "$run" -le "$runs" ]; do
	under_runtime SPPROF_OUTPUT="$scratch/run$run.mlyze" \
		"$program" 2 || exit 99
	"$report" --format json "$scratch/run$run.mlyze" \
		>"$scratch/run$run.json" || exit 99
	NO_COLOR=1 "$report" "$scratch/run$run.mlyze" \
		>"$scratch/run$run.txt" || exit 99
	run=$((run + 1))
done

"$python" - "$scratch" "$runs" <<'PY'
import json, sys

scratch, runs = sys.argv[1], int(sys.argv[2])
MiB = 1 << 20
truth = {"keep_large": 32 * MiB, "keep_medium": 12 * MiB,
         "keep_small": 2 * MiB}
peaks = sites = flat = 0
for run in range(1, runs + 1):
    report = json.load(open(f"{scratch}/run{run}.json"))
    peak = report["peak"]
    peaks += abs(peak["bytes"] - sum(truth.values())) <= peak["bytes_ci95"]
    found = {s["site"]: s["peak"] for s in report["sites"]}
    for site, size in truth.items():
        got = found.get(site, {"bytes": 0, "bytes_ci95": 0})
        sites += abs(got["bytes"] - size) <= got["bytes_ci95"]
    flat += "no single peak" in open(f"{scratch}/run{run}.txt").read()
print(f"peak interval held 46 MiB in {peaks} of {runs} runs, the sites' "
      f"in {sites} of {3 * runs}; no single peak in {flat}")
sys.exit(0 if peaks >= 7 and sites >= 26 and flat >= 7 else 1)
PY
verdict "peak of a rotating heap over $runs runs" $?
[ "$failures" -eq 0 ]
