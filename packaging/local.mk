## Packaging: the Debian and RPM packaging travels in the release tarball,
## and `make check-packaging` (not part of `make check`) builds, lints,
## installs and removes the packages made from this tree's tarball
## (see packaging/check.sh).

# COPYING is distributed by automake itself.
EXTRA_DIST += \
	debian/changelog \
	debian/control \
	debian/copyright \
	debian/libmlyze0.install \
	debian/libmlyze0.symbols \
	debian/libspprof-alloc-dev.install \
	debian/libspprof-alloc0.install \
	debian/libspprof-alloc0.symbols \
	debian/not-installed \
	debian/python3-spprof.install \
	debian/rules \
	debian/source/format \
	debian/spprof-mem.docs \
	debian/spprof-mem.examples \
	debian/spprof-mem.install \
	debian/tests/control \
	debian/tests/smoke \
	packaging/check.sh \
	packaging/fresh-test.sh \
	rpm/spprof-mem.spec

check-packaging: dist-gzip
	$(SHELL) $(srcdir)/packaging/check.sh $(PACKAGE)-$(VERSION).tar.gz
.PHONY: check-packaging
