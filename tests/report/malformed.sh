#!/bin/sh
# Malformed profiles: every malformed/CASE.txt is compiled into CASE.mlyze
# and read by memprof-report.  Its "# warning: MESSAGE" and "# error:
# MESSAGE" lines, in order, are exactly what stderr must say
# ("memprof-report: warning: CASE.mlyze: MESSAGE", "memprof-report:
# CASE.mlyze: MESSAGE"); the exit status must be 2 with an error, else 0.
set -u
. "${srcdir:-.}/tests/report/common.sh"

for script in "$here"/malformed/*.txt; do
	name=$(basename "$script" .txt)
	profile=$name.mlyze
	"$gen" compile "$script" "$scratch/$profile" || exit 99
	sed -n -e "s/^# error: \(.*\)/memprof-report: $profile: \1/p" \
	    -e "s/^# warning: \(.*\)/memprof-report: warning: $profile: \1/p" \
		"$script" >"$scratch/$name.expected"
	expected_status=0
	grep -q '^# error: ' "$script" && expected_status=2
	(cd "$scratch" && "$report" "$profile" >/dev/null 2>"$name.stderr")
	status=$?
	[ "$status" -eq "$expected_status" ] &&
		diff -u "$scratch/$name.expected" "$scratch/$name.stderr"
	verdict "$name" $? "(exit status $status, expected $expected_status)"
done
[ "$failures" -eq 0 ]
