#!/bin/sh
# Where memprof-report writes: -o - is standard output for a view and for
# --symbolize, as for most tools, not a file named "-"; a binary profile
# (--symbolize, --format=pprof) is refused on a terminal (exit status 2)
# and written to a pipe or a file.
set -u
. "${srcdir:-.}/tests/report/common.sh"

"$gen" compile "$here/profiles/finalised.txt" "$scratch/p.mlyze" || exit 99
cd "$scratch" || exit 99

"$report" --symbolize -o symbolized.mlyze p.mlyze 2>/dev/null || exit 99
"$report" --symbolize -o - p.mlyze >dash.mlyze 2>/dev/null
[ $? -eq 0 ] && cmp -s symbolized.mlyze dash.mlyze && [ ! -e ./- ]
verdict "--symbolize -o - writes standard output" $?
rm -f ./-

NO_COLOR=1 "$report" p.mlyze >text.out 2>/dev/null || exit 99
NO_COLOR=1 "$report" -o - p.mlyze >dash.out 2>/dev/null
[ $? -eq 0 ] && cmp -s text.out dash.out && [ ! -e ./- ]
verdict "-o - writes the text view to standard output" $?
rm -f ./-

"$report" --format=pprof p.mlyze 2>/dev/null | gzip -t
verdict "--format=pprof is written to a pipe" $?

# script(1) gives the command a terminal for its standard output.
if ! script -qec true /dev/null >/dev/null 2>&1; then
	echo "no script(1): the terminal is not tested"
	[ "$failures" -eq 0 ]
	exit
fi
for option in --symbolize --format=pprof; do
	script -qec "'$report' $option p.mlyze 2>&1" /dev/null \
		>terminal.out 2>&1
	status=$?
	[ "$status" -eq 2 ] &&
		grep -q -- "$option writes a binary profile, not to a terminal" \
			terminal.out && ! grep -q 'MTRC' terminal.out
	verdict "$option refuses a terminal" $? \
		"(exit status $status: $(head -c 300 terminal.out))"
done
[ "$failures" -eq 0 ]
