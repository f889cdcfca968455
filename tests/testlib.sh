# testlib.sh - what every test script shares (sourced, not run): where
# the build tree's runtime is, an environment that does not configure it,
# and hangs told by lack of progress rather than by a clock.
#
# Sourced from the top build directory (automake runs tests there) or with
# abs_top_builddir set.  It gives:
#   runtime_so            the build tree's libspprof-alloc.so.0
#   need_runtime          skips the test (exit 77) when it is not built
#   under_runtime CMD     runs CMD under that runtime
#   start_under_runtime CMD   the same in the background, its pid in
#                         $started_pid
#   make_scratch          the test's scratch directory in $scratch
#   at_exit COMMAND       runs COMMAND when the test ends
#   watched SECONDS CMD   runs CMD, killing it (status 124) once it and
#                         what it started have used no processor time for
#                         SECONDS on end (longer under an emulator)
#   wait_for PID SECONDS CMD   runs CMD until it succeeds, while process
#                         PID goes on
#   watch_progress PID SECONDS, process_tree PID
# and emulation.sh's emulator, slowdown and skipped_under_emulation.

testlib_builddir=${abs_top_builddir:-$PWD}
# Every test script lives in a folder of tests/, beside emulation.sh; a
# script elsewhere (bench/) names tests/ in testlib_dir.
. "${testlib_dir:-$(dirname "$0")/..}/emulation.sh"

runtime_so=$testlib_builddir/lib/.libs/libspprof-alloc.so.0

need_runtime() {
	[ -f "$runtime_so" ] && return
	echo "SKIP: $runtime_so not built"
	exit 77
}

# under_runtime COMMAND... - runs COMMAND under the build tree's runtime,
# configured by the SPPROF_* settings exported or given before it as
# NAME=VALUE words.
under_runtime() {
	env LD_PRELOAD="$runtime_so" "$@"
}

# start_under_runtime COMMAND... - the same in the background (standard
# input closed); $started_pid is the program's own pid, the one memprof-ctl
# names it by.
start_under_runtime() {
	env LD_PRELOAD="$runtime_so" "$@" &
	started_pid=$!
}

# at_exit COMMAND - shell text that runs when the test ends, whatever its
# status (in $exit_status), before the text added before it.  A test adds
# to it rather than setting an EXIT trap of its own, which would take the
# place of the others.
testlib_at_exit=
at_exit() {
	testlib_at_exit="$1
$testlib_at_exit"
}
trap 'exit_status=$?
	eval "$testlib_at_exit"' EXIT

# make_scratch - $scratch, a fresh directory of the test's own in the build
# tree (tests/SUITE/NAME.dir), removed when the test passes or is skipped
# and kept for inspection when it fails.
make_scratch() {
	scratch=$testlib_builddir/tests/$(basename "$(dirname "$0")")/$(basename "$0" .sh).dir
	rm -rf "$scratch"
	mkdir -p "$scratch" || exit 99
	at_exit 'case $exit_status in
	0 | 77) rm -rf "$scratch" ;;
	*) echo "(files kept in $scratch)" >&2 ;;
	esac'
}

# Nothing from the caller's environment may configure the runtime or the
# C library's allocator under test; the knobs of the tests themselves
# (SPPROF_TEST_*) stay.
for testlib_variable in $(env | sed -n 's/^\(SPPROF_[A-Za-z0-9_]*\)=.*/\1/p'); do
	case $testlib_variable in
	SPPROF_TEST_*) ;;
	*) unset "$testlib_variable" ;;
	esac
done
unset testlib_variable MALLOC_PERTURB_ GLIBC_TUNABLES

# process_tree PID - "pid ticks" for PID and every process under it, ticks
# being the processor time it and the children it reaped have used.
process_tree() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" '
		{
			pid = $1
			sub(/^.*\) /, "") # the command name may hold spaces
			parent[pid] = $2
			ticks[pid] = $12 + $13 + $14 + $15
		}
		END {
			for (p in parent) {
				for (q = p; q != root && q > 1; q = parent[q])
					;
				if (q == root)
					print p, ticks[p]
			}
		}'
}

# testlib_poll PID SECONDS COMMAND... - runs COMMAND every 0.2 s while
# PID runs: 0 as soon as it succeeds, 1 when PID has ended, 124 when PID,
# with the processes it started, has used no processor time for SECONDS
# on end (a deadlock sleeps).  A loaded machine slows a process down but
# does not stop it, so this holds however long it takes.
testlib_poll() {
	testlib_pid=$1 testlib_limit=$(($2 * slowdown))
	shift 2
	testlib_ticks= testlib_still=0
	while kill -0 "$testlib_pid" 2>/dev/null &&
		[ "$(sed -n 's/^.*) \(.\).*/\1/p' "/proc/$testlib_pid/stat" 2>/dev/null)" != Z ]; do
		"$@" && return 0
		testlib_now=$(process_tree "$testlib_pid" | awk '{ t += $2 } END { print t + 0 }')
		if [ "$testlib_now" != "$testlib_ticks" ]; then
			testlib_ticks=$testlib_now testlib_still=0
		elif [ $((testlib_still += 1)) -ge $((testlib_limit * 5)) ]; then
			return 124
		fi
		sleep 0.2
	done
	return 1
}

# watch_progress PID SECONDS - waits for the background job PID and
# returns its exit status; a job that made no progress for SECONDS (see
# testlib_poll) is killed, with what it started, and the status is 124,
# as timeout(1) gives.
watch_progress() {
	testlib_status=0
	testlib_poll "$1" "$2" false || testlib_status=$?
	if [ $testlib_status -eq 124 ]; then
		echo "no progress for $(($2 * slowdown)) s: killed" >&2
		# shellcheck disable=SC2046 # one pid a word
		kill -KILL $(process_tree "$1" | cut -d' ' -f1) 2>/dev/null
		wait "$1"
		return 124
	fi
	wait "$1"
}

# watched SECONDS COMMAND... - runs COMMAND (its standard input closed, as
# a background job's is) and returns its status, or 124 when it hung.
watched() {
	testlib_limit=$1
	shift
	"$@" </dev/null &
	watch_progress $! "$testlib_limit"
}

# wait_for PID SECONDS COMMAND... - runs COMMAND (a test: grep -q, [ -s
# FILE ]...) until it succeeds, while process PID, which is to make it
# true (write the line, the file...), goes on.  Fails when PID ends
# without having made it true, or when PID has made no progress for
# SECONDS (see testlib_poll): it would never make it true.
wait_for() {
	testlib_status=0
	testlib_poll "$@" || testlib_status=$?
	case $testlib_status in
	0) return 0 ;;
	124)
		echo "process $1 made no progress for $(($2 * slowdown)) s" >&2
		return 1
		;;
	esac
	shift 2
	"$@" && return 0 # it made it true just before it ended
	echo "process $testlib_pid ended" >&2
	return 1
}
