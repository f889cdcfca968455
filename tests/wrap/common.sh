# common.sh - set-up shared by the memprof-wrap tests; sourced, not run.
#
# Automake runs the tests from the top build directory.  Every test runs
# in its scratch directory $work (make_scratch: removed when it passes,
# kept when it fails), where the profiles go, with the programs below and
# the fake runtime (see fake-runtime.c) unless it sets SPPROF_RUNTIME
# itself.

top_builddir=$(pwd)
top_srcdir=$(cd "${srcdir:-.}" && pwd) || exit 99
. "$top_srcdir/tests/testlib.sh"
wrap=$top_builddir/src/memprof-wrap
helpers=$top_builddir/tests/wrap
fake_runtime=$helpers/.libs/libwrap-fake-runtime.so
unset LD_PRELOAD FAKE_RUNTIME_LOG FAKE_RUNTIME_INERT
SPPROF_RUNTIME=$fake_runtime
export SPPROF_RUNTIME

make_scratch
work=$scratch
cd "$work" || exit 99

# use_real_runtime: the test runs the build tree's runtime, which
# memprof-wrap must find by itself; skipped when it is not built.
use_real_runtime() {
	runtime=$runtime_so
	need_runtime
	unset SPPROF_RUNTIME
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# run EXPECTED_STATUS COMMAND...: run COMMAND, its stdout in $work/out and
# its stderr in $work/err, and fail unless it exits with EXPECTED_STATUS.
run() {
	expected=$1
	shift
	"$@" >"$work/out" 2>"$work/err"
	status=$?
	if [ "$status" -ne "$expected" ]; then
		sed 's/^/  stderr: /' "$work/err" >&2
		fail "exit status $status instead of $expected: $*"
	fi
}

# expect_in FILE TEXT: fail unless FILE holds the fixed string TEXT.
expect_in() {
	grep -qF -e "$2" "$1" || {
		sed 's/^/  | /' "$1" >&2
		fail "'$2' not in $1"
	}
}

# expect_output TEXT: fail unless the last run's stdout is exactly TEXT.
expect_output() {
	printf '%s\n' "$1" >"$work/expected"
	cmp -s "$work/expected" "$work/out" || {
		diff "$work/expected" "$work/out" >&2
		fail "unexpected output"
	}
}
