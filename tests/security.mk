## Security tests: a second local user, made by the test, attacks root's
## tools through what that user may write (they skip without root).

# What memprof-ctl accepts of an entry, and how it shows text.
check_PROGRAMS += tests/security/check-ctl-entry
TESTS += tests/security/check-ctl-entry
tests_security_check_ctl_entry_SOURCES = tests/security/check-ctl-entry.c \
	tests/unit/suite-main.c \
	src/ctl/ctl-entry.c src/ctl/ctl-entry.h \
	src/ctl/ctl-text.c src/ctl/ctl-text.h
tests_security_check_ctl_entry_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/ctl
tests_security_check_ctl_entry_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_security_check_ctl_entry_LDADD = $(CHECK_LIBS)

check_PROGRAMS += tests/security/forge-entry
tests_security_forge_entry_SOURCES = tests/security/forge-entry.c \
	common/process_start.c common/process_start.h common/control_page.h

security_drivers = \
	tests/security/ctl-snapshot-answer.sh \
	tests/security/ctl-forged-entry.sh \
	tests/security/ctl-fifo.sh \
	tests/security/ctl-escapes.sh \
	tests/security/ctl-stale-entry.sh
TESTS += $(security_drivers)
EXTRA_DIST += $(security_drivers) tests/security/security-helpers.sh
