#!/bin/sh
# own-malloc.sh - a program whose malloc is not the runtime's, because the
# program defines its own (as chromium does) or a library preloaded before
# the runtime does: the runtime says so at start, the profile's metadata
# names the file that defines it (malloc_defined_by), and the report says
# that the profile cannot tell how much of resident memory is the heap,
# instead of a share of 0 %.  A library preloaded after the runtime, and a
# program without a malloc of its own, get no such message.
. "$(dirname "$0")/common.sh"

report=$abs_top_builddir/src/memprof-report
wrap=$abs_top_builddir/src/memprof-wrap
program=$integ_bin/own-malloc
library=$integ_bin/.libs/libown-malloc.so
said='defines malloc and comes before the profiler in symbol lookup'

# The program's own malloc, preloaded: the message, once, names the
# program; the metadata and the report name it too.
SPPROF_OUTPUT=$scratch/own.mlyze run_preloaded 60 "$program" \
	>"$scratch/own.out" 2>"$scratch/own.err"
grep -q '^done$' "$scratch/own.out" || fail "the program did not run"
[ "$(grep -c "^libspprof-alloc: $program $said" "$scratch/own.err")" = 1 ] ||
	fail "no message naming the program's malloc: $(cat "$scratch/own.err")"
grep -q "\"malloc_defined_by\":\"$program\"" "$scratch/own.mlyze" ||
	fail "the metadata does not name the program's malloc"
NO_COLOR=1 "$report" "$scratch/own.mlyze" >"$scratch/report.out" ||
	fail "memprof-report failed"
grep -q "^  The program allocates through a malloc of its own, defined by $program, which comes before the profiler's: the profiler saw none of those allocations, so the profile cannot say how much of the resident memory ([0-9.]* [KM]iB at the peak) is the malloc heap\.$" \
	"$scratch/report.out" ||
	fail "the report does not say the malloc is the program's own: $(cat "$scratch/report.out")"
! grep -q 'accounts for\|too little to be seen' "$scratch/report.out" ||
	fail "the report gives a share or blames the rate: $(cat "$scratch/report.out")"

# Under memprof-wrap, the person who runs it reads the message.
(cd "$scratch" && SPPROF_RUNTIME=$runtime_so "$wrap" -o "$scratch/wrapped.mlyze" \
	"$program" >/dev/null 2>"$scratch/wrap.err") ||
	fail "memprof-wrap failed: $(cat "$scratch/wrap.err")"
grep -q "$program $said" "$scratch/wrap.err" ||
	fail "memprof-wrap did not show the message: $(cat "$scratch/wrap.err")"

# A library with a malloc, preloaded before the runtime, is named; after
# it, the runtime comes first and says nothing.
SPPROF_OUTPUT=$scratch/before.mlyze timeout $((60 * slowdown)) \
	env LD_PRELOAD="$library:$runtime_so" "$integ_bin/forker" leaf \
	>/dev/null 2>"$scratch/before.err" || fail "forker failed"
grep -q "^libspprof-alloc: $library $said" "$scratch/before.err" ||
	fail "no message naming the preloaded library: $(cat "$scratch/before.err")"
SPPROF_OUTPUT=$scratch/after.mlyze timeout $((60 * slowdown)) \
	env LD_PRELOAD="$runtime_so:$library" "$integ_bin/forker" leaf \
	>/dev/null 2>"$scratch/after.err" || fail "forker failed"
! grep -q "$said" "$scratch/after.err" ||
	fail "a message though the runtime came first: $(cat "$scratch/after.err")"
! grep -q malloc_defined_by "$scratch/after.mlyze" ||
	fail "the metadata names a malloc though the runtime came first"
pass
