# common.sh - shared by the integration test drivers (sourced, not run).
#
# The build directory comes from the test environment (abs_top_builddir);
# each driver gets a fresh scratch directory (make_scratch: removed when it
# passes, kept for inspection when it fails).

: "${abs_top_builddir:?abs_top_builddir must name the build directory}"
. "$(dirname "$0")/../testlib.sh"

integ_bin=$abs_top_builddir/tests/integration
test_name=$(basename "$0" .sh)
make_scratch

fail() {
	echo "FAIL: $test_name: $*" >&2
	exit 1
}

# run_preloaded SECONDS PROGRAM ARGS... - runs PROGRAM under the
# runtime, with the SPPROF_* settings the caller exported and no standard
# input; fails on a non-zero exit, or when it hangs: when it has made no
# progress for SECONDS (longer under an emulator; see watch_progress).
run_preloaded() {
	limit=$1
	shift
	watched "$limit" under_runtime "$@" ||
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
	echo "PASS: $test_name"
	exit 0
}

# skip WHY... - the test cannot run here: says why and, like a test that
# passes, leaves nothing behind (make distcheck looks).
skip() {
	echo "SKIP: $test_name: $*"
	exit 77
}
