"""The coverage of memprof-report's --temporary, --group-by thread and
--histogram over runs of blocks-program, whose truth each run printed.

Usage: blocks-coverage.py DIR RUNS [MIN_COVERAGE MAX_BIAS [RATE]]

DIR holds, for each run N from 1: runN.truth.json (the program's output)
and the reports runN.temporary.json (--temporary=1s --all),
runN.threads.json (--group-by thread), runN.sizes.json (--histogram) and
runN.site-sizes.json (--histogram --site churn_main), all --format json.
For each kind of estimate it prints the share of the 95 % intervals that
held the truth, and the bias: the sum over the runs of estimate minus
truth, in standard deviations of that sum (about normal, mean 0, for an
unbiased estimator).  With MIN_COVERAGE and MAX_BIAS, exits 1 when a kind
holds the truth less often or is farther from it.  RATE is the mean bytes
between samples the runs were sampled at (default 524288, the runtime's).

Two kinds are reported and not judged, as neither is close to normal:
the number of allocations of a whole site, which rests on the few
samples of its smallest blocks (each sampled 16-byte block stands for
32,768), and the classes of blocks of which fewer than 10 samples are
expected, which most runs do not sample at all.
"""
import json
import math
import sys

Z95 = 1.96
# The runs sample one block per RATE bytes on average (512 KiB, the
# default rate, unless told): a class of blocks much smaller than that has
# about one sample expected per RATE bytes of them.
RATE = int(sys.argv[5]) if len(sys.argv) > 5 else 512 * 1024
ENOUGH_SAMPLES = 10


class Kind:
    def __init__(self, name, judged):
        self.name, self.judged, self.held, self.total = name, judged, 0, 0
        self.error, self.variance = 0.0, 0.0

    def add(self, estimate, interval, truth):
        self.total += 1
        self.held += abs(estimate - truth) <= interval
        self.error += estimate - truth
        self.variance += (interval / Z95) ** 2

    def coverage(self):
        return self.held / self.total if self.total else 1.0

    def bias(self):
        if self.variance == 0:
            return 0.0 if self.error == 0 else math.inf
        return self.error / math.sqrt(self.variance)


kinds = {}


def add(kind, cell, truth_count, truth_bytes, judged=("bytes",)):
    """Count and bytes of one estimate ({} when the report has no row);
    the measures named in `judged` are judged."""
    for measure, truth in (("count", truth_count), ("bytes", truth_bytes)):
        name = f"{kind} ({measure})"
        kinds.setdefault(name, Kind(name, measure in judged)).add(
            cell.get(measure, 0), cell.get(measure + "_ci95", 0), truth)


def rows_by(report, key):
    return {row[key]: row for row in report["rows"]}


def check_run(directory, run):
    def load(name):
        with open(f"{directory}/run{run}.{name}.json") as f:
            return json.load(f)

    truth = load("truth")
    temporary = rows_by(load("temporary"), "site")
    for site in ("churn_main", "churn_worker"):
        add("temporary allocations of a churning site",
            temporary.get(site, {}).get("temporary", {}),
            truth[site]["count"], truth[site]["bytes"])
    for site in ("hold_main", "hold_worker"):
        row = temporary.get(site, {})
        add("temporary allocations of a holding site (none)",
            row.get("temporary", {}), 0, 0, judged=("count", "bytes"))
        add("lifetimes: blocks live at the end",
            row.get("live_at_end", {}),
            truth[site]["count"], truth[site]["bytes"])
    threads = rows_by(load("threads"), "label")
    named = {row["name"]: row for row in threads.values() if row["name"]}
    expected = {
        "worker-churn": (truth["churn_worker"], None),
        "worker-hold": (truth["hold_worker"], truth["hold_worker"]),
    }
    for name, (allocated, live) in expected.items():
        row = named.get(name, {})
        add("threads: allocated by a named thread",
            row.get("allocated", {}), allocated["count"], allocated["bytes"])
        if live:
            add("threads: live at the end in a named thread",
                row.get("live_at_end", {}), live["count"], live["bytes"])
    for report, sites, kind in (
            (load("sizes"), list(truth), "histogram: a size class, all sites"),
            (load("site-sizes"), ["churn_main"],
             "histogram: a size class of one site")):
        classes = {row["from"]: row for row in report["rows"]}
        for k in range(64):
            count = sum(truth[s]["count_by_class"][k] for s in sites)
            if count == 0:
                continue
            size = sum(truth[s]["bytes_by_class"][k] for s in sites)
            cell = classes.get(1 << k, {}).get("allocated", {})
            if size >= ENOUGH_SAMPLES * RATE:
                add(f"{kind}, 10 or more samples expected", cell, count,
                    size, judged=("count", "bytes"))
            else:
                add(f"{kind}, fewer than 10 samples expected", cell, count,
                    size, judged=())


def main():
    directory, runs = sys.argv[1], int(sys.argv[2])
    limits = [float(x) for x in sys.argv[3:5]]
    for run in range(1, runs + 1):
        check_run(directory, run)
    failed = False
    for kind in kinds.values():
        print(f"{kind.coverage():6.1%} of {kind.total:5d} intervals held "
              f"the truth, bias {kind.bias():+6.2f} sd: {kind.name}"
              f"{'' if kind.judged else ' [reported only]'}")
        if limits and kind.judged and (kind.coverage() < limits[0] or
                                  abs(kind.bias()) > limits[1]):
            print(f"  FAIL: below {limits[0]:.0%} or farther than "
                  f"{limits[1]} sd")
            failed = True
    sys.exit(1 if failed else 0)


main()
