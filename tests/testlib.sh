# testlib.sh - what every test script shares (sourced, not run): where
# the build tree's runtime is, an environment that does not configure it,
# and hangs told by lack of progress rather than by a clock.
#
# Sourced from the top build directory (automake runs tests there) or with
# abs_top_builddir set.  It gives:
#   runtime_so            the build tree's libspprof-alloc.so.0
#   need_runtime          skips the test (exit 77) when it is not built
#   watched SECONDS CMD   runs CMD, killing it (status 124) once it and
#                         what it started have used no processor time for
#                         SECONDS on end (longer under an emulator)
#   watch_progress PID SECONDS, process_tree PID
# and emulation.sh's emulator, slowdown and skipped_under_emulation.

testlib_builddir=${abs_top_builddir:-$PWD}
# Every test script lives in a folder of tests/, beside emulation.sh.
. "$(dirname "$0")/../emulation.sh"

runtime_so=$testlib_builddir/lib/.libs/libspprof-alloc.so.0

need_runtime() {
	[ -f "$runtime_so" ] && return
	echo "SKIP: $runtime_so not built"
	exit 77
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

# watch_progress PID SECONDS - waits for the background job PID and
# returns its exit status.  A job that, with the processes it started,
# has used no processor time for SECONDS on end is hung (a deadlock
# sleeps): it is killed, with what it started, and the status is 124, as
# timeout(1) gives.  A loaded machine slows a job down but does not stop
# it, so this holds however long the job takes.
watch_progress() {
	last= still=0
	while kill -0 "$1" 2>/dev/null &&
		[ "$(sed -n 's/^.*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)" != Z ]; do
		now=$(process_tree "$1" | awk '{ t += $2 } END { print t + 0 }')
		if [ "$now" != "$last" ]; then
			last=$now still=0
		elif [ $((still += 1)) -ge $(($2 * slowdown * 5)) ]; then
			echo "no progress for $(($2 * slowdown)) s: killed" >&2
			# shellcheck disable=SC2046 # one pid a word
			kill -KILL $(process_tree "$1" | cut -d' ' -f1) 2>/dev/null
			wait "$1"
			return 124
		fi
		sleep 0.2
	done
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
