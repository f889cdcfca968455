/* Unit tests of the .mlyze varint and event-size codec. */
#include "config.h"

#include <check.h>
#include <string.h>

#include "mlyze-codec.h"

Suite *test_suite(void);

static void check_round_trip(uint64_t v, size_t expected_len)
{
	uint8_t buf[MLYZE_VARINT_MAX];
	uint64_t back = 0;
	size_t used = 0, n = mlyze_put_varint(buf, v);

	ck_assert_uint_eq(n, expected_len);
	ck_assert_uint_eq(mlyze_varint_len(v), expected_len);
	ck_assert_int_eq(mlyze_get_varint(buf, n, &back, &used),
			 MLYZE_VARINT_OK);
	ck_assert_uint_eq(back, v);
	ck_assert_uint_eq(used, n);
}

START_TEST(varint_examples_from_the_format)
{
	uint8_t buf[MLYZE_VARINT_MAX];

	ck_assert_uint_eq(mlyze_put_varint(buf, 0), 1);
	ck_assert_uint_eq(buf[0], 0x00);
	ck_assert_uint_eq(mlyze_put_varint(buf, 127), 1);
	ck_assert_uint_eq(buf[0], 0x7f);
	ck_assert_uint_eq(mlyze_put_varint(buf, 128), 2);
	ck_assert_uint_eq(buf[0], 0x80);
	ck_assert_uint_eq(buf[1], 0x01);
	ck_assert_uint_eq(mlyze_put_varint(buf, 16384), 3);
	ck_assert(!memcmp(buf, "\x80\x80\x01", 3));
}
END_TEST

START_TEST(varint_round_trips)
{
	check_round_trip(0, 1);
	check_round_trip(1, 1);
	check_round_trip(300, 2);
	check_round_trip(UINT32_MAX, 5);
	check_round_trip(1ull << 56, 9);
	check_round_trip(UINT64_MAX, 10);
	for (int bit = 0; bit < 64; bit++)
		check_round_trip(1ull << bit, (size_t)bit / 7 + 1);
}
END_TEST

START_TEST(varint_rejects_bad_encodings)
{
	static const uint8_t truncated[] = { 0x80, 0x80 };
	static const uint8_t non_minimal[] = { 0x80, 0x00 };
	static const uint8_t eleven[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					  0xff, 0xff, 0xff, 0xff, 0x01 };
	static const uint8_t over_64_bits[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
						0xff, 0xff, 0xff, 0xff, 0x02 };
	uint64_t v;
	size_t used;

	ck_assert_int_eq(mlyze_get_varint(truncated, 2, &v, &used),
			 MLYZE_VARINT_TRUNCATED);
	ck_assert_int_eq(mlyze_get_varint(truncated, 0, &v, &used),
			 MLYZE_VARINT_TRUNCATED);
	ck_assert_int_eq(mlyze_get_varint(non_minimal, 2, &v, &used),
			 MLYZE_VARINT_OVERLONG);
	ck_assert_int_eq(mlyze_get_varint(eleven, sizeof(eleven), &v, &used),
			 MLYZE_VARINT_OVERLONG);
	ck_assert_int_eq(mlyze_get_varint(over_64_bits, sizeof(over_64_bits),
					  &v, &used),
			 MLYZE_VARINT_OVERLONG);
}
END_TEST

START_TEST(little_endian_fields)
{
	uint8_t buf[8];

	mlyze_put_le(buf, 0x0102030405060708ull, 8);
	ck_assert_uint_eq(buf[0], 0x08);
	ck_assert_uint_eq(buf[7], 0x01);
	ck_assert_uint_eq(mlyze_get_le(buf, 8), 0x0102030405060708ull);
	ck_assert_uint_eq(mlyze_get_le(buf, 2), 0x0708);
}
END_TEST

START_TEST(event_sizes)
{
	/* ALLOC: type, delta 300 (2 bytes), address, size 5, stack 1, thread */
	static const uint8_t alloc[] = { 0, 0xac, 0x02, 1, 2, 3, 4, 5, 6, 7, 8,
					 5, 1, 9, 9 };
	static const uint8_t free_ev[] = { 1, 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t gc[] = { 2, 0, 0x80, 0x01, 7 };
	static const uint8_t marker[] = { 3, 1, 4 };
	static const uint8_t sized[] = { 42, 0, 3, 'a', 'b', 'c' };
	size_t len;
	unsigned type;

	ck_assert_int_eq(mlyze_event_size(alloc, sizeof(alloc), &len, &type),
			 MLYZE_EVENT_OK);
	ck_assert_uint_eq(len, sizeof(alloc));
	ck_assert_uint_eq(type, MLYZE_EVENT_ALLOC);
	ck_assert_int_eq(mlyze_event_size(free_ev, sizeof(free_ev), &len,
					  &type),
			 MLYZE_EVENT_OK);
	ck_assert_uint_eq(len, sizeof(free_ev));
	ck_assert_int_eq(mlyze_event_size(gc, sizeof(gc), &len, &type),
			 MLYZE_EVENT_OK);
	ck_assert_uint_eq(len, sizeof(gc));
	ck_assert_int_eq(mlyze_event_size(marker, sizeof(marker), &len,
					  &type),
			 MLYZE_EVENT_OK);
	ck_assert_uint_eq(len, sizeof(marker));
	ck_assert_int_eq(mlyze_event_size(sized, sizeof(sized), &len, &type),
			 MLYZE_EVENT_OK);
	ck_assert_uint_eq(len, sizeof(sized));
	ck_assert_uint_eq(type, 42);
	/* every proper prefix is truncated, never mistaken for an event */
	for (size_t cut = 0; cut < sizeof(alloc); cut++)
		ck_assert_int_eq(mlyze_event_size(alloc, cut, &len, &type),
				 MLYZE_EVENT_TRUNCATED);
	for (size_t cut = 0; cut < sizeof(sized); cut++)
		ck_assert_int_eq(mlyze_event_size(sized, cut, &len, &type),
				 MLYZE_EVENT_TRUNCATED);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("codec");
	TCase *tc = tcase_create("codec");

	tcase_add_test(tc, varint_examples_from_the_format);
	tcase_add_test(tc, varint_round_trips);
	tcase_add_test(tc, varint_rejects_bad_encodings);
	tcase_add_test(tc, little_endian_fields);
	tcase_add_test(tc, event_sizes);
	suite_add_tcase(s, tc);
	return s;
}
