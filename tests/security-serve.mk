## Security tests of memprof-ctl serve: who its clients are, what each
## may read, and the limits that keep one client from stopping it for
## everyone.  They create users of their own: run as root (skipped else).

serve_security_tests = tests/security/serve-users.sh \
	tests/security/serve-web-config.sh \
	tests/security/serve-limits.sh
TESTS += $(serve_security_tests)
EXTRA_DIST += $(serve_security_tests) tests/security/serve-helpers.sh
