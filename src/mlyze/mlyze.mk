## libmlyze: the profile reader, an installed library.

lib_LTLIBRARIES += src/mlyze/libmlyze.la
spprofinclude_HEADERS += include/spprof/mlyze.h include/spprof/mlyze-events.def
# The reader's C files, also compiled into the fuzz target (tests/report.mk).
MLYZE_READER_C = \
	src/mlyze/mlyze-input.c \
	src/mlyze/mlyze-metadata.c \
	src/mlyze/mlyze-reader.c \
	src/mlyze/mlyze-symbols.c \
	src/mlyze/mlyze-tables.c \
	src/mlyze/mlyze-weights.c \
	src/mlyze/u64map.c
src_mlyze_libmlyze_la_SOURCES = $(MLYZE_READER_C) \
	src/mlyze/mlyze-input.h src/mlyze/mlyze-internal.h src/mlyze/mlyze-stats.h \
	src/mlyze/u64map.h
src_mlyze_libmlyze_la_CPPFLAGS = $(AM_CPPFLAGS) -DMLYZE_BUILDING_LIBRARY
src_mlyze_libmlyze_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden \
	$(JANSSON_CFLAGS)
src_mlyze_libmlyze_la_LIBADD = $(JANSSON_LIBS) -lm
src_mlyze_libmlyze_la_LDFLAGS = -version-info 0:0:0 -no-undefined

dist_man_MANS += man/mlyze.5
