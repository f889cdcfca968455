#!/bin/sh
# End to end: programs run under the runtime (libspprof-alloc) at a
# sampling rate of 1 byte, where each of their blocks is sampled for sure
# and stands for exactly its size; memprof-report must then find their
# sites and sizes exactly (runtime/CASE.out; the command line, pid,
# duration, time of the peak, the count of stacks by method, which
# native-stacks.sh checks, and the resident memory are masked):
#  - alloc-program, at the peak of the heap and at the end, with stacks
#    read by the default method and from unwind tables;
#  - flat-program, which allocates in main: its stacks are as short as
#    complete stacks get, so the report has nothing to say about them;
#    stripped, its main (known by address) is still the site, and a
#    note says how to get its symbols;
#  - helper-program, stripped: its static helper, known by address, is
#    the site rather than the exported function that calls it, and the
#    note says that symbols are missing;
#  - unwindless-program, whose stacks break in its own code: the report
#    says so and names it;
#  - inline-program (C++, -O2 -g), which allocates in a constructor the
#    compiler inlined: the report names it as the site and, by stack,
#    shows each inlined call at its line (runtime/inline-program.chain,
#    with the lines of the source's markers), in JSON, and in pprof as
#    the lines of one location;
#  - wrapper-program, which allocates through wrappers (one the report
#    must recognise by its callers, a well-known name, strdup): each
#    block is charged to the function that asked for it, in text, by
#    stack, in JSON and in pprof; --keep-wrappers shows the wrappers;
#  - window-program, one workload in two processes whose wrappers' sampled
#    callers straddle the count that makes a wrapper: pool_alloc, whose
#    name says it allocates, is a wrapper in both, and the report says
#    why; hand_on is a wrapper in the first only, and the second says why
#    it is a site;
#  - unseen-program, which holds most of its memory in a mapping of its
#    own: the report says, in text and JSON, how little of its resident
#    memory malloc explains, with the malloc heap at that moment exact;
#  - resident-program, whose peak falls between two readings (the share
#    is the heap's peak against the kernel's high-water mark), and whose
#    heap is never touched (no share above 100 %, and why).
set -u
. "${srcdir:-.}/tests/report/common.sh"
programs=$PWD/tests/report

need_runtime

# profile PROGRAM UNWIND: its profile in $scratch/PROGRAM-UNWIND.mlyze.
profile() {
	(cd "$scratch" && under_runtime \
		SPPROF_OUTPUT="$scratch/$1-$2.mlyze" SPPROF_SAMPLING_RATE=1 \
		SPPROF_UNWIND="$2" "$programs/$1") || exit 99
}

# check NAME EXPECTED PROFILE [ARGS...]: the report on PROFILE is EXPECTED.
# Whether a peak stands out from the rest of the run depends on how long
# the program took around it, which a busy machine changes: both ways of
# saying it are masked alike, the estimate kept.
check() {
	name=$1 expected=$2 profile=$3
	shift 3
	(cd "$scratch" && NO_COLOR=1 "$report" --all "$@" "$profile" \
		>out 2>err)
	status=$?
	sed -e 's/^\(  command    \).*/\1COMMAND/' \
	    -e 's/^\(  pid        \).*/\1PID/' \
	    -e 's/^\(  duration   \).*/\1DURATION/' \
	    -e 's/^\(  stacks     \).*/\1STACKS/' \
	    -e 's/^\(Peak heap    .* at \)[0-9.]* s$/\1TIME s/' \
	    -e 's/^\(Peak heap    \)no single peak: the heap stayed within ±\(.*\) of \(.*\) for [0-9]* % of the run$/\1\3 ± \2 at TIME s/' \
	    -e 's/^\(Profile      \).*/\1PROFILE/' \
	    -e 's/^\(Resident     \).*/\1RESIDENT/' \
	    -e 's/^\(  malloc accounts for \)[0-9]* %.*/\1N %/' \
	    "$scratch/out" >"$scratch/masked"
	[ "$status" -eq 0 ] &&
		diff -u "$here/runtime/$expected.out" "$scratch/masked" &&
		diff -u /dev/null "$scratch/err"
	verdict "$name" $? "(exit status $status)"
}

for unwind in auto dwarf; do
	profile alloc-program $unwind
	for at in peak end; do
		check "alloc-program --at $at, $unwind" alloc-program-$at \
			alloc-program-$unwind.mlyze --at $at
	done
done
for unwind in fp dwarf; do
	profile flat-program $unwind
	check "flat-program, $unwind" flat-program flat-program-$unwind.mlyze
done
# stripped PROGRAM: the report on PROGRAM stripped of its symbols, in
# $scratch/PROGRAM-stripped.out, and its first site in $site.
stripped() {
	cp "$programs/$1" "$scratch/$1-stripped" &&
		strip "$scratch/$1-stripped" || exit 99
	(cd "$scratch" && under_runtime SPPROF_SAMPLING_RATE=1 \
		SPPROF_OUTPUT="$scratch/$1-stripped.mlyze" "./$1-stripped") ||
		exit 99
	(cd "$scratch" && NO_COLOR=1 "$report" --top 1 "$1-stripped.mlyze" \
		>"$1-stripped.out")
	site=$(sed -n '/ SITE$/{n;p}' "$scratch/$1-stripped.out" |
		awk '{ print $NF }')
}
# Stripped of its symbols, flat-program's main is known by its address
# only; the C library's frame that calls it has a name, but is no site:
# the site is the program's own code, as an address.
stripped flat-program
expr "$site" : 'flat-program-stripped+0x[0-9a-f]*$' >/dev/null
verdict "flat-program, stripped: its own code is the site" $? "(site $site)"
grep -q 'in flat-program-stripped (100 %): no symbols were found' \
	"$scratch/flat-program-stripped.out"
verdict "flat-program, stripped: a note says how to get its symbols" $? \
	"$(cat "$scratch/flat-program-stripped.out")"
# Stripped, helper-program's helper is known by its address only, and the
# exported function that calls it by its name: the helper is the site,
# not its caller, and the note says that symbols are missing.
stripped helper-program
expr "$site" : 'helper-program-stripped+0x[0-9a-f]*$' >/dev/null
verdict "helper-program, stripped: the unnamed helper is the site" $? \
	"(site $site)"
grep -q 'in helper-program-stripped (100 %): no symbols were found' \
	"$scratch/helper-program-stripped.out"
verdict "helper-program, stripped: a note says symbols are missing" $? \
	"$(cat "$scratch/helper-program-stripped.out")"
profile unwindless-program dwarf
check "unwindless-program" unwindless-program \
	unwindless-program-dwarf.mlyze
profile inline-program auto
check "inline-program, by function" inline-program \
	inline-program-auto.mlyze --top 1
(cd "$scratch" && NO_COLOR=1 "$report" --group-by stack --top 1 \
	inline-program-auto.mlyze) | grep 'inline-program\.cc' |
	sed -e 's/^ *< //' -e 's|([^ ]*/inline-program\.cc|(inline-program.cc|' \
	>"$scratch/chain"
source="$here/inline-program.cc"
sed -e "s/HOLDER/$(grep -n '// HOLDER' "$source" | cut -d: -f1)/" \
    -e "s/MAKE/$(grep -n '// MAKE' "$source" | cut -d: -f1)/" \
    -e "s/MAIN/$(grep -n '// MAIN' "$source" | cut -d: -f1)/" \
    "$here/runtime/inline-program.chain" >"$scratch/expected-chain"
diff -u "$scratch/expected-chain" "$scratch/chain"
verdict "inline-program, inlined calls by stack" $?
# inlined_json FUNCTION: whether FUNCTION's frame in the JSON stack of the
# largest site says it was inlined.
inlined_json() {
	(cd "$scratch" && "$report" --json --group-by stack --top 1 \
		inline-program-auto.mlyze) |
		grep -A3 "\"function\": \"$1\"" | sed -n 's/.*"inlined": //p'
}
[ "$(inlined_json 'Holder<int>::Holder(unsigned long)')" = true ] &&
	[ "$(inlined_json main)" = false ]
verdict "inline-program, inlined frames in JSON" $?
# pprof: one location per return address, whose lines are the calls
# inlined there, then the function that holds them.
if command -v go >/dev/null 2>&1; then
	"$report" -f pprof "$scratch/inline-program-auto.mlyze" \
		>"$scratch/inline.pb.gz" &&
		HOME=$scratch GOCACHE=$scratch/go-cache \
			go tool pprof -raw "$scratch/inline.pb.gz" \
			>"$scratch/inline.raw" 2>&1
	# The constructor's line and the two after it, each as the first
	# word of a location's line ("N:" when a location starts there).
	lines=$(sed -n '/^Locations/,/^Mappings/p' "$scratch/inline.raw" |
		grep -m1 -A2 ' Holder::Holder ' | awk '{ print $1 }' |
		tr '\n' ' ')
	[ "$lines" = "Holder::Holder std::unique_ptr main " ]
	verdict "inline-program, inlined calls in one pprof location" $? \
		"$lines; $(cat "$scratch/inline.raw")"
else
	echo "skipped: go tool pprof (no go; Debian: golang-go)"
fi
profile wrapper-program auto
check "wrapper-program: callers are the sites" wrapper-program \
	wrapper-program-auto.mlyze
check "wrapper-program --keep-wrappers" wrapper-program-kept \
	wrapper-program-auto.mlyze --keep-wrappers
(cd "$scratch" && NO_COLOR=1 "$report" --group-by stack --top 1 \
	wrapper-program-auto.mlyze) | sed -n '/ SITE$/{n;p;n;p}' |
	sed -e 's/^.* \([^ ]*\) (.*$/\1/' | tr '\n' ' ' >"$scratch/chain"
[ "$(cat "$scratch/chain")" = "read_body main " ]
verdict "wrapper-program, by stack: the caller, then its callers" $? \
	"$(cat "$scratch/chain")"
first_json_site=$(cd "$scratch" && "$report" --json --top 1 \
	wrapper-program-auto.mlyze | sed -n 's/^ *"site": "\(.*\)",$/\1/p')
[ "$first_json_site" = read_body ]
verdict "wrapper-program, JSON: the caller is the site" $? \
	"($first_json_site)"
if command -v go >/dev/null 2>&1; then
	# go tool pprof -top: the function that holds the most by itself.
	"$report" -f pprof "$scratch/wrapper-program-auto.mlyze" \
		>"$scratch/wrapper.pb.gz" &&
		HOME=$scratch GOCACHE=$scratch/go-cache \
			go tool pprof -top -sample_index=inuse_space \
			"$scratch/wrapper.pb.gz" >"$scratch/wrapper.top" 2>&1
	top=$(sed -n '/flat%/{n;p}' "$scratch/wrapper.top" | awk '{ print $6 }')
	[ "$top" = read_body ]
	verdict "wrapper-program, pprof: the caller holds the most" $? \
		"$top; $(cat "$scratch/wrapper.top")"
fi
# One workload, two windows whose sampled callers straddle the count.
for callers in 3 2; do
	(cd "$scratch" && under_runtime SPPROF_SAMPLING_RATE=1 \
		SPPROF_OUTPUT="$scratch/window-$callers.mlyze" \
		"$programs/window-program" $callers &&
		NO_COLOR=1 "$report" --all window-$callers.mlyze \
			>window-$callers.out) || exit 99
done
sites() {
	sed -n '/ SITE$/,/^$/p' "$scratch/$1" |
		awk 'NR > 1 && NF { print $NF }' | sort | tr '\n' ' '
}
[ "$(sites window-3.out)" = "parse_query plan_query run_query " ]
verdict "window-program, 3 callers: both are wrappers" $? \
	"$(cat "$scratch/window-3.out")"
[ "$(sites window-2.out)" = "hand_on parse_query plan_query " ]
verdict "window-program, 2 callers: pool_alloc is a wrapper still" $? \
	"$(cat "$scratch/window-2.out")"
grep -q "pool_alloc (its name says it allocates)" "$scratch/window-2.out"
verdict "window-program: the note says why pool_alloc is a wrapper" $? \
	"$(cat "$scratch/window-2.out")"
grep -q "hand_on (2 callers) only passes allocations on to the allocator too, but is a site" \
	"$scratch/window-2.out"
verdict "window-program: the note says why hand_on is a site" $? \
	"$(cat "$scratch/window-2.out")"
profile unseen-program auto
(cd "$scratch" && NO_COLOR=1 "$report" --kind heap unseen-program-auto.mlyze) \
	>"$scratch/unseen.out"
grep -q '^Resident     [0-9.]* MiB at its peak.* [0-9.]* MiB of it anonymous$' \
	"$scratch/unseen.out" &&
	grep -q '^  malloc accounts for [0-9] % of resident memory at the peak: the malloc heap.s peak, 1.0 MiB, of the most the process held in RAM, [0-9.]* MiB; the rest is not allocated through malloc' \
		"$scratch/unseen.out"
verdict "unseen-program, heap alone: malloc explains a small part of resident memory" \
	$? "$(cat "$scratch/unseen.out")"
# Its own heap is an anonymous mapping, which the report counts too.
(cd "$scratch" && NO_COLOR=1 "$report" unseen-program-auto.mlyze) \
	>"$scratch/mapped.out"
grep -q '^  malloc accounts for [0-9] % and anonymous mappings for 9[0-9] % of resident memory at the peak: the malloc heap.s peak, 1.0 MiB, and the mappings., 64.0 MiB, of the most the process held in RAM' \
	"$scratch/mapped.out"
verdict "unseen-program: its own mapped heap explains the rest" \
	$? "$(cat "$scratch/mapped.out")"
# resident BYTES or malloc BYTES from the JSON report, at the peak.
resident_json() {
	(cd "$scratch" && "$report" --json unseen-program-auto.mlyze) |
		sed -n '/^  "resident": {/,/^  }/p' |
		sed -n "s/^ *\"$1_bytes\": \([0-9]*\),\$/\1/p"
}
resident=$(resident_json resident) malloc=$(resident_json malloc)
[ "${resident:-0}" -ge $((64 << 20)) ] && [ "$malloc" = $((16 * 65536)) ]
verdict "unseen-program, JSON: resident memory and the malloc heap then" \
	$? "(resident $resident, malloc $malloc)"
# resident_report MODE [OPTION...]: the report on resident-program MODE.
resident_report() {
	mode=$1
	shift
	(cd "$scratch" && NO_COLOR=1 "$report" "$@" \
		"resident-program-$mode.mlyze")
}
for mode in between untouched; do
	(cd "$scratch" && under_runtime SPPROF_SAMPLING_RATE=1 \
		SPPROF_OUTPUT="$scratch/resident-program-$mode.mlyze" \
		"$programs/resident-program" $mode) || exit 99
done
# 64 MiB written and freed between two readings: the heap's peak is
# compared with the kernel's high-water mark, not with the readings.
resident_report between >"$scratch/between.out"
share=$(sed -n 's/^  malloc accounts for \([0-9]*\) % of resident memory at the peak: the malloc heap.s peak, 64.0 MiB, of the most the process held in RAM, [0-9.]* MiB; nearly all of it is the malloc heap\.$/\1/p' \
	"$scratch/between.out")
[ "${share:-0}" -ge 80 ] && [ "$share" -le 100 ] &&
	grep -q '^Resident     6[0-9.]* MiB at its peak, as the kernel counts it; at most [0-9.]* [KM]iB when read' \
		"$scratch/between.out"
verdict "resident-program between: the heap's peak against the resident one" \
	$? "$(cat "$scratch/between.out")"
# 256 MiB never written: no share above 100 %, and what that means.
resident_report untouched >"$scratch/untouched.out"
! grep -q 'accounts for' "$scratch/untouched.out" &&
	grep -q "^  The malloc heap's peak, 256.0 MiB, is more than the most the process held in RAM, [0-9.]* MiB: memory allocated but never touched is not resident" \
		"$scratch/untouched.out"
verdict "resident-program untouched: no share, and why" $? \
	"$(cat "$scratch/untouched.out")"
resident_report untouched --json | sed -n '/^  "resident": {/,/^  }/p' \
	>"$scratch/untouched.json"
grep -q '"malloc_peak_share": null' "$scratch/untouched.json" &&
	! grep '"malloc_share": [1-9]' "$scratch/untouched.json"
verdict "resident-program untouched, JSON: no share above 1" $? \
	"$(cat "$scratch/untouched.json")"
[ "$failures" -eq 0 ]
