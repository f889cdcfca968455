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
	debian/source/lintian-overrides \
	debian/spprof-mem.docs \
	debian/spprof-mem.examples \
	debian/spprof-mem.install \
	debian/tests/control \
	debian/tests/smoke \
	packaging/check.sh \
	packaging/fresh-test.sh \
	packaging/memprof-ctl-serve.service \
	rpm/spprof-mem.spec

check-packaging: dist-gzip
	$(SHELL) $(srcdir)/packaging/check.sh $(PACKAGE)-$(VERSION).tar.gz
.PHONY: check-packaging

## `make check-arch ARCH=i386` (or arm64, s390x...): the committed tree
## built and checked in a Debian system of that architecture, natively or
## under qemu-user-static (see packaging/arch-test.sh; needs root).
EXTRA_DIST += packaging/arch-test.sh
check-arch:
	@test -n "$(ARCH)" || { echo "usage: make check-arch ARCH=i386" >&2; exit 2; }
	$(SHELL) $(srcdir)/packaging/arch-test.sh $(ARCH)
.PHONY: check-arch

## `make check-fresh`: the README's test command in brand-new minimal
## systems of each release in FRESH_RELEASES, one after the other (see
## packaging/fresh-test.sh; needs root, debootstrap and apt's network,
## and takes long).  Every release is tried; the target fails if any did.
FRESH_RELEASES = bookworm trixie
check-fresh:
	@failed=; \
	for release in $(FRESH_RELEASES); do \
		$(SHELL) $(srcdir)/packaging/fresh-test.sh $(srcdir) $$release || \
			failed="$$failed $$release"; \
	done; \
	test -z "$$failed" || { echo "check-fresh: failed on$$failed" >&2; exit 1; }
.PHONY: check-fresh
