#!/bin/sh
# usable-size.sh - malloc_usable_size() tells the program what it would
# without the runtime, for blocks of many sizes from every allocation
# function, every block sampled: the output of usable-size is the same
# bare and under the runtime (see usable-size.c).
. "$(dirname "$0")/common.sh"

# Where the C library puts a block aligned beyond 16 bytes depends on the
# addresses it works with, which address-space randomisation moves from
# one run to the next, bare or not.
setarch -R true 2>/dev/null || {
	echo "SKIP: $test_name: cannot turn address-space randomisation off"
	exit 77
}
setarch -R "$integ_bin/usable-size" >"$scratch/bare" ||
	fail "usable-size exited with status $? bare"
# The runtime of the first process puts SPPROF_ROOT_PID in the
# environment before main(), without taking memory from the program's
# heap: the heap the program starts with is the one it has bare.
SPPROF_SAMPLING_RATE=1 SPPROF_OUTPUT=$scratch/usable.mlyze \
	watched 120 setarch -R env LD_PRELOAD="$runtime_so" \
	"$integ_bin/usable-size" >"$scratch/profiled" ||
	fail "usable-size exited with status $? under the runtime"
cmp -s "$scratch/bare" "$scratch/profiled" ||
	fail "malloc_usable_size differs: $(diff "$scratch/bare" \
		"$scratch/profiled" | head -5)"
ls "$scratch"/usable*.mlyze >/dev/null 2>&1 || fail "no profile"
pass
