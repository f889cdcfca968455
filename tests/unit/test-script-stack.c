/* Unit tests of script-frame interning and the trim-and-sandwich merge. */
#include "config.h"

#include <check.h>
#include <string.h>

#include "frames.h"
#include "script_stack.h"
#include "names.h"

Suite *test_suite(void);

#define LO 0x1000
#define HI 0x2000

START_TEST(sandwich)
{
	/* leaf: extension, interpreter x2, main above the interpreter */
	const uint64_t native[] = { 0x9000, 0x1100, 0x1200, 0x8000 };
	const uint64_t script[] = { script_frame(1, 2, 3), script_frame(4, 5, 6) };
	uint64_t out[8];
	uint32_t n = merge_frames(out, 8, native, 4, script, 2, LO, HI);

	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(out[0], 0x9000);
	ck_assert_uint_eq(out[1], script[0]);
	ck_assert_uint_eq(out[2], script[1]);
	ck_assert_uint_eq(out[3], 0x8000);
}
END_TEST

START_TEST(no_interpreter_frames_keeps_native_then_script)
{
	const uint64_t native[] = { 0x9000, 0x9100 };
	const uint64_t script[] = { script_frame(1, 1, 1) };
	uint64_t out[8];
	uint32_t n = merge_frames(out, 8, native, 2, script, 1, LO, HI);

	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(out[0], 0x9000);
	ck_assert_uint_eq(out[1], 0x9100);
	ck_assert_uint_eq(out[2], script[0]);
}
END_TEST

START_TEST(merge_respects_the_maximum)
{
	const uint64_t native[] = { 0x9000, 0x1100, 0x8000 };
	const uint64_t script[] = { script_frame(1, 1, 1), script_frame(2, 2, 2),
				     script_frame(3, 3, 3) };
	uint64_t out[3];
	uint32_t n = merge_frames(out, 3, native, 3, script, 3, LO, HI);

	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(out[0], 0x9000);
	ck_assert_uint_eq(out[2], script[1]); /* innermost frames kept */
}
END_TEST

START_TEST(packing_round_trips)
{
	uint64_t f = script_frame(123456, 654321, 4000000);

	ck_assert(frame_is_script(f));
	ck_assert(!frame_is_script(0x00007fffffffffffull));
	ck_assert(!frame_is_script(0xfffff000u)); /* 32-bit user space */
	ck_assert_uint_eq(script_frame_file(f), 123456);
	ck_assert_uint_eq(script_frame_function(f), 654321);
	ck_assert_uint_eq(script_frame_line(f), 4000000);
	/* lines beyond the field saturate instead of wrapping */
	ck_assert_uint_eq(script_frame_line(script_frame(1, 1, 1u << 30)),
			  (1u << SCRIPT_LINE_BITS) - 1);
}
END_TEST

START_TEST(strings_are_interned)
{
	uint32_t a, b;

	ck_assert_int_eq(strings_init(), 0);
	a = strings_intern(STRINGS_FILES, "app.py and more", 6);
	b = strings_intern(STRINGS_FILES, "lib.py", 6);
	ck_assert_uint_ne(a, b);
	ck_assert_uint_eq(strings_intern(STRINGS_FILES, "app.py", 6), a);
	ck_assert_str_eq(strings_get(STRINGS_FILES, a), "app.py");
	/* tables are separate */
	ck_assert_uint_eq(strings_intern(STRINGS_FUNCTIONS, "app.py", 6), 0);
	ck_assert_uint_eq(strings_count(STRINGS_FILES), 2);
	/* empty names and embedded NULs become a placeholder */
	ck_assert_str_eq(strings_get(STRINGS_FUNCTIONS,
				     strings_intern(STRINGS_FUNCTIONS, "", 0)),
			 "?");
	ck_assert_str_eq(strings_get(STRINGS_FUNCTIONS,
				     strings_intern(STRINGS_FUNCTIONS, "a\0b", 3)),
			 "?");
	ck_assert_ptr_null(strings_get(STRINGS_FILES, 99));
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("script_stack");
	TCase *tc = tcase_create("script_stack");

	tcase_add_test(tc, sandwich);
	tcase_add_test(tc, no_interpreter_frames_keeps_native_then_script);
	tcase_add_test(tc, merge_respects_the_maximum);
	tcase_add_test(tc, packing_round_trips);
	tcase_add_test(tc, strings_are_interned);
	suite_add_tcase(s, tc);
	return s;
}
