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

for args in "$here"/golden/*.args; do
	name=$(basename "$args" .args)
	expected_out=$here/golden/$name.out
	expected_err=$here/golden/$name.err
	(cd "$scratch" && NO_COLOR=1 "$report" $(cat "$args") \
		>"$name.stdout" 2>"$name.stderr")
	status=$?
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
[ "$failures" -eq 0 ]
