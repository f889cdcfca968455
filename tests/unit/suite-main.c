/* suite-main.c - the main() shared by the unit tests: each test file
 * defines test_suite() and this runs it with check's usual report. */
#include "config.h"

#include <check.h>
#include <stdlib.h>

Suite *test_suite(void);

int main(void)
{
	SRunner *runner = srunner_create(test_suite());
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
