## Tests of the symbolizer.  The programs and debug files it resolves are
## built at check time by tests/symbolizer/make-fixtures.sh with the
## configured compiler and binutils.

SYMBOLIZER_FIXTURE_INPUTS = \
	tests/symbolizer/make-fixtures.sh \
	tests/symbolizer/fixture-main.c \
	tests/symbolizer/fixture-lib.c \
	tests/symbolizer/object-info.c \
	tests/symbolizer/object-info.h
EXTRA_DIST += $(SYMBOLIZER_FIXTURE_INPUTS)

tests/symbolizer/fixtures.stamp: $(SYMBOLIZER_FIXTURE_INPUTS:%=$(srcdir)/%)
	$(AM_V_GEN)CC="$(CC)" OBJCOPY=objcopy STRIP=strip READELF=readelf \
	$(SHELL) $(srcdir)/tests/symbolizer/make-fixtures.sh \
		$(srcdir)/tests/symbolizer tests/symbolizer/fixtures && \
	touch $@

clean-local: clean-symbolizer-fixtures
clean-symbolizer-fixtures:
	rm -rf tests/symbolizer/fixtures tests/symbolizer/fixtures.stamp
.PHONY: clean-symbolizer-fixtures

if HAVE_CHECK
check_PROGRAMS += tests/symbolizer/symbolizer-test
TESTS += tests/symbolizer/symbolizer-test
tests_symbolizer_symbolizer_test_SOURCES = \
	tests/symbolizer/symbolizer-test.c \
	tests/symbolizer/object-info.c \
	tests/symbolizer/object-info.h
tests_symbolizer_symbolizer_test_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/src/symbolizer -I$(top_srcdir)/tests/symbolizer \
	-DSYMBOLIZER_FIXTURES_DIR='"$(abs_top_builddir)/tests/symbolizer/fixtures"'
tests_symbolizer_symbolizer_test_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_symbolizer_symbolizer_test_LDADD = src/symbolizer/libsymbolizer.la \
	$(CHECK_LIBS) -ldl
EXTRA_tests_symbolizer_symbolizer_test_DEPENDENCIES = \
	tests/symbolizer/fixtures.stamp
endif
