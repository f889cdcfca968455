## Python bindings: the spprof package and its C extension spprof._memprof,
## which is also the plugin the runtime loads to get Python frames
## (SPPROF_PYTHON_WALKER).  The whole package goes to pyexecdir, so that
## the pure-Python part and the extension are never split between two
## directories.

PYTHON_TEST_FILES = \
	python/tests/conftest.py \
	python/tests/mlyze.py \
	python/tests/test_api.py \
	python/tests/test_interpreters.py \
	python/tests/test_attribution.py \
	python/tests/test_lifecycle.py \
	python/tests/test_modules.py \
	python/tests/test_notebook.py \
	python/tests/test_pytest_plugin.py \
	python/tests/test_processes.py \
	python/tests/test_snapshot.py \
	python/tests/test_stress.py
EXTRA_DIST += $(PYTHON_TEST_FILES) python/tests/pytest-suite.in python/setup.py \
	python/entry_points.txt \
	bench/python-bench.sh bench/python_workload.py

.PHONY: bench-python

if BUILD_PYTHON
spprofpyexecdir = $(pyexecdir)/spprof
spprofpyexec_PYTHON = \
	python/spprof/__init__.py \
	python/spprof/_cli.py \
	python/spprof/_control.py \
	python/spprof/_export.py \
	python/spprof/_fields.py \
	python/spprof/_kernel.py \
	python/spprof/_late.py \
	python/spprof/_magic.py \
	python/spprof/_measure.py \
	python/spprof/_model.py \
	python/spprof/_session.py \
	python/spprof/_sizes.py \
	python/spprof/_stream.py \
	python/spprof/memprof.py \
	python/spprof/pytest_plugin.py
spprofpyexec_LTLIBRARIES = python/spprof/_memprof.la

# The distribution's metadata, through which pytest finds the plugin
# (entry point pytest11) with no configuration.
spprofdistinfodir = $(pyexecdir)/spprof-$(PACKAGE_VERSION).dist-info
spprofdistinfo_DATA = python/dist-info/METADATA python/entry_points.txt
python/dist-info/METADATA: Makefile
	$(AM_V_GEN)$(MKDIR_P) python/dist-info && \
	printf 'Metadata-Version: 2.1\nName: spprof\nVersion: %s\n%s\n' \
		'$(PACKAGE_VERSION)' \
		'Summary: Sampling heap profiler for Python programs (spprof-mem)' \
		>$@
CLEANFILES += python/dist-info/METADATA

python_spprof__memprof_la_SOURCES = \
	python/ext/module.c \
	python/ext/format.c python/ext/format.h \
	python/ext/small_objects.c python/ext/small_objects.h \
	python/ext/walker.c python/ext/walker.h \
	python/ext/walker_fit.c python/ext/walker_fit.h
# Only the public header of the runtime: the bindings use its API as any
# other program would; and common/, for the file format's codec.
python_spprof__memprof_la_CPPFLAGS = -I$(top_srcdir)/include \
	-I$(top_srcdir)/common $(PYTHON_CPPFLAGS)
python_spprof__memprof_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
python_spprof__memprof_la_LDFLAGS = -module -avoid-version \
	-shrext $(PYTHON_EXT_SUFFIX)
python_spprof__memprof_la_LIBADD = lib/libspprof-alloc.la

# An importable copy of the package in the build tree (links to the
# sources and to the freshly linked extension), for the tests and for
# trying the bindings without installing them.
PYTHON_BUILD_TREE = python/pkg/spprof
all-local: $(PYTHON_BUILD_TREE)/.stamp
$(PYTHON_BUILD_TREE)/.stamp: python/spprof/_memprof.la Makefile \
		python/dist-info/METADATA
	$(AM_V_GEN)$(MKDIR_P) $(PYTHON_BUILD_TREE) && \
	for f in $(spprofpyexec_PYTHON); do \
		ln -sf "$(abs_top_srcdir)/$$f" $(PYTHON_BUILD_TREE)/; \
	done && \
	ln -sf "$(abs_top_builddir)/python/spprof/.libs/_memprof$(PYTHON_EXT_SUFFIX)" \
		$(PYTHON_BUILD_TREE)/ && \
	$(MKDIR_P) $(PYTHON_BUILD_TREE)-$(PACKAGE_VERSION).dist-info && \
	for f in $(spprofdistinfo_DATA); do \
		case $$f in python/dist-info/*) f="$(abs_top_builddir)/$$f" ;; \
		*) f="$(abs_top_srcdir)/$$f" ;; esac; \
		ln -sf "$$f" $(PYTHON_BUILD_TREE)-$(PACKAGE_VERSION).dist-info/; \
	done && \
	touch $@
CLEANFILES += $(PYTHON_BUILD_TREE)/* $(PYTHON_BUILD_TREE)/.stamp \
	$(PYTHON_BUILD_TREE)-$(PACKAGE_VERSION).dist-info/*

# What profiling costs a Python program (not run by make check).
bench-python: all
	PYTHON=$(PYTHON) $(SHELL) $(srcdir)/bench/python-bench.sh \
		$(abs_top_builddir)

TESTS += python/tests/pytest-suite
CLEANFILES += python/tests/pytest-suite
python/tests/pytest-suite: $(srcdir)/python/tests/pytest-suite.in Makefile
	$(AM_V_GEN)$(MKDIR_P) python/tests && \
	sed -e 's|@PYTHON[@]|$(PYTHON)|g' \
	    -e 's|@abs_top_srcdir[@]|$(abs_top_srcdir)|g' \
	    -e 's|@abs_top_builddir[@]|$(abs_top_builddir)|g' \
	    -e 's|@PYTHON_EXT_SUFFIX[@]|$(PYTHON_EXT_SUFFIX)|g' \
	    $(srcdir)/python/tests/pytest-suite.in > $@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@
endif
