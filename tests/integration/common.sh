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

# run_preloaded SECONDS PROGRAM ARGS... - runs PROGRAM (not timeout
# itself) under the runtime, with the SPPROF_* settings the caller
# exported; fails on a non-zero exit or a timeout (SECONDS on the real
# processor, longer under an emulator).
run_preloaded() {
	limit=$(($1 * slowdown))
	shift
	timeout "$limit" env LD_PRELOAD="$runtime_so" "$@" ||
		fail "'$*' under LD_PRELOAD exited with status $?"
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
