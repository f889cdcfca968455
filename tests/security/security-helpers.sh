# security-helpers.sh - shared by the security tests of memprof-ctl
# (sourced, not run): a second local user, made for the test, attacks
# root's memprof-ctl through what that user may write (its registry
# directory, its files, its processes' answers).
#
# Set $attacker (spprof-t-...) before sourcing.  It gives $uid and $gid
# of that user, $registry (its registry directory, made), $home (a
# directory of its own in the scratch directory), as_user COMMAND...,
# and removes the user, its processes and its files when the test ends.
# Without root, the test is skipped.

: "${abs_top_builddir:?abs_top_builddir must name the build directory}"
: "${attacker:?set attacker to the name of the test's user}"
. "$(dirname "$0")/../testlib.sh"

test_name=$(basename "$0" .sh)
make_scratch
ctl=$abs_top_builddir/src/memprof-ctl
forge=$abs_top_builddir/tests/security/forge-entry
report=$abs_top_builddir/src/memprof-report
# The processes of the attacker the test started, its server, files it
# made outside the scratch directory, and a file system it mounted.
started=
server=
remove_at_end=
unmount_at_end=

fail() {
	echo "FAIL: $test_name: $*" >&2
	exit 1
}

pass() {
	[ -z "$server" ] || kill -KILL $server 2>/dev/null
	[ -z "$server" ] || wait $server 2>/dev/null
	server=
	[ -z "$unmount_at_end" ] || umount "$unmount_at_end"
	unmount_at_end=
	echo "PASS: $test_name"
	exit 0
}

# wait_for_line, start_serve [OPTIONS] ($server, $url), and what they
# stop when the test ends, after cleanup below.
. "$(dirname "$0")/../integration/ctl-helpers.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: $test_name: only root can make the second user it needs"
	exit 77
fi

cleanup() {
	[ -z "$server" ] || kill -KILL $server 2>/dev/null
	[ -z "$started" ] || kill -KILL $started 2>/dev/null
	[ -z "$started" ] || wait $started 2>/dev/null
	# Whatever else runs as the test's own user.
	[ -z "${uid:-}" ] || pkill -KILL -U "$uid" 2>/dev/null
	[ -z "${uid:-}" ] || rm -rf "/run/user/$uid"
	[ -z "$remove_at_end" ] || rm -rf $remove_at_end
	[ -z "$unmount_at_end" ] || umount "$unmount_at_end"
	userdel --force "$attacker" 2>/dev/null
}
at_exit cleanup
trap 'exit 1' INT TERM

# The test's user reaches its scratch directory and the build tree's
# programs, which the server runs as that user.
open_the_way "$abs_top_builddir" ||
	fail "cannot let other users reach $abs_top_builddir"
userdel "$attacker" 2>/dev/null
useradd --no-create-home --shell /usr/sbin/nologin "$attacker" || {
	echo "SKIP: $test_name: useradd $attacker failed"
	exit 77
}
uid=$(id -u "$attacker")
gid=$(id -g "$attacker")
registry=/run/user/$uid/spprof

rm -rf "$scratch" "/run/user/$uid"
mkdir -p "$scratch/home" "$registry"
chmod 0755 "$scratch"
chown "$uid:$gid" "$scratch/home" "/run/user/$uid" "$registry"
chmod 0700 "/run/user/$uid" "$registry"
home=$scratch/home
cd "$scratch" || fail "no scratch directory"

# as_user COMMAND... (exec'd in its place: a background one's pid is $!)
as_user="setpriv --reuid=$uid --regid=$gid --clear-groups --"
as_user() {
	$as_user "$@"
}

# forged_process PART ANSWER [WORD...] - a process of the attacker's with
# an entry of its own naming PART as its stream and answering every
# request with ANSWER; its pid in $pid.  forged MODE ARGS... runs another
# mode of forge-entry so (cut).
forged=0
forged() {
	forged=$((forged + 1))
	mode=$1
	shift
	$as_user "$forge" $mode "$registry" "$@" >"forged.$forged.out" 2>&1 &
	pid=$!
	started="$started $pid"
	wait_for_line $pid "forged.$forged.out" ready
}
forged_process() {
	forged serve "$@"
}

# a_profile FILE - a small finished profile, written by root.
a_profile() {
	SPPROF_OUTPUT=$1 SPPROF_SAMPLING_RATE=1 LD_PRELOAD=$runtime_so \
		/bin/ls / >/dev/null || fail "cannot make a profile"
}

# blocked PID - true when a thread of PID waits to open a FIFO (no
# progress until someone opens its other end).
blocked() {
	cat /proc/$1/task/*/wchan 2>/dev/null | grep -q 'wait_for_partner\|fifo_open'
}

# finishes COMMAND... - runs COMMAND in the background; fails when it, or
# the server, stops making progress in the open() of a FIFO, else
# returns its exit status (its output in finishes.out).
finishes() {
	"$@" >finishes.out 2>&1 &
	running=$!
	while kill -0 $running 2>/dev/null; do
		if blocked $running || { [ -n "$server" ] && blocked $server; }; then
			kill -KILL $running
			fail "'$*' waits forever to open a FIFO"
		fi
		sleep 0.2
	done
	wait $running
}
