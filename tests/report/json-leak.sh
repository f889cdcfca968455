#!/bin/sh
# memprof-report --format=json frees what it builds: a profile without
# memory readings once lost its empty "readings" array.  Run under
# valgrind (skipped without it): any memory definitely lost fails.
. "${srcdir:-.}/tests/report/common.sh"

if ! command -v valgrind >/dev/null 2>&1; then
	echo "SKIP: valgrind is not installed"
	exit 77
fi
# A profile of the test scripts' kind: no memory readings in it.
"$gen" compile "$here/profiles/damaged-stacks.txt" "$scratch/p.mlyze" ||
	exit 99
grep -q '^memory' "$here/profiles/damaged-stacks.txt" && exit 99
./libtool --mode=execute valgrind -q --leak-check=full \
	--errors-for-leak-kinds=definite --error-exitcode=3 \
	"$report" --format=json "$scratch/p.mlyze" \
	>"$scratch/p.json" 2>"$scratch/p.err"
status=$?
[ "$status" -eq 0 ] && grep -q '"resident": *null' "$scratch/p.json"
verdict "json without readings" $? \
	"(status $status: $(grep -A8 'definitely lost' "$scratch/p.err"))"
[ "$failures" -eq 0 ]
