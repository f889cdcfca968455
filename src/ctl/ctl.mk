## memprof-ctl: operates on running processes that have the runtime loaded.

bin_PROGRAMS += src/memprof-ctl
src_memprof_ctl_SOURCES = \
	src/ctl/memprof-ctl.c \
	src/ctl/ctl-registry.c src/ctl/ctl-registry.h \
	src/ctl/ctl-entry.c src/ctl/ctl-entry.h \
	src/ctl/ctl-user.c src/ctl/ctl-user.h \
	src/ctl/ctl-stream.c src/ctl/ctl-stream.h \
	src/ctl/ctl-text.c src/ctl/ctl-text.h \
	src/ctl/ctl-request.c src/ctl/ctl-request.h \
	src/ctl/ctl-summary.c src/ctl/ctl-summary.h \
	src/ctl/ctl-metrics.c src/ctl/ctl-metrics.h \
	src/ctl/ctl-sites.c src/ctl/ctl-sites.h \
	src/ctl/ctl-follow.c src/ctl/ctl-follow.h \
	src/ctl/ctl-service.c src/ctl/ctl-service.h \
	src/ctl/ctl-serve-targets.c src/ctl/ctl-serve-targets.h \
	src/ctl/ctl-top.c src/ctl/ctl-top.h \
	src/ctl/ctl-attach.c src/ctl/ctl-attach.h \
	src/ctl/ctl-serve.c src/ctl/ctl-serve.h \
	src/ctl/ctl-serve-index.c src/ctl/ctl-serve-index.h \
	src/ctl/ctl-serve-profile.c src/ctl/ctl-serve-profile.h \
	src/ctl/ctl-serve-request.c src/ctl/ctl-serve-request.h \
	src/ctl/ctl-serve-auth.c src/ctl/ctl-serve-auth.h \
	src/ctl/ctl-serve-secrets.c src/ctl/ctl-serve-secrets.h \
	src/ctl/ctl-serve-limits.c src/ctl/ctl-serve-limits.h \
	src/ctl/ctl-serve-silence.c src/ctl/ctl-serve-silence.h \
	src/ctl/ctl-peer.c src/ctl/ctl-peer.h \
	src/ctl/ctl-web-config.c src/ctl/ctl-web-config.h \
	common/process_start.c common/process_start.h common/control_page.h \
	common/tool_files.c common/tool_files.h
src_memprof_ctl_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/src/report -I$(top_srcdir)/src/mlyze \
	-I$(top_srcdir)/src/symbolizer \
	-DSPPROF_RUNTIME_PATH='"$(libdir)/libspprof-alloc.so.0"'
if BUILD_PYTHON
src_memprof_ctl_CPPFLAGS += \
	-DSPPROF_PYTHON_WALKER_PATH='"$(pyexecdir)/spprof/_memprof$(PYTHON_EXT_SUFFIX)"' \
	-DSPPROF_PYTHON_WALKER_BUILT='"python/spprof/.libs/_memprof$(PYTHON_EXT_SUFFIX)"'
endif
src_memprof_ctl_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(MHD_CFLAGS) \
	$(GNUTLS_CFLAGS) $(YAML_CFLAGS) $(CRYPT_CFLAGS) $(ZLIB_CFLAGS)
src_memprof_ctl_LDADD = $(REPORT_ENGINE_LIBS) $(JANSSON_LIBS) $(MHD_LIBS) \
	$(GNUTLS_LIBS) $(YAML_LIBS) $(CRYPT_LIBS) $(ZLIB_LIBS) -lm

dist_man_MANS += man/memprof-ctl.1
