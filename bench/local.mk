## Benchmarks (not run by make check).
##
## The workload and the measuring launcher are built on demand only,
## never by `make` or `make check`.

# No other component builds programs on demand, so the list starts here.
EXTRA_PROGRAMS = bench/workload bench/bench-run
bench_workload_SOURCES = bench/workload.c bench/cli.c bench/cli.h
bench_workload_CFLAGS = $(AM_CFLAGS) -O2 -pthread
bench_workload_LDFLAGS = -pthread
bench_bench_run_SOURCES = bench/bench-run.c bench/cli.c bench/cli.h
CLEANFILES += bench/workload$(EXEEXT) bench/bench-run$(EXEEXT)
