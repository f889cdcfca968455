#!/bin/sh
# End to end with the real runtime of the build tree: one valid profile per
# process of the command's tree, all of them listed at the end; a single one
# with --no-follow-fork; existing profiles never overwritten; a process
# killed before finalising listed as partial; processes that took no
# sample named.
. "${srcdir:-.}/tests/wrap/common.sh"

use_real_runtime

allocate=$helpers/allocate
report="memprof-report --top 20"

# valid_profile FILE: the checks of a profile short of reading it.
valid_profile() {
	[ -f "$1" ] || fail "$1: no such profile"
	[ "$(head -c 4 "$1")" = MTRC ] || fail "$1: no MTRC magic"
	[ "$(wc -c <"$1")" -ge 256 ] || fail "$1: shorter than 256 bytes"
}

# expect_all_listed PREFIX COUNT: exactly COUNT profiles PREFIX*.mlyze
# exist, all valid, all listed in the summary, and no part file is left.
expect_all_listed() {
	count=0
	for file in "$1".*mlyze; do
		[ -e "$file" ] || break
		valid_profile "$file"
		expect_in "$work/err" "  $report $file"
		count=$((count + 1))
	done
	[ "$count" -eq "$2" ] || fail "$count $1 profiles instead of $2"
	ls "$1".*part >/dev/null 2>&1 && fail "part files left: $(ls "$1".*part)"
	[ "$(grep -c "^  $report " "$work/err")" -eq "$2" ] ||
		fail "summary does not list $2 profiles"
}

# One process; the default name is in the current directory.
run 0 "$wrap" -r 4K "$allocate" pids
pid=$(cat pids)
expect_in "$work/err" "memprof-wrap: 1 profile written; read it with:"
expect_all_listed allocate 1
valid_profile "allocate.$pid.mlyze"

# A tree of processes, forked and executed: each writes its own profile.
rm -f pids
run 0 "$wrap" -r 4K -o 'tree.%p.mlyze' "$allocate" pids tree
[ "$(wc -l <pids)" -eq 3 ] || fail "not 3 processes: $(cat pids)"
expect_in "$work/err" "memprof-wrap: 3 profiles written; read them with:"
expect_all_listed tree 3
for pid in $(cat pids); do
	valid_profile "tree.$pid.mlyze"
done

# The same through a shell.  Every program it starts has a profile, and
# whatever else the processes of the tree wrote is listed too.
rm -f pids
run 0 "$wrap" -r 4K -o 'shell.%p.mlyze' sh -c \
	"$allocate pids & $allocate pids; wait"
[ "$(wc -l <pids)" -eq 2 ] || fail "not 2 programs: $(cat pids)"
for pid in $(cat pids); do
	valid_profile "shell.$pid.mlyze"
done
for file in shell.*; do
	case $file in
	*.part) expect_in "$work/err" "  $report $file   # partial" ;;
	*) valid_profile "$file"; expect_in "$work/err" "  $report $file" ;;
	esac
done
[ "$(grep -c "^  $report " "$work/err")" -eq "$(ls shell.* | wc -l)" ] ||
	fail "not every profile listed"

# --no-follow-fork: the first process only.
rm -f pids
run 0 "$wrap" -r 4K --no-follow-fork -o 'single.%p.mlyze' "$allocate" pids tree
[ "$(wc -l <pids)" -eq 3 ] || fail "not 3 processes: $(cat pids)"
expect_all_listed single 1
valid_profile "single.$(tail -n 1 pids).mlyze" # the first process ends last

# Without %p the first process takes the name as it is, the others add
# their process id to it.
rm -f pids
run 0 "$wrap" -r 4K -o fixed.mlyze "$allocate" pids tree
expect_all_listed fixed 3
valid_profile fixed.mlyze
for pid in $(sed '$d' pids); do
	valid_profile "fixed.$pid.mlyze"
done

# An existing file is never overwritten.
echo "not a profile" >kept.mlyze
run 0 "$wrap" -r 4K -o kept.mlyze "$allocate" pids
expect_in "$work/err" "$work/kept.mlyze exists and is kept"
[ "$(cat kept.mlyze)" = "not a profile" ] || fail "kept.mlyze overwritten"
valid_profile kept.1.mlyze
expect_in "$work/err" "  $report kept.1.mlyze"

# A process killed before it finalises leaves a partial profile.
rm -f pids
run 137 "$wrap" -r 4K -o 'dead.%p.mlyze' "$allocate" pids die
part="dead.$(cat pids).mlyze.part"
[ -s "$part" ] || fail "$part: missing or empty"
expect_in "$work/err" "  $report $part   # partial: its process ended before finalising"

# A profile still being written when memprof-wrap ends is listed under
# the name it will have once its process ends, which is then there.
rm -f pids pids.end
# The background child may take a sample before it executes allocate, and
# its profile then ends at the exec: allocate's own stream, written once
# pids is, may be late.PID.1.mlyze.part.
run 0 "$wrap" -r 4K -o 'late.%p.mlyze' sh -c "$allocate pids linger &
	for i in \$(seq 600); do
		[ -s pids ] && ls late.\$(cat pids).*mlyze.part >/dev/null 2>&1 && break
		sleep 0.1
	done"
late=$(cat pids)
expect_in "$work/err" "# written when process $late ends"
name=$(sed -n "s/^  $report \([^ ]*\)   # written when process $late ends.*/\1/p" "$work/err")
expect_in "$work/err" "  $report $name   # written when process $late ends (until then it streams to $name.part)"
[ -e "$name" ] && fail "$name there before its process ended"
touch pids.end
wait_for $late 30 test -e "$name" || fail "$name not written"
valid_profile "$name"

# A process that ends without taking a sample has no profile, and is
# named instead, by its process id and its command line; --quiet keeps
# it for itself.
run 0 "$wrap" -o 'idle.%p.mlyze' "$helpers/idle-child"
child=$(cat "$work/out")
expect_all_listed idle 1
expect_in "$work/err" "memprof-wrap: 1 process ended without taking a sample, so without a profile:"
expect_in "$work/err" "  pid $child  $helpers/idle-child"
run 0 "$wrap" -q -o 'quiet-idle.%p.mlyze' "$helpers/idle-child"
[ -s "$work/err" ] && fail "--quiet still printed: $(cat "$work/err")"
exit 0
