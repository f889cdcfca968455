/* Unit tests of the table of sampled mappings: what a cut forgets and
 * keeps, and the weight its pieces keep. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdint.h>

#include "mapping_table.h"

Suite *test_suite(void);

#define PAGE 4096u

/* What a cut handed over: every one counted, the first few kept. */
#define KEPT 8
struct seen {
	struct sampled_mapping gone[KEPT], left[KEPT];
	int gone_count, left_count;
};

static void on_gone(void *ctx, const struct sampled_mapping *m)
{
	struct seen *s = ctx;

	if (s->gone_count < KEPT)
		s->gone[s->gone_count] = *m;
	s->gone_count++;
}

static void on_left(void *ctx, const struct sampled_mapping *m)
{
	struct seen *s = ctx;

	if (s->left_count < KEPT)
		s->left[s->left_count] = *m;
	s->left_count++;
}

static void add(uintptr_t start, uint64_t length, uint64_t rate)
{
	struct sampled_mapping m = { .start = start, .length = length,
				     .sampling_rate = rate, .stack_id = 7 };

	mapping_table_lock();
	ck_assert_int_eq(mapping_table_add(&m), 1);
	mapping_table_unlock();
}

static struct seen cut(uintptr_t start, uint64_t length)
{
	struct seen s = { 0 };

	mapping_table_lock();
	mapping_table_cut(start, length, on_gone, on_left, &s);
	mapping_table_unlock();
	return s;
}

/* Forgets everything, whatever a test left. */
static void clear(void)
{
	cut(0, UINT64_MAX / 2);
	ck_assert_int_eq(mapping_table_empty(), 1);
}

static double probability(uint64_t length, uint64_t rate)
{
	return 1 - exp(-(double)length / (double)rate);
}

START_TEST(a_whole_unmap_forgets_the_mapping)
{
	struct seen s;

	clear();
	add(0x100000, 16 * PAGE, 65536);
	ck_assert_int_eq(mapping_table_empty(), 0);
	s = cut(0x100000, 16 * PAGE);
	ck_assert_int_eq(s.gone_count, 1);
	ck_assert_int_eq(s.left_count, 0);
	ck_assert_uint_eq(s.gone[0].start, 0x100000);
	ck_assert_uint_eq(s.gone[0].length, 16 * PAGE);
	ck_assert_int_eq(mapping_table_empty(), 1);
}
END_TEST

/* A hole in the middle leaves two pieces, each weighed with the
 * probability of the whole mapping. */
START_TEST(a_hole_leaves_two_pieces_of_the_same_probability)
{
	struct seen s;
	double whole = probability(16 * PAGE, 65536);

	clear();
	add(0x100000, 16 * PAGE, 65536);
	s = cut(0x100000 + 4 * PAGE, 8 * PAGE);
	ck_assert_int_eq(s.gone_count, 1);
	ck_assert_int_eq(s.left_count, 2);
	ck_assert_uint_eq(s.left[0].start, 0x100000);
	ck_assert_uint_eq(s.left[0].length, 4 * PAGE);
	ck_assert_uint_eq(s.left[1].start, 0x100000 + 12 * PAGE);
	ck_assert_uint_eq(s.left[1].length, 4 * PAGE);
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_eq(s.left[i].stack_id, 7);
		ck_assert_double_eq_tol(probability(s.left[i].length,
						    s.left[i].sampling_rate),
					whole, 1e-3);
	}
	/* The pieces are tracked: unmapping one forgets it alone. */
	s = cut(0x100000 + 12 * PAGE, 4 * PAGE);
	ck_assert_int_eq(s.gone_count, 1);
	ck_assert_int_eq(s.left_count, 0);
	ck_assert_int_eq(mapping_table_empty(), 0);
	clear();
}
END_TEST

/* One range over several mappings and the gaps between them; mappings
 * outside it stay as they were. */
START_TEST(a_range_takes_every_mapping_it_touches)
{
	struct seen s;

	clear();
	add(0x100000, 4 * PAGE, 65536);
	add(0x200000, 4 * PAGE, 65536);
	add(0x300000, 4 * PAGE, 65536);
	add(0x900000, 4 * PAGE, 65536);
	/* From the middle of the first to the end of the third. */
	s = cut(0x100000 + 2 * PAGE, 0x200000 + 2 * PAGE);
	ck_assert_int_eq(s.gone_count, 3);
	ck_assert_int_eq(s.left_count, 1);
	ck_assert_uint_eq(s.left[0].start, 0x100000);
	ck_assert_uint_eq(s.left[0].length, 2 * PAGE);
	mapping_table_lock();
	ck_assert_int_eq(mapping_table_touches(0x900000, PAGE), 1);
	ck_assert_int_eq(mapping_table_touches(0x100000, 2 * PAGE), 1);
	ck_assert_int_eq(mapping_table_touches(0x100000 + 2 * PAGE, PAGE), 0);
	ck_assert_int_eq(mapping_table_touches(0x400000, 4 * PAGE), 0);
	mapping_table_unlock();
	clear();
}
END_TEST

/* A full table refuses and counts what it could not take. */
START_TEST(a_full_table_counts_its_drops)
{
	struct sampled_mapping m = { .length = PAGE, .sampling_rate = 1 };
	uint64_t drops = mapping_table_drops();

	clear();
	mapping_table_lock();
	for (int i = 0; i < MAPPINGS_MAX; i++) {
		m.start = 0x100000 + (uintptr_t)i * 2 * PAGE;
		ck_assert_int_eq(mapping_table_add(&m), 1);
	}
	ck_assert_int_eq(mapping_table_add(&m), 0);
	mapping_table_unlock();
	ck_assert_uint_eq(mapping_table_drops(), drops + 1);
	clear();
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("mapping_table");
	TCase *tc = tcase_create("cuts");

	tcase_add_test(tc, a_whole_unmap_forgets_the_mapping);
	tcase_add_test(tc, a_hole_leaves_two_pieces_of_the_same_probability);
	tcase_add_test(tc, a_range_takes_every_mapping_it_touches);
	tcase_add_test(tc, a_full_table_counts_its_drops);
	suite_add_tcase(s, tc);
	return s;
}
