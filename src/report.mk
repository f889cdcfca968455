## libmlyze (the profile reader) and memprof-report.

lib_LTLIBRARIES += src/libmlyze.la
spprofinclude_HEADERS += include/spprof/mlyze.h
src_libmlyze_la_SOURCES = \
	src/mlyze-internal.h \
	src/mlyze-metadata.c \
	src/mlyze-reader.c \
	src/mlyze-tables.c \
	src/mlyze-weights.c \
	src/u64map.c \
	src/u64map.h
src_libmlyze_la_CPPFLAGS = $(AM_CPPFLAGS) -DMLYZE_BUILDING_LIBRARY
src_libmlyze_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(JANSSON_CFLAGS)
src_libmlyze_la_LIBADD = $(JANSSON_LIBS) -lm
src_libmlyze_la_LDFLAGS = -version-info 0:0:0 -no-undefined

