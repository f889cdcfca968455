/* test-thread-names - when the runtime writes a thread's name: at its
 * first sample, again when a sample a second later finds it renamed, and
 * again in a new file or when it could not be written; never twice in a
 * row for nothing. */
#include "config.h"

#include <check.h>
#include <string.h>
#include <sys/prctl.h>

#include "thread_names.h"

#define SECOND THREAD_NAME_CHECK_NS

/* The name due at now_ns, or NULL when none is. */
static const char *due(uint64_t now_ns)
{
	static char text[MLYZE_THREAD_NAME_MAX + 1];
	char name[MLYZE_THREAD_NAME_MAX];
	int length = thread_name_due(now_ns, name);

	if (length < 0)
		return NULL;
	memcpy(text, name, (size_t)length);
	text[length] = '\0';
	return text;
}

START_TEST(written_when_new)
{
	uint64_t now = 5 * SECOND;

	ck_assert_int_eq(prctl(PR_SET_NAME, "first-name"), 0);
	ck_assert_str_eq(due(now), "first-name");
	ck_assert_ptr_null(due(now + 1));
	/* Renamed: seen at the first sample a second later. */
	ck_assert_int_eq(prctl(PR_SET_NAME, "second-name"), 0);
	ck_assert_ptr_null(due(now + SECOND / 2));
	ck_assert_str_eq(due(now + SECOND), "second-name");
	/* Looked at again, unchanged: nothing to write. */
	ck_assert_ptr_null(due(now + 3 * SECOND));
	/* A new file has none of the names. */
	thread_names_restart();
	ck_assert_str_eq(due(now + 3 * SECOND + 1), "second-name");
	ck_assert_ptr_null(due(now + 3 * SECOND + 2));
}
END_TEST

/* A name that could not be written is due again at the next sample. */
START_TEST(lost_name_written_again)
{
	thread_names_restart();
	ck_assert_int_eq(prctl(PR_SET_NAME, "lost-name"), 0);
	ck_assert_str_eq(due(SECOND), "lost-name");
	thread_name_lost();
	ck_assert_str_eq(due(SECOND + 1), "lost-name");
	ck_assert_ptr_null(due(SECOND + 2));
}
END_TEST

/* The kernel keeps 15 bytes of a name: all of them are written. */
START_TEST(longest_name)
{
	thread_names_restart();
	ck_assert_int_eq(prctl(PR_SET_NAME, "fifteen-bytes-x-and-more"), 0);
	ck_assert_str_eq(due(SECOND), "fifteen-bytes-x");
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("thread_names");
	TCase *tc = tcase_create("thread_names");

	tcase_add_test(tc, written_when_new);
	tcase_add_test(tc, longest_name);
	tcase_add_test(tc, lost_name_written_again);
	suite_add_tcase(s, tc);
	return s;
}
