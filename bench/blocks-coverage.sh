#!/bin/sh
# blocks-coverage.sh - the coverage of the 95 % intervals of --temporary,
# --group-by thread and --histogram, over many seeded runs of a program
# whose truth is known (tests/report/blocks-program: a site that allocates
# and frees 1 GiB in short-lived blocks, one that holds 64 MiB, two named
# threads that churn 256 MiB and hold 32 MiB, sizes from 16 bytes to 64
# KiB).  The figures are those of memprof-report(1).
#
# Run from the build directory (make blocks-coverage):
#     sh SRCDIR/bench/blocks-coverage.sh [RUNS]    (default 100)
# About 2 s a run on an idle machine.
set -eu
runs=${1:-100}
srcdir=${srcdir:-$(dirname "$0")/..}
. "$srcdir/tests/report/blocks-common.sh"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/blocks-coverage.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT

blocks_runs "$PWD/lib/.libs/libspprof-alloc.so.0" \
	"$PWD/tests/report/blocks-program" "$PWD/src/memprof-report" \
	"$scratch" "$runs" 1
echo "Over $runs runs at the default rate:"
python3 "$srcdir/tests/report/blocks-coverage.py" "$scratch" "$runs"
