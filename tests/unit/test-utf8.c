/* Unit tests of the one rule for text (utf8.h) and of the JSON strings
 * the runtime writes by it (outbuf_json_string). */
#include "config.h"

#include <check.h>
#include <string.h>

#include "outbuf.h"
#include "utf8.h"

Suite *test_suite(void);

static size_t length_of(const char *bytes)
{
	return utf8_char_length((const unsigned char *)bytes, strlen(bytes));
}

START_TEST(well_formed_characters)
{
	ck_assert_uint_eq(length_of("a"), 1);
	ck_assert_uint_eq(length_of("\xc3\xa9"), 2);         /* U+00E9 */
	ck_assert_uint_eq(length_of("\xe2\x82\xac"), 3);     /* U+20AC */
	ck_assert_uint_eq(length_of("\xed\x9f\xbf"), 3);     /* U+D7FF */
	ck_assert_uint_eq(length_of("\xee\x80\x80"), 3);     /* U+E000 */
	ck_assert_uint_eq(length_of("\xf0\x9f\x98\x80"), 4); /* U+1F600 */
	ck_assert_uint_eq(length_of("\xf4\x8f\xbf\xbf"), 4); /* U+10FFFF */
}
END_TEST

START_TEST(ill_formed_sequences)
{
	static const char *const ill[] = {
		"\x80",		    /* a stray continuation byte */
		"\xe9",		    /* Latin-1 e acute */
		"\xc3",		    /* cut short */
		"\xe2\x82",	    /* cut short */
		"\xc0\x80",	    /* overlong NUL */
		"\xc1\xbf",	    /* overlong */
		"\xe0\x80\x80",     /* overlong */
		"\xf0\x80\x80\x80", /* overlong */
		"\xed\xa0\x80",     /* surrogate U+D800 */
		"\xed\xbf\xbf",     /* surrogate U+DFFF */
		"\xf4\x90\x80\x80", /* past U+10FFFF */
		"\xf5\x80\x80\x80", /* no such lead byte */
		"\xff",
	};

	for (size_t i = 0; i < sizeof(ill) / sizeof(ill[0]); i++)
		ck_assert_msg(length_of(ill[i]) == 0, "case %zu", i);
	ck_assert(!utf8_valid("caf\xe9", 4));
	ck_assert(utf8_valid("caf\xc3\xa9", 5));
	ck_assert(utf8_valid("", 0));
}
END_TEST

/* outbuf_json_string(text) as written, in json. */
static void json_of(const char *text, char *json, size_t size)
{
	uint8_t buf[256];
	struct outbuf o;

	outbuf_init(&o, -1, buf, sizeof(buf));
	outbuf_json_string(&o, text);
	ck_assert_uint_lt(o.len, size);
	memcpy(json, o.buf, o.len);
	json[o.len] = '\0';
}

START_TEST(json_strings_repair_each_ill_formed_byte)
{
	char json[256];

	json_of("caf\xc3\xa9", json, sizeof(json));
	ck_assert_str_eq(json, "\"caf\xc3\xa9\"");
	/* each byte of a surrogate's or an overlong form's bytes alone, so
	 * that a JSON reader takes the whole text */
	json_of("a\xed\xa0\x80z", json, sizeof(json));
	ck_assert_str_eq(json, "\"a\\ufffd\\ufffd\\ufffdz\"");
	json_of("\xe0\x80\xafx", json, sizeof(json));
	ck_assert_str_eq(json, "\"\\ufffd\\ufffd\\ufffdx\"");
	/* a cut character does not swallow the one after it */
	json_of("\xe2\x82" "a\"\n", json, sizeof(json));
	ck_assert_str_eq(json, "\"\\ufffd\\ufffda\\\"\\u000a\"");
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("utf8");
	TCase *tc = tcase_create("utf8");

	tcase_add_test(tc, well_formed_characters);
	tcase_add_test(tc, ill_formed_sequences);
	tcase_add_test(tc, json_strings_repair_each_ill_formed_byte);
	suite_add_tcase(s, tc);
	return s;
}
