#!/bin/sh
# mapped.sh - anonymous mappings are sampled by the heap's law and
# reported beside the heap: a program holding 64 MiB mapped at one site
# and 16 MiB allocated through malloc at another (tests/integration/
# mapped.c) is reported, over seeded runs, with each within the 95 %
# interval of its estimate (--kind mapped, --kind heap; both by default,
# each site marked with its kind, in the exports too), and the mean of
# the estimates near the truth, so that a biased weight fails even where
# the intervals are wide; mappings given back (in halves, moved by
# mremap, replaced by MAP_FIXED) leave nothing, a reservation is never
# sampled, and the blocks the C library maps for malloc count as heap,
# never as mappings.  Mappings grown by mremap from a size seldom sampled
# count as much as their new size, the growth of a file mapping or of a
# reservation nothing.  MAPPED_SEEDS=N runs N seeds (default 8) and prints
# the coverage of the intervals.
. "$(dirname "$0")/common.sh"

seeds=${MAPPED_SEEDS:-8}
report=$abs_top_builddir/src/memprof-report
mib=1048576

# estimate PROFILE KIND SITE - "live interval" at the end, in bytes, of
# SITE, and "others" for the live bytes of every other site of KIND.
estimate() {
	"$report" --at end --kind "$2" --format json "$1" |
		python3 -c '
import json, sys
report = json.load(sys.stdin)
site = [s for s in report["sites"] if s["site"] == sys.argv[1]]
others = sum(s["live_bytes"] for s in report["sites"]
             if s["site"] != sys.argv[1])
if site:
    print(site[0]["live_bytes"], site[0]["live_bytes_ci95"], others)
else:
    print(0, 0, others)
' "$3"
}

# check KIND SITE TRUTH_MIB [NAME] - one line per seed: "inside ratio",
# in the file NAME (KIND by default).
check() {
	set -- $(estimate "$profile" "$1" "$2") "$1" "$2" "$3" "${4:-$1}"
	test "$3" = 0 || fail "seed $seed: $4 memory at sites other than $5: $3 bytes"
	test "$1" != 0 || fail "seed $seed: no $4 memory at $5"
	awk -v est="$1" -v ci="$2" -v truth="$(($6 * mib))" 'BEGIN {
		inside = (est - ci <= truth && truth <= est + ci)
		printf "%d %.4f\n", inside, est / truth }' >>"$scratch/$7"
}

seed=1
while [ "$seed" -le "$seeds" ]; do
	profile=$scratch/mixed.$seed.mlyze
	SPPROF_SEED=$seed SPPROF_OUTPUT=$profile \
		run_preloaded 60 "$integ_bin/mapped" mixed
	check mapped map_pages 64
	check heap fill_heap 16
	profile=$scratch/grown.$seed.mlyze
	SPPROF_SEED=$seed SPPROF_OUTPUT=$profile \
		run_preloaded 60 "$integ_bin/mapped" grown
	check mapped grow_pages 64 grown
	seed=$((seed + 1))
done
profile=$scratch/mixed.$((seed - 1)).mlyze

# Both kinds in one report by default, each site with its kind.
kinds=$("$report" --at end --format json "$profile" | python3 -c '
import json, sys
kind = {s["site"]: s.get("kind") for s in json.load(sys.stdin)["sites"]}
print(kind.get("map_pages"), kind.get("fill_heap"))')
test "$kinds" = "mapped heap" || fail "kinds of the sites: $kinds"
NO_COLOR=1 "$report" --at end "$profile" | grep -q ' map_pages \[mapped\]$' ||
	fail "the text report does not mark map_pages as mapped"
# The exports count what --kind selects, as the views do.
"$report" --at end -f folded "$profile" >"$scratch/all.folded" &&
	"$report" --at end --kind heap -f folded "$profile" >"$scratch/heap.folded" &&
	"$report" --at end --kind mapped -f folded "$profile" \
		>"$scratch/mapped.folded" || fail "no folded stacks"
grep -q map_pages "$scratch/all.folded" && grep -q fill_heap "$scratch/all.folded" ||
	fail "the folded stacks miss a kind: $(cat "$scratch/all.folded")"
grep -q map_pages "$scratch/heap.folded" &&
	fail "--kind heap: the folded stacks hold the mappings"
grep -q fill_heap "$scratch/mapped.folded" &&
	fail "--kind mapped: the folded stacks hold the heap"

# summary KIND MIN_INSIDE MAX_MEAN_ERROR
summary() {
	awk -v kind="$1" -v min="$2" -v bias="$3" '
		{ inside += $1; ratio += $2; n++ }
		END {
			mean = ratio / n
			printf "%s: %d of %d runs within their 95 %% interval, mean estimate/truth %.3f\n", kind, inside, n, mean
			if (inside < min * n || mean < 1 - bias || mean > 1 + bias)
				exit 1
		}' "$scratch/$1" || fail "the $1 estimates are off"
}
summary mapped 0.75 0.06
summary heap 0.75 0.15
summary grown 0.75 0.06

# The blocks the C library maps for malloc are heap, not mappings.
profile=$scratch/malloc-only.mlyze
SPPROF_SAMPLING_RATE=4096 SPPROF_OUTPUT=$profile \
	run_preloaded 60 "$integ_bin/mapped" malloc-only
set -- $(estimate "$profile" mapped hold_large_blocks)
test "$1 $3" = "0 0" || fail "malloc's own mappings counted as mappings"
set -- $(estimate "$profile" heap hold_large_blocks)
test "$1" -ge $((32 * mib)) || fail "malloc's large blocks not counted as heap"

# Nor are the extents that another allocator behind the runtime (jemalloc)
# maps for its blocks: its heap is counted once, as heap.
jemalloc=$(/sbin/ldconfig -p | awk '/libjemalloc\.so\.2 / { print $NF; exit }')
if [ -n "$jemalloc" ]; then
	profile=$scratch/jemalloc.mlyze
	runtime_so="$runtime_so $jemalloc"
	SPPROF_SEED=1 SPPROF_OUTPUT=$profile \
		run_preloaded 60 "$integ_bin/mapped" mixed
	grep -q libjemalloc "$profile" ||
		fail "jemalloc is not in the profile's map of modules"
	set -- $(estimate "$profile" mapped map_pages)
	test "$1" != 0 || fail "under jemalloc: no mapped memory at map_pages"
	test "$3" = 0 ||
		fail "under jemalloc: its own extents counted as mappings: $3 bytes"
	set -- $(estimate "$profile" heap fill_heap)
	test "$1" != 0 || fail "under jemalloc: no heap at fill_heap"
else
	echo "libjemalloc.so.2 not installed: the allocator behind the runtime not tested"
fi
pass
