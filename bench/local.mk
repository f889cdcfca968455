## Benchmarks (not run by make check).
##
## `make bench` builds the workload and the measuring launcher, then runs
## bench/run-bench.sh against the freshly built runtime.  Neither program
## is built by `make` or `make check`.

# No other component builds programs on demand, so the list starts here.
EXTRA_PROGRAMS = bench/workload bench/workload-nofp bench/bench-run \
	bench/stream-grower bench/pool-reports
bench_workload_SOURCES = bench/workload.c bench/cli.c bench/cli.h
bench_workload_CFLAGS = $(AM_CFLAGS) -O2 -pthread
bench_workload_LDFLAGS = -pthread
# The same load built as distributions build programs: no frame pointers.
bench_workload_nofp_SOURCES = $(bench_workload_SOURCES)
bench_workload_nofp_CFLAGS = $(AM_CFLAGS) -O2 -pthread -fomit-frame-pointer
bench_workload_nofp_LDFLAGS = -pthread
bench_bench_run_SOURCES = bench/bench-run.c bench/cli.c bench/cli.h
bench_stream_grower_SOURCES = bench/stream-grower.c
CLEANFILES += bench/workload$(EXEEXT) bench/workload-nofp$(EXEEXT) \
	bench/bench-run$(EXEEXT) bench/stream-grower$(EXEEXT) \
	bench/pool-reports$(EXEEXT)
EXTRA_DIST += bench/run-bench.sh bench/forward-only.c bench/serve-bench.sh

# A preload that only forwards the malloc family: the floor that any
# preloaded profiler stands on.  Built by hand, as automake has no rule for
# a shared object that is neither installed nor a convenience library.
bench/forward-only.so: bench/forward-only.c
	$(AM_V_CC)$(CC) $(AM_CFLAGS) $(CFLAGS) -O2 -fno-plt -fPIC -shared \
		-o $@ $(srcdir)/bench/forward-only.c
CLEANFILES += bench/forward-only.so

BENCH_RUNTIME = $(abs_top_builddir)/lib/.libs/libspprof-alloc.so.0

.PHONY: bench
bench: bench/workload$(EXEEXT) bench/workload-nofp$(EXEEXT) \
		bench/bench-run$(EXEEXT) bench/forward-only.so \
		lib/libspprof-alloc.la src/memprof-ctl$(EXEEXT) \
		src/memprof-wrap$(EXEEXT) bench/stream-grower$(EXEEXT)
	$(SHELL) $(srcdir)/bench/run-bench.sh $(BENCH_RUNTIME) \
		$(abs_top_builddir)/bench
	$(SHELL) $(srcdir)/bench/serve-bench.sh $(abs_top_builddir)
	$(SHELL) $(srcdir)/bench/rss-at-rate-1.sh $(abs_top_builddir) \
		$(abs_top_srcdir)

# Peak resident memory of ruby and redis-server at -r 1 against bare
# (also the last part of `make bench`).
EXTRA_DIST += bench/rss-at-rate-1.sh
bench-rss: lib/libspprof-alloc.la src/memprof-wrap$(EXEEXT)
	$(SHELL) $(srcdir)/bench/rss-at-rate-1.sh $(abs_top_builddir) \
		$(abs_top_srcdir)
.PHONY: bench-rss

# Instructions per report of a pool's block (<spprof/memprof-pool.h>)
# without the runtime, dormant and recording, beside malloc's; the program
# is built with the header alone, as a user builds it.
bench_pool_reports_SOURCES = bench/pool-reports.c
bench_pool_reports_CFLAGS = $(AM_CFLAGS) -O2
bench_pool_reports_LDADD = $(DLSYM_LIBS)
EXTRA_DIST += bench/pool-reports.sh
bench-pool: bench/pool-reports$(EXEEXT) lib/libspprof-alloc.la
	$(SHELL) $(srcdir)/bench/pool-reports.sh $(BENCH_RUNTIME) \
		$(abs_top_builddir)/bench/pool-reports$(EXEEXT)
.PHONY: bench-pool

# Time to a report against heaptrack_print, each on its own recording.
EXTRA_DIST += bench/report-vs-heaptrack.sh
report-vs-heaptrack: bench/workload$(EXEEXT) lib/libspprof-alloc.la \
		src/memprof-report$(EXEEXT)
	$(SHELL) $(srcdir)/bench/report-vs-heaptrack.sh $(BENCH_OPS)
.PHONY: report-vs-heaptrack

# How often memprof-report --base calls a site changed when nothing did,
# and when one did (memprof-report(1)).
EXTRA_DIST += bench/compare-rates.sh
compare-rates: lib/libspprof-alloc.la src/memprof-report$(EXEEXT) \
		tests/report/trend-program$(EXEEXT)
	$(SHELL) $(srcdir)/bench/compare-rates.sh $(COMPARE_PAIRS)
.PHONY: compare-rates

# The cost of a scrape of memprof-ctl serve against the length of the
# stream (also a part of `make bench`).
serve-bench: bench/stream-grower$(EXEEXT) lib/libspprof-alloc.la \
		src/memprof-ctl$(EXEEXT)
	$(SHELL) $(srcdir)/bench/serve-bench.sh $(abs_top_builddir) $(SERVE_BENCH_MIB)
.PHONY: serve-bench

# The coverage of the intervals of --temporary, --group-by thread and
# --histogram over many runs (the figures of memprof-report(1)).
EXTRA_DIST += bench/blocks-coverage.sh
blocks-coverage: tests/report/blocks-program$(EXEEXT) \
		lib/libspprof-alloc.la src/memprof-report$(EXEEXT)
	srcdir=$(srcdir) $(SHELL) $(srcdir)/bench/blocks-coverage.sh $(BENCH_RUNS)
.PHONY: blocks-coverage
