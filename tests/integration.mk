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

check_PROGRAMS += tests/integration/handler-allocs
tests_integration_handler_allocs_SOURCES = \
	tests/integration/handler-allocs.c $(integ_api_sources)
tests_integration_handler_allocs_CPPFLAGS = $(AM_CPPFLAGS) \
	-DRUNTIME_API_BY_DLSYM
tests_integration_handler_allocs_LDADD = $(RUNTIME_LIBS)

integ_drivers = tests/integration/accuracy.sh \
	tests/integration/storm.sh \
	tests/integration/handler-allocs.sh \
	tests/integration/fork-exec.sh \
	tests/integration/edge-cases.sh \
	tests/integration/static.sh
TESTS += $(integ_drivers)
EXTRA_DIST += $(integ_drivers) tests/integration/common.sh
AM_TESTS_ENVIRONMENT += abs_top_builddir='$(abs_top_builddir)'; \
	export abs_top_builddir;
