#!/bin/sh
# pool-api.sh - the example pool (examples/pool.c), which reports its
# blocks through <spprof/memprof-pool.h>: under the runtime its callers
# are the sites, each estimate within its interval of what it holds (and
# nothing for the caller that gave its blocks back), and
# its chunks (marked with memprof_pool_chunk) are not counted again; with
# --show-chunks they are.  The same binary, linked without the runtime,
# runs alone with the same output.
. "$(dirname "$0")/common.sh"

report=$abs_top_builddir/src/memprof-report
pool=$integ_bin/pool

# Keys of reported blocks need a spare top bit (memprof_pool_alloc(3)).
[ "$(getconf LONG_BIT)" = 64 ] ||
	skip "32-bit addresses: the runtime does not sample reported blocks"

# Linked without the runtime: it finds it in the process, or does nothing.
if readelf -d "$pool" | grep -q 'libspprof-alloc'; then
	fail "the example pool is linked with the runtime"
fi

# run_pool NAME ARGS... - the pool alone, then under the runtime, which
# writes $scratch/NAME.mlyze; the two outputs must be the same.
run_pool() {
	name=$1
	shift
	"$pool" "$@" >"$scratch/$name.bare" || fail "the pool failed alone"
	SPPROF_OUTPUT=$scratch/$name.mlyze SPPROF_SAMPLING_RATE=65536 \
		SPPROF_SEED=${SPPROF_TEST_SEED:-1} \
		run_preloaded 60 "$pool" "$@" >"$scratch/$name.out"
	cmp "$scratch/$name.bare" "$scratch/$name.out" ||
		fail "the pool's output differs under the runtime"
	cat "$scratch/$name.out"
	"$report" --at end --format=json "$scratch/$name.mlyze" \
		>"$scratch/$name.json" || fail "$name.mlyze does not read"
}

run_pool marked
run_pool shown --show-chunks

# Within twice the 95 % interval: about four standard deviations.  The
# runs are seeded (SPPROF_TEST_SEED, 1 by default), so that the verdict is
# the same at every run: a few large buffers make the estimates' tails
# heavier than a normal law's, and unseeded runs failed now and then.
/usr/bin/env python3 - "$scratch" <<'PY' || fail "estimates"
import json, sys
scratch = sys.argv[1]
problems = []

def near(what, estimate, interval, true):
    print("%s: %.0f +- %.0f, truth %.0f" % (what, estimate, interval, true))
    if abs(estimate - true) > 2 * interval:
        problems.append(what)

for run, counts_chunks in (("marked", False), ("shown", True)):
    truth = dict(line.split() for line in open("%s/%s.out" % (scratch, run)))
    report = json.load(open("%s/%s.json" % (scratch, run)))
    sites = {s["site"]: s for s in report["sites"]}
    held = 0
    for caller in ("make_nodes", "make_names", "make_buffers"):
        held += int(truth[caller])
        if caller not in sites:
            problems.append("%s: no site %s among %s" %
                            (run, caller, sorted(sites)))
            continue
        if counts_chunks:
            continue  # the chunks the pool grew for it are charged there too
        s = sites[caller]
        near("%s: %s" % (run, caller), s["live_bytes"],
             s["live_bytes_ci95"], float(truth[caller]))
    if "pool_alloc" in sites:
        problems.append("%s: pool_alloc is a site" % run)
    # What churn took it gave back; the chunks it grew stay, and count
    # where they are shown.
    if "churn" in sites and not counts_chunks:
        problems.append("%s: churn holds %d bytes" %
                        (run, sites["churn"]["live_bytes"]))
    if counts_chunks:
        held += int(truth["chunk_bytes"])
    end = report["profiles"][0]["end"]
    near("%s: live at end" % run, end["bytes"], end["bytes_ci95"], held)
if problems:
    print("wrong: " + ", ".join(problems))
    sys.exit(1)
PY
pass
