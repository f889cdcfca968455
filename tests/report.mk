## Tests of libmlyze and memprof-report.

check_PROGRAMS += tests/report/mlyze-gen
tests_report_mlyze_gen_SOURCES = tests/report/mlyze-gen.c \
	tests/report/mlyze-script.c tests/report/mlyze-script.h
tests_report_mlyze_gen_LDADD = -lm

if HAVE_CHECK
check_PROGRAMS += tests/report/check-reader
TESTS += tests/report/check-reader
tests_report_check_reader_SOURCES = tests/report/check-reader.c \
	tests/report/mlyze-script.c tests/report/mlyze-script.h
# mlyze-stats.h from libmlyze's folder.
tests_report_check_reader_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/src/mlyze
tests_report_check_reader_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_report_check_reader_LDADD = src/mlyze/libmlyze.la $(CHECK_LIBS) -lm

check_PROGRAMS += tests/report/check-heap
TESTS += tests/report/check-heap
tests_report_check_heap_SOURCES = tests/report/check-heap.c \
	tests/unit/suite-main.c \
	tests/report/mlyze-script.c tests/report/mlyze-script.h
tests_report_check_heap_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/src/report -I$(top_srcdir)/src/mlyze \
	-I$(top_srcdir)/src/symbolizer
tests_report_check_heap_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_report_check_heap_LDADD = $(REPORT_ENGINE_LIBS) $(CHECK_LIBS) -lm

check_PROGRAMS += tests/report/check-metrics
TESTS += tests/report/check-metrics
tests_report_check_metrics_SOURCES = tests/report/check-metrics.c \
	tests/unit/suite-main.c $(SCRATCH_DIR_SOURCES) \
	tests/report/mlyze-script.c tests/report/mlyze-script.h \
	src/ctl/ctl-metrics.c src/ctl/ctl-metrics.h \
	src/ctl/ctl-sites.c src/ctl/ctl-sites.h \
	src/ctl/ctl-follow.c src/ctl/ctl-follow.h \
	src/ctl/ctl-service.c src/ctl/ctl-service.h \
	src/ctl/ctl-summary.c src/ctl/ctl-summary.h \
	src/ctl/ctl-stream.c src/ctl/ctl-stream.h \
	src/ctl/ctl-user.c src/ctl/ctl-user.h \
	src/ctl/ctl-text.c src/ctl/ctl-text.h \
	common/process_start.c common/process_start.h
tests_report_check_metrics_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/ctl \
	-I$(top_srcdir)/src/report -I$(top_srcdir)/src/mlyze \
	-I$(top_srcdir)/src/symbolizer \
	-I$(top_srcdir)/tests/unit -I$(top_srcdir)/tests/report
tests_report_check_metrics_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_report_check_metrics_LDADD = $(REPORT_ENGINE_LIBS) $(CHECK_LIBS) -lm

check_PROGRAMS += tests/report/check-protobuf
TESTS += tests/report/check-protobuf
tests_report_check_protobuf_SOURCES = tests/report/check-protobuf.c \
	tests/unit/suite-main.c
tests_report_check_protobuf_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/src/report
tests_report_check_protobuf_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_report_check_protobuf_LDADD = src/report/libreport.la $(CHECK_LIBS) -lm
endif

# A program with a known heap, profiled by the runtime in runtime.sh.
check_PROGRAMS += tests/report/alloc-program
tests_report_alloc_program_SOURCES = tests/report/alloc-program.c \
	tests/report/site.h
# One that allocates in main, whose stacks are short but complete.
check_PROGRAMS += tests/report/flat-program
tests_report_flat_program_SOURCES = tests/report/flat-program.c
# One that allocates in inlined C++ code, built as distributions build it.
check_PROGRAMS += tests/report/inline-program
tests_report_inline_program_SOURCES = tests/report/inline-program.cc
tests_report_inline_program_CXXFLAGS = -O2 -g -fomit-frame-pointer
# One whose blocks come from a static helper of an exported function,
# which keeps its name when the program is stripped.
check_PROGRAMS += tests/report/helper-program
tests_report_helper_program_SOURCES = tests/report/helper-program.c \
	tests/report/site.h
tests_report_helper_program_LDFLAGS = -rdynamic
# One whose stacks break in its own code: no unwind tables, no frame
# pointers.
check_PROGRAMS += tests/report/unwindless-program
tests_report_unwindless_program_SOURCES = tests/report/unwindless-program.c \
	tests/report/site.h
tests_report_unwindless_program_CFLAGS = $(AM_CFLAGS) \
	-fno-asynchronous-unwind-tables -fno-unwind-tables \
	-fomit-frame-pointer
# One that allocates through allocation wrappers.
check_PROGRAMS += tests/report/wrapper-program
tests_report_wrapper_program_SOURCES = tests/report/wrapper-program.c \
	tests/report/site.h
# One workload in two windows, whose wrappers must not flip.
check_PROGRAMS += tests/report/window-program
tests_report_window_program_SOURCES = tests/report/window-program.c \
	tests/report/site.h
# One that holds most of its memory outside malloc.
check_PROGRAMS += tests/report/unseen-program
tests_report_unseen_program_SOURCES = tests/report/unseen-program.c \
	tests/report/site.h
# Heaps whose resident memory the readings alone misjudge.
check_PROGRAMS += tests/report/resident-program
tests_report_resident_program_SOURCES = tests/report/resident-program.c \
	tests/report/site.h
# A heap that holds one level while its blocks are replaced, for peak.sh.
check_PROGRAMS += tests/report/rotating-program
tests_report_rotating_program_SOURCES = tests/report/rotating-program.c
tests_report_rotating_program_CFLAGS = $(AM_CFLAGS) \
	-fno-optimize-sibling-calls
tests_report_rotating_program_LDADD = -lpthread
# Temporary blocks, threads and sizes that are known, for blocks.sh.
check_PROGRAMS += tests/report/blocks-program
tests_report_blocks_program_SOURCES = tests/report/blocks-program.c \
	tests/report/site.h
tests_report_blocks_program_CFLAGS = $(AM_CFLAGS) \
	-fno-optimize-sibling-calls
tests_report_blocks_program_LDADD = -lpthread
# Heaps whose changes are known, for compare.sh, leaks.sh and seed.sh.
check_PROGRAMS += tests/report/trend-program
tests_report_trend_program_SOURCES = tests/report/trend-program.c
tests_report_trend_program_LDADD = -ldl

REPORT_SHELL_TESTS = \
	tests/report/blocks.sh \
	tests/report/compare.sh \
	tests/report/deep-stack.sh \
	tests/report/exports.sh \
	tests/report/golden.sh \
	tests/report/html.sh \
	tests/report/json-leak.sh \
	tests/report/leaks.sh \
	tests/report/moments.sh \
	tests/report/malformed.sh \
	tests/report/mutations.sh \
	tests/report/outputs.sh \
	tests/report/peak.sh \
	tests/report/runtime.sh \
	tests/report/seed.sh \
	tests/report/suppressions.sh \
	tests/report/cross-arch.sh
TESTS += $(REPORT_SHELL_TESTS)
EXTRA_DIST += $(REPORT_SHELL_TESTS) \
	tests/report/arch \
	tests/report/arch-record.sh \
	tests/report/blocks-common.sh \
	tests/report/blocks-coverage.py \
	tests/report/common.sh \
	tests/report/trend-common.sh \
	tests/report/exports \
	tests/report/runtime \
	tests/report/golden \
	tests/report/html \
	tests/report/malformed \
	tests/report/profiles

# Whether the sources changed any output of memprof-report or mlyze-gen
# since the git revision OLD, which it builds in a scratch worktree: not
# part of make check.
EXTRA_DIST += tests/report/compare-outputs.sh
compare-outputs: src/memprof-report$(EXEEXT) tests/report/mlyze-gen$(EXEEXT)
	$(SHELL) $(srcdir)/tests/report/compare-outputs.sh --rev="$(OLD)" .
.PHONY: compare-outputs
