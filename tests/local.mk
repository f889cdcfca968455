## Unit tests of the runtime's components (check), one program each.

if HAVE_CHECK
RUNTIME_UNIT_TESTS = \
	tests/unit/test-carved-count \
	tests/unit/test-code-map \
	tests/unit/test-codec \
	tests/unit/test-counters \
	tests/unit/test-environ-edit \
	tests/unit/test-estimator \
	tests/unit/test-event-stream \
	tests/unit/test-free-filter \
	tests/unit/test-heap-map \
	tests/unit/test-lifecycle \
	tests/unit/test-mapping-table \
	tests/unit/test-prng \
	tests/unit/test-profile-files \
	tests/unit/test-sample-pool \
	tests/unit/test-script-stack \
	tests/unit/test-stack-table \
	tests/unit/test-thread-names \
	tests/unit/test-unwind \
	tests/unit/test-usable-size \
	tests/unit/test-utf8 \
	tests/unit/test-walker-fit \
	tests/unit/test-writer
check_PROGRAMS += $(RUNTIME_UNIT_TESTS)
TESTS += $(RUNTIME_UNIT_TESTS)
endif

# No test asks a debuginfod server but the one it starts itself.
AM_TESTS_ENVIRONMENT += unset DEBUGINFOD_URLS;
# Generous limits: the suite often shares a loaded two-core machine.
AM_TESTS_ENVIRONMENT += CK_TIMEOUT_MULTIPLIER=10; export CK_TIMEOUT_MULTIPLIER;
# What test scripts of every kind source: the runtime, its environment
# and hangs told by progress (testlib.sh), and whether they run under an
# emulator (emulation.sh).
EXTRA_DIST += tests/emulation.sh tests/testlib.sh

UNIT_CPPFLAGS = $(RUNTIME_CPPFLAGS)
UNIT_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
UNIT_LDADD = lib/libspprof-core.la $(CHECK_LIBS)
# For the tests that write files.
SCRATCH_DIR_SOURCES = tests/unit/scratch-dir.c tests/unit/scratch-dir.h

tests_unit_test_carved_count_SOURCES = tests/unit/test-carved-count.c \
	tests/unit/suite-main.c
tests_unit_test_carved_count_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_carved_count_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_carved_count_LDADD = $(UNIT_LDADD)
tests_unit_test_environ_edit_SOURCES = tests/unit/test-environ-edit.c \
	tests/unit/suite-main.c
tests_unit_test_environ_edit_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_environ_edit_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_environ_edit_LDADD = $(UNIT_LDADD)
tests_unit_test_code_map_SOURCES = tests/unit/test-code-map.c \
	tests/unit/suite-main.c
tests_unit_test_code_map_CPPFLAGS = $(UNIT_CPPFLAGS) \
	-DCODE_MAP_PLUGIN='"$(abs_builddir)/tests/unit/.libs/libcode-map-plugin.so"' \
	-DCODE_MAP_PLUGIN_FP='"$(abs_builddir)/tests/unit/.libs/libcode-map-plugin-fp.so"'
tests_unit_test_code_map_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_code_map_LDADD = $(UNIT_LDADD) $(RUNTIME_LIBS)
## Loaded and unloaded by test-code-map; -rpath makes libtool build it
## shared.
check_LTLIBRARIES += tests/unit/libcode-map-plugin.la
tests_unit_libcode_map_plugin_la_SOURCES = tests/unit/code-map-plugin.c
tests_unit_libcode_map_plugin_la_CFLAGS = -O2 -fomit-frame-pointer
## The same, built with frame pointers.
check_LTLIBRARIES += tests/unit/libcode-map-plugin-fp.la
tests_unit_libcode_map_plugin_fp_la_SOURCES = tests/unit/code-map-plugin.c
tests_unit_libcode_map_plugin_fp_la_CFLAGS = -O2 -fno-omit-frame-pointer
tests_unit_libcode_map_plugin_fp_la_LDFLAGS = \
	$(tests_unit_libcode_map_plugin_la_LDFLAGS)
tests_unit_libcode_map_plugin_la_LDFLAGS = -module -avoid-version \
	-shared -rpath $(abs_builddir)/tests/unit
tests_unit_test_codec_SOURCES = tests/unit/test-codec.c tests/unit/suite-main.c
tests_unit_test_codec_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_codec_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_codec_LDADD = $(UNIT_LDADD)
tests_unit_test_estimator_SOURCES = tests/unit/test-estimator.c \
	tests/unit/suite-main.c
tests_unit_test_estimator_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_estimator_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_estimator_LDADD = $(UNIT_LDADD) -lm
tests_unit_test_free_filter_SOURCES = tests/unit/test-free-filter.c tests/unit/suite-main.c
tests_unit_test_free_filter_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_free_filter_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_free_filter_LDADD = $(UNIT_LDADD)
tests_unit_test_mapping_table_SOURCES = tests/unit/test-mapping-table.c \
	tests/unit/suite-main.c
tests_unit_test_mapping_table_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_mapping_table_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_mapping_table_LDADD = $(UNIT_LDADD) -lm

tests_unit_test_heap_map_SOURCES = tests/unit/test-heap-map.c tests/unit/suite-main.c
tests_unit_test_heap_map_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_heap_map_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_heap_map_LDADD = $(UNIT_LDADD)
tests_unit_test_counters_SOURCES = tests/unit/test-counters.c \
	tests/unit/suite-main.c
tests_unit_test_counters_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_counters_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_counters_LDADD = $(UNIT_LDADD)

tests_unit_test_event_stream_SOURCES = tests/unit/test-event-stream.c \
	tests/unit/suite-main.c $(SCRATCH_DIR_SOURCES)
tests_unit_test_event_stream_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_event_stream_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_event_stream_LDADD = $(UNIT_LDADD)

tests_unit_test_profile_files_SOURCES = tests/unit/test-profile-files.c \
	tests/unit/suite-main.c $(SCRATCH_DIR_SOURCES)
tests_unit_test_profile_files_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_profile_files_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_profile_files_LDADD = $(UNIT_LDADD)

tests_unit_test_lifecycle_SOURCES = tests/unit/test-lifecycle.c tests/unit/suite-main.c
tests_unit_test_lifecycle_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_lifecycle_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_lifecycle_LDADD = $(UNIT_LDADD) -lm
tests_unit_test_prng_SOURCES = tests/unit/test-prng.c tests/unit/suite-main.c
tests_unit_test_prng_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_prng_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_prng_LDADD = $(UNIT_LDADD)
tests_unit_test_usable_size_SOURCES = tests/unit/test-usable-size.c \
	tests/unit/suite-main.c
tests_unit_test_usable_size_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_usable_size_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_usable_size_LDADD = $(UNIT_LDADD)

tests_unit_test_sample_pool_SOURCES = tests/unit/test-sample-pool.c tests/unit/suite-main.c
tests_unit_test_sample_pool_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_sample_pool_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_sample_pool_LDADD = $(UNIT_LDADD)
tests_unit_test_script_stack_SOURCES = tests/unit/test-script-stack.c tests/unit/suite-main.c
tests_unit_test_script_stack_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_script_stack_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_script_stack_LDADD = $(UNIT_LDADD)
# The Python frame walker's choice of interpreters: plain C, no Python.
tests_unit_test_walker_fit_SOURCES = tests/unit/test-walker-fit.c \
	tests/unit/suite-main.c python/ext/walker_fit.c python/ext/walker_fit.h
tests_unit_test_walker_fit_CPPFLAGS = $(UNIT_CPPFLAGS) -I$(top_srcdir)/python/ext
tests_unit_test_walker_fit_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_walker_fit_LDADD = $(CHECK_LIBS)
tests_unit_test_stack_table_SOURCES = tests/unit/test-stack-table.c tests/unit/suite-main.c
tests_unit_test_stack_table_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_stack_table_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_stack_table_LDADD = $(UNIT_LDADD)
tests_unit_test_unwind_SOURCES = tests/unit/test-unwind.c tests/unit/suite-main.c
tests_unit_test_unwind_CFLAGS = $(UNIT_CFLAGS) -pthread
tests_unit_test_unwind_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_unwind_LDADD = $(UNIT_LDADD)
tests_unit_test_writer_SOURCES = tests/unit/test-writer.c tests/unit/suite-main.c \
	$(SCRATCH_DIR_SOURCES)
tests_unit_test_writer_CFLAGS = $(UNIT_CFLAGS) $(JANSSON_CFLAGS)
tests_unit_test_writer_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_writer_LDADD = $(UNIT_LDADD) $(JANSSON_LIBS)

tests_unit_test_thread_names_SOURCES = tests/unit/test-thread-names.c \
	tests/unit/suite-main.c
tests_unit_test_thread_names_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_thread_names_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_thread_names_LDADD = $(UNIT_LDADD)

tests_unit_test_utf8_SOURCES = tests/unit/test-utf8.c tests/unit/suite-main.c
tests_unit_test_utf8_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_utf8_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_utf8_LDADD = $(UNIT_LDADD)
