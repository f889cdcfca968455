## Integration tests of the runtime: test programs in C and C++ driven by
## shell scripts that run them under LD_PRELOAD or linked with the runtime,
## and check the profiles they leave with mlyze-check.

integ_api_sources = tests/integration/runtime-api.c \
	tests/integration/runtime-api.h

check_PROGRAMS += tests/integration/mlyze-check
tests_integration_mlyze_check_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_integration_mlyze_check_LDADD = $(JANSSON_LIBS)

check_PROGRAMS += tests/integration/accuracy-linked \
	tests/integration/accuracy-preload
tests_integration_accuracy_linked_SOURCES = tests/integration/accuracy.c \
	$(integ_api_sources)
tests_integration_accuracy_linked_LDADD = lib/libspprof-alloc.la -lm
tests_integration_accuracy_preload_SOURCES = \
	$(tests_integration_accuracy_linked_SOURCES)
tests_integration_accuracy_preload_CPPFLAGS = $(AM_CPPFLAGS) \
	-DRUNTIME_API_BY_DLSYM
# dlsym() and libm, wherever they live
tests_integration_accuracy_preload_LDADD = $(RUNTIME_LIBS)

check_PROGRAMS += tests/integration/storm
tests_integration_storm_SOURCES = tests/integration/storm.c \
	$(integ_api_sources)
tests_integration_storm_CPPFLAGS = $(AM_CPPFLAGS) -DRUNTIME_API_BY_DLSYM
tests_integration_storm_CFLAGS = $(AM_CFLAGS) -pthread
tests_integration_storm_LDFLAGS = -pthread
tests_integration_storm_LDADD = $(RUNTIME_LIBS)

check_PROGRAMS += tests/integration/forker tests/integration/forker-static
tests_integration_forker_static_SOURCES = tests/integration/forker.c
tests_integration_forker_static_LDFLAGS = -all-static

# A malloc family of its own: in a program, and in a library to preload.
check_PROGRAMS += tests/integration/own-malloc
check_LTLIBRARIES += tests/integration/libown-malloc.la
tests_integration_libown_malloc_la_SOURCES = tests/integration/own-malloc.c
tests_integration_libown_malloc_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DOWN_MALLOC_LIBRARY
tests_integration_libown_malloc_la_LDFLAGS = -module \
	-avoid-version -shared -rpath $(abs_builddir)/tests/integration

check_PROGRAMS += tests/integration/edge-cases
tests_integration_edge_cases_SOURCES = tests/integration/edge-cases.c \
	$(integ_api_sources)
tests_integration_edge_cases_CPPFLAGS = $(AM_CPPFLAGS) -DRUNTIME_API_BY_DLSYM
tests_integration_edge_cases_LDADD = $(RUNTIME_LIBS)

check_PROGRAMS += tests/integration/edge-cases-cxx
tests_integration_edge_cases_cxx_SOURCES = \
	tests/integration/edge-cases-cxx.cc $(integ_api_sources)
tests_integration_edge_cases_cxx_CPPFLAGS = $(AM_CPPFLAGS) \
	-DRUNTIME_API_BY_DLSYM
tests_integration_edge_cases_cxx_CXXFLAGS = -std=gnu++17 -Wall -Wextra \
	-fno-omit-frame-pointer
tests_integration_edge_cases_cxx_LDADD = $(RUNTIME_LIBS)

check_PROGRAMS += tests/integration/undisturbed tests/integration/retitle

check_PROGRAMS += tests/integration/usable-size

check_PROGRAMS += tests/integration/lock-hazards
tests_integration_lock_hazards_CFLAGS = $(AM_CFLAGS) -pthread
tests_integration_lock_hazards_LDFLAGS = -pthread
tests_integration_lock_hazards_LDADD = $(RUNTIME_LIBS)
check_LTLIBRARIES += tests/integration/liblock-hazards-plugin.la
tests_integration_liblock_hazards_plugin_la_SOURCES = \
	tests/integration/lock-hazards-plugin.c
tests_integration_liblock_hazards_plugin_la_LDFLAGS = -module \
	-avoid-version -shared -rpath $(abs_builddir)/tests/integration

# A long-running program with a known live heap, for ctl.sh.
check_PROGRAMS += tests/integration/hold-program
tests_integration_hold_program_CFLAGS = $(AM_CFLAGS) -pthread
tests_integration_hold_program_LDFLAGS = -pthread

# One that stops allocating, for ctl-quiet.sh.
check_PROGRAMS += tests/integration/quiet-program

# One with a known heap and a site that leaks, for prometheus.sh.
check_PROGRAMS += tests/integration/leak-program
TESTS += tests/integration/prometheus.sh
EXTRA_DIST += tests/integration/prometheus.sh

# Programs started without the runtime, for attach.sh: one allocating on
# every thread, one in C++ built with a distribution's flags (full RELRO).
check_PROGRAMS += tests/integration/attach-program
tests_integration_attach_program_CFLAGS = $(AM_CFLAGS) -pthread
tests_integration_attach_program_LDFLAGS = -pthread
check_PROGRAMS += tests/integration/attach-cxx
tests_integration_attach_cxx_SOURCES = tests/integration/attach-cxx.cc
tests_integration_attach_cxx_CXXFLAGS = -std=gnu++17 $(DISTRIBUTION_CFLAGS) \
	-fstack-protector-strong
tests_integration_attach_cxx_LDFLAGS = -Wl,-z,relro -Wl,-z,now
# One that loads a plugin after the attach, by a name only its run path
# finds.
check_PROGRAMS += tests/integration/attach-dlopen
tests_integration_attach_dlopen_LDFLAGS = -Wl,-rpath,'$$ORIGIN/.libs'
check_LTLIBRARIES += tests/integration/libattach-dlopen-plugin.la
tests_integration_libattach_dlopen_plugin_la_SOURCES = \
	tests/integration/attach-dlopen-plugin.c
tests_integration_libattach_dlopen_plugin_la_LDFLAGS = -module \
	-avoid-version -shared -rpath $(abs_builddir)/tests/integration
# One bound to two allocators (the C library's, and a plugin's own).
check_PROGRAMS += tests/integration/attach-deepbind
check_LTLIBRARIES += tests/integration/libattach-deepbind-plugin.la
tests_integration_libattach_deepbind_plugin_la_SOURCES = \
	tests/integration/attach-deepbind-plugin.c
tests_integration_libattach_deepbind_plugin_la_LDFLAGS = -module \
	-avoid-version -shared -rpath $(abs_builddir)/tests/integration

# One that loads the runtime itself while its threads allocate, for
# late-load.sh.
check_PROGRAMS += tests/integration/late-load
tests_integration_late_load_CFLAGS = $(AM_CFLAGS) -pthread
tests_integration_late_load_LDFLAGS = -pthread

check_PROGRAMS += tests/integration/handler-allocs
tests_integration_handler_allocs_SOURCES = \
	tests/integration/handler-allocs.c $(integ_api_sources)
tests_integration_handler_allocs_CPPFLAGS = $(AM_CPPFLAGS) \
	-DRUNTIME_API_BY_DLSYM
tests_integration_handler_allocs_LDADD = $(RUNTIME_LIBS)

check_PROGRAMS += tests/integration/bounded

# The example pool, built as a user builds it: without the runtime.
check_PROGRAMS += tests/integration/pool
tests_integration_pool_SOURCES = examples/pool.c
tests_integration_pool_LDADD = $(DLSYM_LIBS)

check_PROGRAMS += tests/integration/sandboxed tests/integration/limited

# Blocks freed inside a library opened with RTLD_DEEPBIND, for deepbind.sh.
check_PROGRAMS += tests/integration/deepbind
tests_integration_deepbind_LDADD = $(RUNTIME_LIBS)
check_LTLIBRARIES += tests/integration/libdeepbind-plugin.la
tests_integration_libdeepbind_plugin_la_SOURCES = \
	tests/integration/deepbind-plugin.c
tests_integration_libdeepbind_plugin_la_LDFLAGS = -module \
	-avoid-version -shared -rpath $(abs_builddir)/tests/integration
tests_integration_bounded_SOURCES = tests/integration/bounded.c

# Anonymous mappings beside the heap, of known sizes, for mapped.sh.
check_PROGRAMS += tests/integration/mapped

integ_drivers = tests/integration/accuracy.sh \
	tests/integration/mapped.sh \
	tests/integration/bounded.sh \
	tests/integration/pool-api.sh \
	tests/integration/undisturbed.sh \
	tests/integration/sandboxed.sh \
	tests/integration/deepbind.sh \
	tests/integration/limited.sh \
	tests/integration/storm.sh \
	tests/integration/handler-allocs.sh \
	tests/integration/lock-hazards.sh \
	tests/integration/usable-size.sh \
	tests/integration/fork-exec.sh \
	tests/integration/edge-cases.sh \
	tests/integration/static.sh \
	tests/integration/own-malloc.sh \
	tests/integration/stray-frames.sh \
	tests/integration/native-stacks.sh \
	tests/integration/titles.sh \
	tests/integration/ctl.sh \
	tests/integration/ctl-quiet.sh \
	tests/integration/ctl-memcached.sh \
	tests/integration/serve.sh \
	tests/integration/serve-robust.sh \
	tests/integration/attach.sh \
	tests/integration/late-load.sh \
	tests/integration/text-paths.sh \
	tests/integration/symbolize.sh \
	tests/integration/debuginfod.sh
TESTS += $(integ_drivers)
EXTRA_DIST += $(integ_drivers) tests/integration/common.sh \
	tests/integration/ctl-helpers.sh \
	tests/integration/serve-robust.py \
	tests/integration/stacks.sh
AM_TESTS_ENVIRONMENT += abs_top_builddir='$(abs_top_builddir)'; \
	export abs_top_builddir;

## Caller chains through code built as distributions build it: -O2 and no
## frame pointers (these flags replace AM_CFLAGS, which asks for frame
## pointers); callers-fp is the same program with frame pointers.
DISTRIBUTION_CFLAGS = -O2 -g -fomit-frame-pointer
callers_sources = tests/integration/callers.c tests/integration/callers.h \
	$(integ_api_sources)
check_LTLIBRARIES += tests/integration/libcallers-lib.la \
	tests/integration/libcallers-plugin.la
tests_integration_libcallers_lib_la_SOURCES = \
	tests/integration/callers-lib.c tests/integration/callers.h
tests_integration_libcallers_lib_la_CFLAGS = $(DISTRIBUTION_CFLAGS)
tests_integration_libcallers_lib_la_LDFLAGS = -rpath $(abs_builddir)/tests/integration
tests_integration_libcallers_plugin_la_SOURCES = \
	tests/integration/callers-plugin.c tests/integration/callers.h
tests_integration_libcallers_plugin_la_CFLAGS = $(DISTRIBUTION_CFLAGS)
tests_integration_libcallers_plugin_la_LDFLAGS = -module -avoid-version \
	-shared -rpath $(abs_builddir)/tests/integration

check_PROGRAMS += tests/integration/callers tests/integration/callers-fp \
	tests/integration/callers-cxx
tests_integration_callers_SOURCES = $(callers_sources)
tests_integration_callers_CPPFLAGS = $(AM_CPPFLAGS) -DRUNTIME_API_BY_DLSYM \
	-DCALLERS_PLUGIN='"$(abs_builddir)/tests/integration/.libs/libcallers-plugin.so"'
tests_integration_callers_CFLAGS = $(DISTRIBUTION_CFLAGS) -pthread
# -no-install: a program, not libtool's wrapper script, so that only the
# program runs under the runtime.
tests_integration_callers_LDFLAGS = -pthread -no-install
tests_integration_callers_LDADD = tests/integration/libcallers-lib.la \
	$(RUNTIME_LIBS)
tests_integration_callers_fp_SOURCES = $(callers_sources)
tests_integration_callers_fp_CPPFLAGS = $(tests_integration_callers_CPPFLAGS)
tests_integration_callers_fp_CFLAGS = -O2 -g -fno-omit-frame-pointer -pthread
tests_integration_callers_fp_LDFLAGS = $(tests_integration_callers_LDFLAGS)
tests_integration_callers_fp_LDADD = $(tests_integration_callers_LDADD)
tests_integration_callers_cxx_SOURCES = tests/integration/callers-cxx.cc \
	tests/integration/callers.h
tests_integration_callers_cxx_CXXFLAGS = -std=gnu++17 $(DISTRIBUTION_CFLAGS)

## The runtime's files against a second local user (needs root).
TESTS += tests/integration/file-creation.sh
EXTRA_DIST += tests/integration/file-creation.sh tests/second-user.sh
