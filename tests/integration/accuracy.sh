#!/bin/sh
# accuracy.sh - the live-heap estimate is unbiased and its 99 % interval
# holds, whether the program is linked with the runtime or runs under
# LD_PRELOAD; the preloaded run also leaves a finalised profile that
# records the sizes of blocks above 16 MiB exactly.
. "$(dirname "$0")/common.sh"

watched 60 "$integ_bin/accuracy-linked" >"$scratch/linked.out" ||
	{ cat "$scratch/linked.out"; fail "linked run failed"; }
tail -n 1 "$scratch/linked.out"

profile=$scratch/accuracy.mlyze
SPPROF_OUTPUT=$profile SPPROF_SAMPLING_RATE=131072 \
	SPPROF_MANIFEST=$scratch/manifest
export SPPROF_OUTPUT SPPROF_SAMPLING_RATE SPPROF_MANIFEST
run_preloaded 60 "$integ_bin/accuracy-preload" >"$scratch/preload.out" ||
	{ cat "$scratch/preload.out"; fail "preloaded run failed"; }
unset SPPROF_OUTPUT SPPROF_SAMPLING_RATE SPPROF_MANIFEST
tail -n 1 "$scratch/preload.out"

test -f "$profile" || fail "no profile $profile"
test ! -e "$profile.part" || fail "streamed file $profile.part left behind"
test "$(head -c 4 "$profile")" = MTRC || fail "$profile: bad magic"
test "$(od -An -tu4 -j4 -N4 "$profile" | tr -d ' ')" = 1 ||
	fail "$profile: version is not 1"
grep -aq '"complete":true' "$profile" ||
	fail "$profile: metadata does not say complete"
grep -qx "F $profile.part	$profile" "$scratch/manifest" ||
	fail "manifest lacks the F line of $profile"

size_options=
for size in $(sed -n 's/^large block sizes://p' "$scratch/preload.out"); do
	size_options="$size_options --size=$size"
done
test -n "$size_options" || fail "the program printed no large sizes"
# shellcheck disable=SC2086 # one option per size
check_profile --complete --unique-live $size_options "$profile"
pass
