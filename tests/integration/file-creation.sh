#!/bin/sh
# file-creation.sh - the runtime creates its files anew, never through a
# link another user put in its way: in a directory another user may
# write in (group-writable), that user plants the stream's checkpoint
# file (".part.next") as a link to a file of the profiled program's user,
# which must stay as it was, and the checkpoint takes another name; a
# checkpoint file the program's own user left behind is replaced.  And with no descriptor left (ulimit -n), the
# runtime says why it cannot write the profile, on stderr.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/../second-user.sh"

report=$abs_top_builddir/src/memprof-report
wrap=$abs_top_builddir/src/memprof-wrap

second_user spprof-t-files
# Not under the build tree, which the second user may not reach.
shared=$(mktemp -d /tmp/spprof-files.XXXXXX) || exit 99
at_exit 'rm -rf "$shared"; remove_second_user'
chmod 755 "$shared"
mkdir "$shared/out"
chgrp "$second_gid" "$shared/out"
chmod 2770 "$shared/out"
printf 'precious\n' >"$shared/precious"
chmod 600 "$shared/precious"

# run_bounded NAME: the bounded program, as root, with a size limit that
# makes it checkpoint many times, profiled into $shared/out/NAME.mlyze.
run_bounded() {
	SPPROF_OUTPUT=$shared/out/$1.mlyze SPPROF_SAMPLING_RATE=4096 \
		SPPROF_MAX_SIZE=131072 \
		run_preloaded 60 "$integ_bin/bounded" 2 15000 1000000 \
		>"$scratch/$1.out" 2>"$scratch/$1.err"
}

# The attack: the link is there before the first checkpoint.
as_second_user ln -s "$shared/precious" "$shared/out/victim.mlyze.part.next" ||
	fail "the second user cannot write in the shared directory"
run_bounded victim
[ "$(cat "$shared/precious")" = precious ] ||
	fail "the checkpoint was written through the link: $(head -c 64 "$shared/precious" | od -c | head -3)"
[ -L "$shared/out/victim.mlyze.part.next" ] ||
	fail "the second user's link was removed or replaced"
# Nor does the link stop the recording: the checkpoint takes another name.
"$report" --format=json "$shared/out/victim.mlyze" >"$scratch/victim.json" ||
	fail "no profile beside the link: $(cat "$scratch/victim.err")"
grep -q '"checkpoints": *[1-9]' "$scratch/victim.json" ||
	fail "no checkpoint beside the link: $(grep -o '"checkpoints":[^,]*' "$scratch/victim.json")"

# A checkpoint file left by a process of the same user (killed in the
# middle of a checkpoint) is no obstacle.
printf 'left over\n' >"$shared/out/own.mlyze.part.next"
run_bounded own
"$report" --format=json "$shared/out/own.mlyze" >"$scratch/own.json" ||
	fail "the profile with a leftover checkpoint file does not read"
grep -q '"checkpoints": *[1-9]' "$scratch/own.json" ||
	fail "no checkpoint written: $(grep -o '"checkpoints":[^,]*' "$scratch/own.json")"

# No descriptor left: the runtime of the shell cannot create its profile,
# and says so where memprof-wrap's operator reads it.
(
	ulimit -n 10 &&
	exec "$wrap" -q -o "$scratch/nofiles.mlyze" sh -c \
		'exec 3</dev/null 4</dev/null 5</dev/null 6</dev/null 7</dev/null 8</dev/null 9</dev/null; true'
) 2>"$scratch/nofiles.err"
grep -q 'libspprof-alloc: cannot create the profile .*nofiles.mlyze.part: Too many open files' \
	"$scratch/nofiles.err" ||
	fail "no message without descriptors: $(cat "$scratch/nofiles.err")"

pass
