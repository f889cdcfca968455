## memprof-wrap: runs a command under the profiler runtime.
## Its parts live in a convenience library so the unit tests can link them.

noinst_LTLIBRARIES += src/libmemprof-wrap.la
src_libmemprof_wrap_la_SOURCES = \
	src/wrap-child.c src/wrap-child.h \
	src/wrap-manifest.c src/wrap-manifest.h \
	src/wrap-options.c src/wrap-options.h \
	src/wrap-output.c src/wrap-output.h \
	src/wrap-target.c src/wrap-target.h \
	src/wrap-util.c src/wrap-util.h
src_libmemprof_wrap_la_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
src_libmemprof_wrap_la_LIBADD = $(LIBELF_LIBS)

bin_PROGRAMS += src/memprof-wrap
src_memprof_wrap_SOURCES = src/memprof-wrap.c
src_memprof_wrap_CPPFLAGS = $(AM_CPPFLAGS) \
	-DSPPROF_RUNTIME_PATH='"$(libdir)/libspprof-alloc.so.0"'
src_memprof_wrap_LDADD = src/libmemprof-wrap.la

dist_man_MANS += man/memprof-wrap.1
