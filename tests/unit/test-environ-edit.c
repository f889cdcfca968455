/* Unit tests of the environment changes that allocate nothing. */
#include "config.h"

#include <check.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "environ_edit.h"

Suite *test_suite(void);

static size_t heap_in_use(void)
{
	return mallinfo2().uordblks;
}

static size_t entries(void)
{
	size_t n = 0;

	while (environ[n])
		n++;
	return n;
}

/* A new variable goes into a copy of the table one entry longer, taken
 * from no heap; the C library adds to that copy later as to its own. */
START_TEST(adds_a_variable_without_allocating)
{
	static char entry[] = "SPPROF_TEST_ADDED=7";
	size_t before = entries(), in_use = heap_in_use();

	ck_assert_ptr_null(getenv("SPPROF_TEST_ADDED"));
	ck_assert_int_eq(environ_put(entry), 0);
	ck_assert_uint_eq(heap_in_use(), in_use);
	ck_assert_str_eq(getenv("SPPROF_TEST_ADDED"), "7");
	ck_assert_uint_eq(entries(), before + 1);
	ck_assert_int_eq(setenv("SPPROF_TEST_LATER", "8", 1), 0);
	ck_assert_str_eq(getenv("SPPROF_TEST_ADDED"), "7");
	ck_assert_str_eq(getenv("SPPROF_TEST_LATER"), "8");
}
END_TEST

/* A variable that is there takes the new entry in its place. */
START_TEST(replaces_a_variable_in_place)
{
	static char entry[] = "SPPROF_TEST_SET=new";
	char **table;
	size_t before;

	ck_assert_int_eq(setenv("SPPROF_TEST_SET", "old", 1), 0);
	table = environ;
	before = entries();
	ck_assert_int_eq(environ_put(entry), 0);
	ck_assert_ptr_eq(environ, table);
	ck_assert_uint_eq(entries(), before);
	ck_assert_str_eq(getenv("SPPROF_TEST_SET"), "new");
}
END_TEST

/* Removing drops every entry of the name, and no other with its prefix. */
START_TEST(removes_every_entry_of_a_name)
{
	static char first[] = "SPPROF_TEST_GONE=1";
	static char longer[] = "SPPROF_TEST_GONE_NOT=2";

	ck_assert_int_eq(environ_put(first), 0);
	ck_assert_int_eq(environ_put(longer), 0);
	environ_remove("SPPROF_TEST_GONE");
	ck_assert_ptr_null(getenv("SPPROF_TEST_GONE"));
	ck_assert_str_eq(getenv("SPPROF_TEST_GONE_NOT"), "2");
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("environ_edit");
	TCase *tc = tcase_create("environ_edit");

	tcase_add_test(tc, adds_a_variable_without_allocating);
	tcase_add_test(tc, replaces_a_variable_in_place);
	tcase_add_test(tc, removes_every_entry_of_a_name);
	suite_add_tcase(s, tc);
	return s;
}
