## memprof-wrap: runs a command under the profiler runtime.
## Its parts live in a convenience library so the unit tests can link them.
## It names and publishes profiles handed over to it by the runtime's own
## rules (common/profile_files.c).

noinst_LTLIBRARIES += src/wrap/libmemprof-wrap.la
src_wrap_libmemprof_wrap_la_SOURCES = \
	src/wrap/wrap-child.c src/wrap/wrap-child.h \
	src/wrap/wrap-manifest.c src/wrap/wrap-manifest.h \
	src/wrap/wrap-message.c src/wrap/wrap-message.h \
	src/wrap/wrap-options.c src/wrap/wrap-options.h \
	src/wrap/wrap-output.c src/wrap/wrap-output.h \
	src/wrap/wrap-publish.c src/wrap/wrap-publish.h \
	src/wrap/wrap-sender.c src/wrap/wrap-sender.h \
	src/wrap/wrap-target.c src/wrap/wrap-target.h \
	src/wrap/wrap-util.c src/wrap/wrap-util.h \
	common/outbuf.c common/profile_files.c common/wrap_channel.c
src_wrap_libmemprof_wrap_la_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
src_wrap_libmemprof_wrap_la_LIBADD = $(LIBELF_LIBS)

bin_PROGRAMS += src/memprof-wrap
src_memprof_wrap_SOURCES = src/wrap/memprof-wrap.c common/tool_files.c \
	common/tool_files.h
src_memprof_wrap_CPPFLAGS = $(AM_CPPFLAGS) \
	-DSPPROF_RUNTIME_PATH='"$(libdir)/libspprof-alloc.so.0"'
src_memprof_wrap_LDADD = src/wrap/libmemprof-wrap.la
if BUILD_PYTHON
src_memprof_wrap_CPPFLAGS += \
	-DSPPROF_PYTHON_WALKER_PATH='"$(pyexecdir)/spprof/_memprof$(PYTHON_EXT_SUFFIX)"' \
	-DSPPROF_PYTHON_WALKER_BUILT='"python/spprof/.libs/_memprof$(PYTHON_EXT_SUFFIX)"'
endif

dist_man_MANS += man/memprof-wrap.1
