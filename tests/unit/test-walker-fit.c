/* Unit tests of the Python frame walker's choice of the interpreters
 * whose frames it reads (python/ext/walker_fit.c). */
#include "config.h"

#include <check.h>
#include <string.h>

#include "walker_fit.h"

Suite *test_suite(void);

static const struct python_build cpython311 = { 0x030B04F0, 0 };
static const struct python_build cpython312 = { 0x030C01F0, 0 };
static const struct python_build cpython313 = { 0x030D00F0, 0 };
static const struct python_build cpython313_later = { 0x030D05F0, 0 };
static const struct python_build cpython313t = { 0x030D00F0, 1 };
static const struct python_build cpython314 = { 0x030E08F0, 0 };
static const struct python_build cpython314t = { 0x030E00F0, 1 };
static const struct python_build cpython315 = { 0x030F00A1, 0 };
static const struct python_build cpython310 = { 0x030A0DF0, 0 };

static char why[256];

static const char *refusal(struct python_build built,
			   struct python_build running)
{
	memset(why, 'x', sizeof(why));
	return walker_refusal(built, running, why, sizeof(why));
}

START_TEST(known_versions_are_read_by_their_own_build)
{
	ck_assert_ptr_null(refusal(cpython311, cpython311));
	ck_assert_ptr_null(refusal(cpython312, cpython312));
	ck_assert_ptr_null(refusal(cpython313, cpython313));
	ck_assert_ptr_null(refusal(cpython314, cpython314));
	/* a bug-fix release keeps the frame layout of its minor version */
	ck_assert_ptr_null(refusal(cpython313, cpython313_later));
}
END_TEST

START_TEST(another_version_is_refused_naming_both)
{
	ck_assert_str_eq(refusal(cpython313, cpython314),
			 "the frame walker was built for CPython 3.13 and "
			 "cannot read the frames of CPython 3.14");
	ck_assert_ptr_nonnull(refusal(cpython314, cpython315));
	ck_assert_ptr_nonnull(refusal(cpython312, cpython311));
	ck_assert_ptr_nonnull(refusal(cpython311, cpython313));
}
END_TEST

/* Same version number, other object layout: Py_Version alone cannot
 * tell them apart. */
START_TEST(free_threaded_interpreter_is_refused)
{
	ck_assert_str_eq(refusal(cpython313, cpython313t),
			 "the frame walker was built for CPython 3.13 and "
			 "cannot read the frames of free-threaded CPython "
			 "3.13t");
	ck_assert_str_eq(refusal(cpython313t, cpython313t),
			 "free-threaded CPython 3.13t is not supported by the "
			 "frame walker (only builds with the GIL are)");
	ck_assert_ptr_nonnull(refusal(cpython314t, cpython314t));
	ck_assert_ptr_nonnull(refusal(cpython313t, cpython313));
}
END_TEST

START_TEST(unknown_versions_are_refused_even_by_their_own_build)
{
	ck_assert_str_eq(refusal(cpython315, cpython315),
			 "CPython 3.15 is not supported by the frame walker "
			 "(it knows CPython 3.11 to 3.14)");
	ck_assert_ptr_nonnull(refusal(cpython310, cpython310));
}
END_TEST

START_TEST(a_short_buffer_gets_a_cut_line)
{
	char small[16];

	ck_assert_str_eq(walker_refusal(cpython313, cpython314, small,
					sizeof(small)),
			 "the frame walke");
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("walker_fit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, known_versions_are_read_by_their_own_build);
	tcase_add_test(tc, another_version_is_refused_naming_both);
	tcase_add_test(tc, free_threaded_interpreter_is_refused);
	tcase_add_test(tc, unknown_versions_are_refused_even_by_their_own_build);
	tcase_add_test(tc, a_short_buffer_gets_a_cut_line);
	suite_add_tcase(s, tc);
	return s;
}
