## Tests of memprof-wrap: a unit test of its text handling and shell scripts
## that run it with helper programs (see tests/wrap/common.sh).

check_PROGRAMS += tests/wrap/print-argv tests/wrap/print-env \
	tests/wrap/catch-signal tests/wrap/allocate tests/wrap/drop-privileges \
	tests/wrap/idle-child
tests_wrap_print_argv_SOURCES = tests/wrap/print-argv.c
tests_wrap_print_env_SOURCES = tests/wrap/print-env.c
tests_wrap_catch_signal_SOURCES = tests/wrap/catch-signal.c
tests_wrap_allocate_SOURCES = tests/wrap/allocate.c
tests_wrap_drop_privileges_SOURCES = tests/wrap/drop-privileges.c
tests_wrap_idle_child_SOURCES = tests/wrap/idle-child.c

## Stands in for the runtime where a test is about memprof-wrap alone;
## -rpath makes libtool build it shared, as LD_PRELOAD needs.
check_LTLIBRARIES += tests/wrap/libwrap-fake-runtime.la
tests_wrap_libwrap_fake_runtime_la_SOURCES = tests/wrap/fake-runtime.c \
	common/wrap_channel.c common/outbuf.c
tests_wrap_libwrap_fake_runtime_la_LDFLAGS = -module -avoid-version \
	-shared -rpath $(abs_builddir)/tests/wrap

## static.sh compiles static programs when it runs, with this compiler,
## and skips when static linking fails (glibc's static libc.a is optional).
AM_TESTS_ENVIRONMENT += WRAP_TEST_CC='$(CC)'; export WRAP_TEST_CC;

TESTS += tests/wrap/options.sh tests/wrap/arguments.sh \
	tests/wrap/environment.sh tests/wrap/exit-status.sh \
	tests/wrap/errors.sh tests/wrap/static.sh tests/wrap/summary.sh \
	tests/wrap/profiles.sh tests/wrap/privileges.sh tests/wrap/socket.sh
EXTRA_DIST += tests/wrap/common.sh tests/wrap/options.sh \
	tests/wrap/arguments.sh tests/wrap/environment.sh \
	tests/wrap/exit-status.sh tests/wrap/errors.sh tests/wrap/static.sh \
	tests/wrap/summary.sh tests/wrap/profiles.sh tests/wrap/privileges.sh \
	tests/wrap/socket.sh

if HAVE_CHECK
check_PROGRAMS += tests/wrap/test-wrap-options
TESTS += tests/wrap/test-wrap-options
tests_wrap_test_wrap_options_SOURCES = tests/wrap/test-wrap-options.c \
	tests/unit/suite-main.c
tests_wrap_test_wrap_options_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/src/wrap
tests_wrap_test_wrap_options_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_wrap_test_wrap_options_LDADD = src/wrap/libmemprof-wrap.la $(CHECK_LIBS)
endif
