#!/bin/sh
# storm.sh - 8 threads allocating, reallocating and freeing millions of
# blocks (some freed by other threads) under the runtime at a low rate:
# the program finishes without a crash or a damaged block, no sampled
# block of the storm stays live, and the profile is finalised and sane;
# children forked during a storm run and finish theirs; killed, it leaves
# a streamed profile that can still be read.
. "$(dirname "$0")/common.sh"

profile=$scratch/storm.mlyze
SPPROF_OUTPUT=$profile SPPROF_SAMPLING_RATE=4096
export SPPROF_OUTPUT SPPROF_SAMPLING_RATE
run_preloaded 90 "$integ_bin/storm" 8 2000000

test -f "$profile" || fail "no profile $profile"
test ! -e "$profile.part" || fail "streamed file $profile.part left behind"
check_profile --complete --unique-live --min-allocs=100000 "$profile"

# Every block sampled, 16 threads holding about 1300 blocks: the
# live-block table grows from its first 1024 slots while they use it, and
# drops nothing.
grown=$scratch/grown.mlyze
SPPROF_OUTPUT=$grown SPPROF_SAMPLING_RATE=1
run_preloaded 90 "$integ_bin/storm" 16 100000 >"$scratch/grown.out"
cat "$scratch/grown.out"
drops=$(sed -n 's/.* \([0-9]*\) heap map drops.*/\1/p' "$scratch/grown.out")
slots=$(sed -n 's/.* \([0-9]*\) heap map slots.*/\1/p' "$scratch/grown.out")
test "$drops" = 0 && test "$slots" -gt 1024 ||
	fail "the table ended at ${slots:-?} slots with ${drops:-?} drops"
check_profile --complete --unique-live --min-allocs=100000 "$grown"

# Every block sampled while the main thread forks 50 children: each must
# find the runtime's locks free, storm a little, exit and leave its own
# finished profile.
forked=$scratch/forked
mkdir "$forked"
SPPROF_OUTPUT=$forked/storm.mlyze
run_preloaded 120 "$integ_bin/storm" 4 300000 50 >/dev/null
children=$(find "$forked" -name 'storm.*.mlyze' | wc -l)
test "$children" = 50 || fail "$children of 50 forked children left profiles"
for child in "$forked"/storm.*.mlyze; do
	check_profile --complete --min-allocs=100 "$child"
done
SPPROF_SAMPLING_RATE=4096

# A profile the file system refuses past 1 MiB (a file size limit, its
# signal ignored): the storm still finishes clean, the runtime says why
# the streamed file it leaves is short, and that file reads up to its last
# whole event.
limited=$scratch/limited
mkdir "$limited"
SPPROF_OUTPUT=$limited/storm.mlyze
(
	ulimit -f 2048 # blocks of 512 bytes
	trap '' XFSZ
	run_preloaded 90 "$integ_bin/storm" 4 500000
) >/dev/null 2>"$limited/stderr" || fail "the storm failed with a file size limit"
grep -q 'cannot write the profile .*(File too large)' "$limited/stderr" ||
	fail "no message about the refused profile: $(cat "$limited/stderr")"
test ! -e "$limited/storm.mlyze" || fail "a short profile was finalised"
check_profile --streamed --min-allocs=1000 "$limited/storm.mlyze.part"

# Killed in the middle of a storm, the process leaves its streamed
# profile, readable up to its last whole event.
killed=$scratch/killed.mlyze
SPPROF_OUTPUT=$killed
timeout -s KILL $((2 * slowdown)) env LD_PRELOAD="$runtime_so" "$integ_bin/storm" 8 1000000000
status=$?
test $status = 137 || fail "the endless storm ended with status $status"
test ! -e "$killed" || fail "a killed process finalised its profile"
check_profile --streamed --unique-live --min-allocs=1000 "$killed.part"
pass
