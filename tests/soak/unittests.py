"""Runs tests of CPython's own test suite and prints only what does not
change from one run to the next: every test's name and outcome, the
failures' tracebacks and the totals, but no timing (unittest's runner
prints how long the tests took, regrtest prints timestamps).

Usage: python3 unittests.py NAME...   (test.test_json, test.test_re.ReTests)

Resources that a test must be given explicitly (network, cpu-heavy tests)
are all denied, as regrtest denies them by default, so the same tests are
skipped everywhere, and the tests that time the machine (LEFT_OUT) are
left out.  Exit status: 0 when every test passed, 1 otherwise.
"""

import sys
import unittest

from test import support


# Tests that count how often a timer fired while they waited: a loaded
# machine makes them fail with or without the profiler (3.13's
# test_timerfd_select read 2 expirations where it expected 1).
LEFT_OUT = ("test.test_os.TimerfdTests.",)


def without_left_out(suite):
    """The tests of suite, flattened, less those of LEFT_OUT."""
    kept = unittest.TestSuite()
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            kept.addTests(without_left_out(test))
        elif not test.id().startswith(LEFT_OUT):
            kept.addTest(test)
    return kept


def main(names):
    support.use_resources = []
    support.verbose = False
    suite = without_left_out(
        unittest.defaultTestLoader.loadTestsFromNames(names))
    result = unittest.TextTestResult(
        unittest.runner._WritelnDecorator(sys.stdout),
        descriptions=False, verbosity=2)
    suite.run(result)
    result.printErrors()
    print(f"{result.testsRun} tests: {len(result.failures)} failed, "
          f"{len(result.errors)} errors, {len(result.skipped)} skipped")
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
