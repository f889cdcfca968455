## Security tests: a second local user, made by the test, attacks root's
## tools through what that user may write (they skip without root).

check_PROGRAMS += tests/security/forge-entry
tests_security_forge_entry_SOURCES = tests/security/forge-entry.c \
	lib/process_start.c lib/process_start.h lib/control_page.h

security_drivers = \
	tests/security/ctl-snapshot-answer.sh \
	tests/security/ctl-forged-entry.sh \
	tests/security/ctl-fifo.sh \
	tests/security/ctl-escapes.sh \
	tests/security/ctl-stale-entry.sh
TESTS += $(security_drivers)
EXTRA_DIST += $(security_drivers) tests/security/security-helpers.sh
