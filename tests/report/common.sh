# common.sh - sourced by the test scripts of memprof-report: where things
# are, a scratch directory (make_scratch: removed when the test passes,
# kept when it fails), and the verdict of each case (and, from
# testlib.sh, the runtime and what runs it).
here=$(cd "${srcdir:-.}/tests/report" && pwd) || exit 99
. "$here/../testlib.sh"
gen=$PWD/tests/report/mlyze-gen
report=$PWD/src/memprof-report
make_scratch
failures=0

# verdict NAME OK [DETAIL]: count the case as failed unless OK is 0.
verdict() {
	if [ "$2" -eq 0 ]; then
		echo "ok: $1"
	else
		echo "FAIL: $1 ${3:-}"
		failures=$((failures + 1))
	fi
}

# python_with MODULE: prints a Python interpreter that imports MODULE
# ($PYTHON first), or nothing.
python_with() {
	for candidate in ${PYTHON:-} python3 /usr/bin/python3; do
		if "$candidate" -c "import $1" 2>/dev/null; then
			echo "$candidate"
			return
		fi
	done
}
