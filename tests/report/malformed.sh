#!/bin/sh
# Malformed profiles: every malformed/CASE.txt is compiled into CASE.mlyze
# and read by memprof-report.  A "# error: MESSAGE" line expects exit
# status 2 and exactly "memprof-report: CASE.mlyze: MESSAGE" on stderr;
# "# warning: MESSAGE" lines expect exit status 0 and exactly those
# warnings ("memprof-report: warning: CASE.mlyze: MESSAGE").
set -u
. "${srcdir:-.}/tests/report/common.sh"

for script in "$here"/malformed/*.txt; do
	name=$(basename "$script" .txt)
	profile=$name.mlyze
	"$gen" compile "$script" "$scratch/$profile" || exit 99
	sed -n "s/^# error: \(.*\)/memprof-report: $profile: \1/p" \
		"$script" >"$scratch/$name.expected"
	expected_status=2
	if [ ! -s "$scratch/$name.expected" ]; then
		expected_status=0
		sed -n "s/^# warning: \(.*\)/memprof-report: warning: $profile: \1/p" \
			"$script" >"$scratch/$name.expected"
	fi
	(cd "$scratch" && "$report" "$profile" >/dev/null 2>"$name.stderr")
	status=$?
	[ "$status" -eq "$expected_status" ] &&
		diff -u "$scratch/$name.expected" "$scratch/$name.stderr"
	verdict "$name" $? "(exit status $status, expected $expected_status)"
done
[ "$failures" -eq 0 ]
