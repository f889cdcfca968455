/* check-protobuf - unit tests of the protocol-buffer encoder of the pprof
 * export (src/report/report-protobuf.c): the bytes of varints at their
 * length boundaries, negative int64 as ten bytes, zero scalars left out,
 * empty strings kept, embedded and packed fields with their lengths, as
 * the protocol-buffer encoding defines them.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <string.h>

#include "report-protobuf.h"

Suite *test_suite(void); /* run by tests/unit/suite-main.c */

static void same_bytes(const struct pb *pb, const uint8_t *want, size_t n)
{
	ck_assert_uint_eq(pb->length, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(pb->data[i] == want[i],
			      "byte %zu: 0x%02x, expected 0x%02x", i,
			      pb->data[i], want[i]);
}

START_TEST(varints_at_their_boundaries)
{
	struct pb pb = { 0 };
	static const uint8_t want[] = {
		0x08, 0x01,             /* field 1 = 1 */
		0x10, 0x7f,             /* field 2 = 127 */
		0x18, 0x80, 0x01,       /* field 3 = 128 */
		0x20, 0xac, 0x02,       /* field 4 = 300 */
		0x28, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x01,                   /* field 5 = 2^64 - 1 */
	};

	pb_uint(&pb, 1, 1);
	pb_uint(&pb, 2, 127);
	pb_uint(&pb, 3, 128);
	pb_uint(&pb, 4, 300);
	pb_uint(&pb, 5, UINT64_MAX);
	same_bytes(&pb, want, sizeof(want));
	pb_free(&pb);
}
END_TEST

START_TEST(negative_int64_and_zero)
{
	struct pb pb = { 0 };
	static const uint8_t want[] = {
		0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x01, /* field 1 = -1 */
		0x18, 0x01, /* field 3 = true; fields 2 and 4 are zero */
	};

	pb_int(&pb, 1, -1);
	pb_uint(&pb, 2, 0);
	pb_bool(&pb, 3, 7);
	pb_int(&pb, 4, 0);
	same_bytes(&pb, want, sizeof(want));
	pb_free(&pb);
}
END_TEST

START_TEST(strings_messages_and_packed)
{
	struct pb pb = { 0 }, sub = { 0 };
	static const uint64_t values[] = { 3, 270 };
	static const uint8_t want[] = {
		0x32, 0x00,                   /* field 6 = "" */
		0x32, 0x02, 'h', 'i',         /* field 6 = "hi" */
		0x1a, 0x03, 0x08, 0x96, 0x01, /* field 3 = { field 1 = 150 } */
		0x12, 0x03, 0x03, 0x8e, 0x02, /* field 2 = packed [3, 270] */
	};

	pb_string(&pb, 6, "");
	pb_string(&pb, 6, "hi");
	pb_uint(&sub, 1, 150);
	pb_message(&pb, 3, &sub);
	ck_assert_uint_eq(sub.length, 0);
	pb_packed(&pb, 2, values, 2);
	same_bytes(&pb, want, sizeof(want));
	pb_free(&pb);
	pb_free(&sub);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("protobuf");
	TCase *tc = tcase_create("encoding");

	tcase_add_test(tc, varints_at_their_boundaries);
	tcase_add_test(tc, negative_int64_and_zero);
	tcase_add_test(tc, strings_messages_and_packed);
	suite_add_tcase(s, tc);
	return s;
}
