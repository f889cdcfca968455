#!/bin/sh
# The views of the sampled blocks' lives, threads and sizes on a program
# whose truth is known (blocks-program): over 12 seeded runs at half the
# program's scale, sampled once per 64 KiB, the 95 % intervals of the
# temporary allocations of its sites, of their blocks live at the end,
# of what its named threads allocated and left live, and of its size
# classes (of 10 samples or more expected) must hold the truth in at
# least 70 % of the runs, and the sum of the errors over the runs must
# lie within 4 of its standard deviations: an estimator biased by a
# tenth cannot pass (its sums lie 7 to 43 standard deviations away).
# At the default rate, 512 KiB, the blocks live at the end of the sites
# and threads that hold 16 or 32 MiB are too few for that: a tenth moved
# their sums only 2 or 3 standard deviations.  Measured over 100 runs at
# 64 KiB, each kind held the truth in 93 % to 95 % of them, so with other
# seeds a correct estimator would fail the first rule about once in a
# hundred runs of this test (on the 12 intervals of a thread's blocks
# live at the end; the other kinds far more seldom), and the second
# about once in a thousand.  The counts of whole sites and
# the classes with fewer samples are printed, not judged (see
# blocks-coverage.py).
# Also: the names of the threads, and --thread by name and by id.
set -u
. "${srcdir:-.}/tests/report/common.sh"
. "$here/blocks-common.sh"
program=$PWD/tests/report/blocks-program
runs=12
rate=65536

need_runtime
python=$(python_with json)
[ -n "$python" ] || { echo "no python3: skipped"; exit 77; }

blocks_runs "$runtime_so" "$program" "$report" "$scratch" "$runs" 2 "$rate" ||
	exit 99
"$python" "$here/blocks-coverage.py" "$scratch" "$runs" 0.7 4 "$rate"
verdict "coverage and bias over $runs runs" $?

# The threads carry their names, and --thread keeps one thread's blocks
# by its name or its id.
"$python" - "$scratch/run1.threads.json" <<'PY'
import json, sys
names = {row["name"] for row in json.load(open(sys.argv[1]))["rows"]}
sys.exit(0 if {"worker-churn", "worker-hold", "blocks-program"} <= names
         else 1)
PY
verdict "threads named" $?
"$report" --format json --thread worker-hold "$scratch/run1.mlyze" \
	>"$scratch/hold.json" || exit 99
id=$("$python" -c 'import json, sys
for row in json.load(open(sys.argv[1]))["rows"]:
    if row["name"] == "worker-churn":
        print(row["thread"])' "$scratch/run1.threads.json")
"$report" --format json --sort allocated --thread "$id" \
	"$scratch/run1.mlyze" >"$scratch/churn.json" || exit 99
"$python" - "$scratch/hold.json" "$scratch/churn.json" <<'PY'
import json, sys
hold = [s["site"] for s in json.load(open(sys.argv[1]))["sites"]]
churn = [s["site"] for s in json.load(open(sys.argv[2]))["sites"]]
sys.exit(0 if hold == ["hold_worker"] and churn == ["churn_worker"] else 1)
PY
verdict "--thread by name and by id" $?
# A thread that allocated none of the sampled blocks is refused, naming
# the threads there are, not shown as a program too small to be seen.
"$report" --thread worker-none "$scratch/run1.mlyze" >/dev/null \
	2>"$scratch/none.err"
[ $? -eq 2 ] && grep -q -- '--thread=worker-none: no sampled block' \
	"$scratch/none.err" && grep -q 'worker-churn' "$scratch/none.err"
verdict "--thread of no thread is refused" $? "$(cat "$scratch/none.err")"

# A view of lives has no single moment: --at a time is refused, while a
# stretch chooses the blocks it counts.
"$report" --temporary --at 0.1s "$scratch/run1.mlyze" >/dev/null \
	2>"$scratch/at.err"
[ $? -eq 2 ] && grep -q -- '--temporary counts whole lives' "$scratch/at.err"
verdict "--temporary refuses --at TIME" $?
"$report" --temporary "$scratch/run1.mlyze" >"$scratch/all.txt" || exit 99
"$report" --temporary --from 0s "$scratch/run1.mlyze" >"$scratch/from.txt"
[ $? -eq 0 ] && grep -q 'allocated from 0' "$scratch/from.txt" &&
	grep -v 'allocated from 0' "$scratch/from.txt" |
	diff -q - "$scratch/all.txt" >/dev/null
verdict "--temporary takes a stretch" $?
[ "$failures" -eq 0 ]
