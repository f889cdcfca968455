#!/bin/sh
# Golden tests of memprof-report: compile the profiles of profiles/*.txt
# and malformed/*.txt, run every case of golden/*.args in a scratch
# directory (so file names in the output are stable) and compare stdout,
# stderr and the exit status with golden/CASE.out, golden/CASE.err (empty
# when absent) and golden/CASE.status (0 when absent).
# With UPDATE_GOLDEN=1, write the expected files instead.
set -u
. "${srcdir:-.}/tests/report/common.sh"

for script in "$here"/profiles/*.txt "$here"/malformed/*.txt; do
	"$gen" compile "$script" "$scratch/$(basename "$script" .txt).mlyze" ||
		exit 99
done

# The sentence of the note on code without symbols that only a build with
# libdebuginfod writes, as a sed pattern.
debuginfod_hint=' Setting DEBUGINFOD_URLS (.*) lets memprof-report fetch them by build-id\.'

for args in "$here"/golden/*.args; do
	name=$(basename "$args" .args)
	expected_out=$here/golden/$name.out
	expected_err=$here/golden/$name.err
	(cd "$scratch" && NO_COLOR=1 "$report" $(cat "$args") \
		>"$name.raw" 2>"$name.stderr")
	status=$?
	# What a build with libdebuginfod adds is checked below: the
	# expected files are those of every build.
	sed "s/$debuginfod_hint//" "$scratch/$name.raw" >"$scratch/$name.stdout"
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$scratch/$name.stdout" "$expected_out"
		if [ -s "$scratch/$name.stderr" ]; then
			cp "$scratch/$name.stderr" "$expected_err"
		else
			rm -f "$expected_err"
		fi
	fi
	[ -f "$expected_err" ] || expected_err=/dev/null
	expected_status=0
	[ -f "$here/golden/$name.status" ] &&
		expected_status=$(cat "$here/golden/$name.status")
	[ "$status" -eq "$expected_status" ] &&
		diff -u "$expected_out" "$scratch/$name.stdout" &&
		diff -u "$expected_err" "$scratch/$name.stderr"
	verdict "$name" $? "(exit status $status)"
done
# That note says that DEBUGINFOD_URLS would fetch the symbols exactly when
# memprof-report can ask a debuginfod server (the tests unset it).
hinted=0
grep -q "$debuginfod_hint" "$scratch/symbolized.raw" && hinted=1
built=0
ldd "$(dirname "$report")/.libs/memprof-report" 2>/dev/null |
	grep -q libdebuginfod && built=1
[ "$hinted" -eq "$built" ]
verdict "the note names DEBUGINFOD_URLS in a build with libdebuginfod" $? \
	"(built with it: $built; $(grep 'no symbols' "$scratch/symbolized.raw"))"
[ "$failures" -eq 0 ]
