/* Unit tests of what memprof-ctl accepts of a registry entry (ctl-entry.h)
 * and how it shows other users' text (ctl-text.h). */
#include "config.h"

#include <check.h>
#include <string.h>

#include "ctl-entry.h"
#include "ctl-text.h"

Suite *test_suite(void);

static struct control_page page;

static void setup(void)
{
	memset(&page, 0, sizeof(page));
	page.magic = CONTROL_MAGIC;
	page.version = CONTROL_VERSION;
	page.pid = 4242;
	page.state = CONTROL_RECORDING;
	strcpy(page.part, "/home/user/app.4242.mlyze.part");
}

static int parse(size_t size, long pid)
{
	struct control_page out;
	char why[128];

	return ctl_entry_parse(&page, size, pid, &out, why, sizeof(why));
}

START_TEST(a_whole_entry_is_accepted)
{
	ck_assert_int_eq(parse(sizeof(page), 4242), 0);
}
END_TEST

START_TEST(an_entry_for_another_pid_is_refused)
{
	ck_assert_int_eq(parse(sizeof(page), 1), -1);
}
END_TEST

START_TEST(a_short_entry_is_refused)
{
	ck_assert_int_eq(parse(sizeof(page) - 1, 4242), -1);
	ck_assert_int_eq(parse(0, 4242), -1);
}
END_TEST

START_TEST(a_text_without_its_end_is_refused)
{
	memset(page.answer, 'x', sizeof(page.answer));
	ck_assert_int_eq(parse(sizeof(page), 4242), -1);
}
END_TEST

START_TEST(a_relative_stream_or_unknown_state_is_refused)
{
	strcpy(page.part, "app.part");
	ck_assert_int_eq(parse(sizeof(page), 4242), -1);
	setup();
	page.state = 7;
	ck_assert_int_eq(parse(sizeof(page), 4242), -1);
	setup();
	page.version = CONTROL_VERSION + 1;
	ck_assert_int_eq(parse(sizeof(page), 4242), -1);
}
END_TEST

START_TEST(controls_are_escaped)
{
	char out[128];

	ck_assert_str_eq(ctl_escaped("\033]0;x\007\177", out, sizeof(out)),
			 "\\x1b]0;x\\x07\\x7f");
	/* C1 alone, and as UTF-8; a byte that is no UTF-8; a backslash */
	ck_assert_str_eq(ctl_escaped("\233\302\233\377\\", out, sizeof(out)),
			 "\\x9b\\xc2\\x9b\\xff\\\\");
	ck_assert_str_eq(ctl_escaped("é 日本 ok", out, sizeof(out)),
			 "é 日本 ok");
}
END_TEST

START_TEST(escaping_stops_short_whole)
{
	char out[8];

	ck_assert_str_eq(ctl_escaped("\033\033", out, 6), "\\x1b");
	ck_assert_str_eq(ctl_escaped("abcdef", out, 3), "ab");
	ck_assert_str_eq(ctl_escaped("日本", out, 4), "日");
}
END_TEST

START_TEST(a_text_field_is_copied_to_its_end_only)
{
	char field[4] = { 'a', 'b', 'c', 'd' }, out[16];

	ctl_entry_text(field, sizeof(field), out, sizeof(out));
	ck_assert_str_eq(out, "abcd");
	ctl_entry_text(field, sizeof(field), out, 3);
	ck_assert_str_eq(out, "ab");
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("ctl-entry");
	TCase *tc = tcase_create("ctl-entry");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, a_whole_entry_is_accepted);
	tcase_add_test(tc, an_entry_for_another_pid_is_refused);
	tcase_add_test(tc, a_short_entry_is_refused);
	tcase_add_test(tc, a_text_without_its_end_is_refused);
	tcase_add_test(tc, a_relative_stream_or_unknown_state_is_refused);
	tcase_add_test(tc, controls_are_escaped);
	tcase_add_test(tc, escaping_stops_short_whole);
	tcase_add_test(tc, a_text_field_is_copied_to_its_end_only);
	suite_add_tcase(s, tc);
	return s;
}
