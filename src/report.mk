## libmlyze (the profile reader) and memprof-report.

lib_LTLIBRARIES += src/libmlyze.la
spprofinclude_HEADERS += include/spprof/mlyze.h
# The reader's C files, also compiled into the fuzz target (tests/report.mk).
MLYZE_READER_C = \
	src/mlyze-metadata.c \
	src/mlyze-reader.c \
	src/mlyze-tables.c \
	src/mlyze-weights.c \
	src/u64map.c
src_libmlyze_la_SOURCES = $(MLYZE_READER_C) src/mlyze-internal.h src/u64map.h
src_libmlyze_la_CPPFLAGS = $(AM_CPPFLAGS) -DMLYZE_BUILDING_LIBRARY
src_libmlyze_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(JANSSON_CFLAGS)
src_libmlyze_la_LIBADD = $(JANSSON_LIBS) -lm
src_libmlyze_la_LDFLAGS = -version-info 0:0:0 -no-undefined

bin_PROGRAMS += src/memprof-report
src_memprof_report_SOURCES = \
	src/memprof-report.c \
	src/report-frames.c src/report-frames.h \
	src/report-heap.c src/report-heap.h \
	src/report-json.c \
	src/report-progress.c src/report-progress.h \
	src/report-sites.c src/report-sites.h \
	src/report-text.c \
	src/report-util.c src/report-util.h \
	src/report-view.h \
	src/u64map.c src/u64map.h
src_memprof_report_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
src_memprof_report_LDADD = src/libmlyze.la src/libsymbolizer.la \
	$(JANSSON_LIBS) -lm

dist_man_MANS += man/memprof-report.1 man/mlyze.5
EXTRA_DIST += bench/report-bench.sh
