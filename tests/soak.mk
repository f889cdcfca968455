## Soak test, not part of `make check` (it takes minutes and needs more of
## the system): `make soak` runs real programs from Debian packages (CPython's
## own tests, git, sqlite3, gcc, xz, zstd, pigz, bash, dash, a PostgreSQL
## server, nginx with workers that run as nobody, redis-server, ripgrep, ruby,
## node, perl, php with its extensions opened by RTLD_DEEPBIND, chromium with
## its sandbox, the JVM, a MariaDB server, memcached) bare and under memprof-wrap at two sampling rates, and requires
## the same exit status, output and error output, profiles that memprof-report
## reads, and what a workload's NAME.says asks the report to say (see
## tests/soak/soak.sh).  The README's test command runs it last.  Its results
## go to soak-suite.log, beside make check's test-suite.log.  Some of them
## alone: make soak SOAK_WORKLOADS='tests/soak/php.soak tests/soak/java.soak'.

SOAK_WORKLOADS = \
	tests/soak/python.soak \
	tests/soak/git.soak \
	tests/soak/compressors.soak \
	tests/soak/sqlite.soak \
	tests/soak/gcc.soak \
	tests/soak/bash.soak \
	tests/soak/dash.soak \
	tests/soak/postgres.soak \
	tests/soak/nginx.soak \
	tests/soak/redis.soak \
	tests/soak/ripgrep.soak \
	tests/soak/ruby.soak \
	tests/soak/node.soak \
	tests/soak/perl.soak \
	tests/soak/php.soak \
	tests/soak/chromium.soak \
	tests/soak/java.soak \
	tests/soak/mariadb.soak \
	tests/soak/memcached.soak
EXTRA_DIST += $(SOAK_WORKLOADS) tests/soak/soak.sh tests/soak/unittests.py \
	tests/soak/shell-workout.sh tests/soak/node.says tests/soak/perl.says \
	tests/soak/chromium.tells tests/soak/compressors.tells \
	tests/soak/python.tells

# Each workload is a test of automake's harness, run by the soak driver.
TEST_EXTENSIONS = .test .soak
SOAK_LOG_COMPILER = $(SHELL) $(srcdir)/tests/soak/soak.sh

# VERBOSE: what failed is shown, not only named.
soak: all
	@$(MAKE) $(AM_MAKEFLAGS) check-TESTS TESTS='$(SOAK_WORKLOADS)' \
		TEST_SUITE_LOG=soak-suite.log VERBOSE=yes
.PHONY: soak
CLEANFILES += soak-suite.log $(SOAK_WORKLOADS:.soak=.log) \
	$(SOAK_WORKLOADS:.soak=.trs)
