#!/bin/sh
# corpus.sh - runs every fuzz target (FUZZ_TARGETS, tests/fuzz/fuzz.mk) on
# each input of its checked-in corpus, through its corpus runner: no input
# may crash it or make a sanitizer report (where the runners have them).
srcdir=${srcdir:-.}
: "${FUZZ_TARGETS:?FUZZ_TARGETS must list the fuzz targets}"
status=0
for entry in $FUZZ_TARGETS; do
	name=${entry%%:*}
	corpus=$srcdir/tests/fuzz/corpus/$name
	if [ -z "$(ls "$corpus" 2>/dev/null)" ]; then
		echo "FAIL: $name: no corpus in $corpus"
		status=1
		continue
	fi
	if ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"tests/fuzz/run-$name" "$corpus" >"tests/fuzz/$name.out" 2>&1; then
		echo "PASS: $name: $(tail -1 "tests/fuzz/$name.out")"
	else
		echo "FAIL: $name:"
		sed 's/^/  /' "tests/fuzz/$name.out"
		status=1
	fi
done
exit $status
