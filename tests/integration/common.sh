# common.sh - shared by the integration test drivers (sourced, not run).
#
# The build directory comes from the test environment (abs_top_builddir);
# each driver gets a fresh scratch directory, removed when it passes and
# kept for inspection when it fails.

: "${abs_top_builddir:?abs_top_builddir must name the build directory}"
. "$(dirname "$0")/../emulation.sh"

integ_bin=$abs_top_builddir/tests/integration
runtime_so=$abs_top_builddir/lib/.libs/libspprof-alloc.so.0
test_name=$(basename "$0" .sh)
scratch=$abs_top_builddir/tests/integration/$test_name.dir

# Nothing from the caller's environment may configure the runtime.
unset SPPROF_OUTPUT SPPROF_SAMPLING_RATE SPPROF_FOLLOW_FORK SPPROF_MANIFEST \
	SPPROF_STACK_TABLE_MAX SPPROF_ROOT_PID SPPROF_SECCOMP_FILTERS MALLOC_PERTURB_ GLIBC_TUNABLES

rm -rf "$scratch"
mkdir -p "$scratch"

fail() {
	echo "FAIL: $test_name: $*" >&2
	echo "(files kept in $scratch)" >&2
	exit 1
}

# run_preloaded SECONDS PROGRAM ARGS... - runs PROGRAM under the
# runtime, with the SPPROF_* settings the caller exported and no standard
# input; fails on a non-zero exit, or when it hangs: when it has made no
# progress for SECONDS (longer under an emulator; see watch_progress).
run_preloaded() {
	limit=$(($1 * slowdown))
	shift
	env LD_PRELOAD="$runtime_so" "$@" &
	watch_progress $! "$limit" ||
		fail "'$*' under LD_PRELOAD exited with status $?"
}

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
		elif [ $((still += 1)) -ge $(($2 * 5)) ]; then
			echo "no progress for $2 s: killed" >&2
			# shellcheck disable=SC2046 # one pid a word
			kill -KILL $(process_tree "$1" | cut -d' ' -f1) 2>/dev/null
			wait "$1"
			return 124
		fi
		sleep 0.2
	done
	wait "$1"
}

# check_profile ARGS... - runs the profile checker (see mlyze-check.c).
check_profile() {
	"$integ_bin/mlyze-check" "$@" || fail "profile check failed: $*"
}

# The names of the files in directory $1, one per line, sorted.
files_in() {
	(cd "$1" && ls -A | LC_ALL=C sort)
}

pass() {
	rm -rf "$scratch"
	echo "PASS: $test_name"
	exit 0
}

# skip WHY... - the test cannot run here: says why and, like a test that
# passes, leaves nothing behind (make distcheck looks).
skip() {
	rm -rf "$scratch"
	echo "SKIP: $test_name: $*"
	exit 77
}
