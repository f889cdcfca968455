/* Unit tests of the usable size of C-library blocks: glibc's arithmetic
 * where it holds, the allocator's own answer where it does not. */
#include "config.h"

#include <check.h>
#include <malloc.h>
#include <stdlib.h>

#include "real_alloc.h"
#include "usable_size.h"

Suite *test_suite(void);

/* The most a glibc block may offer beyond its arithmetic: a chunk too
 * small to be split off. */
#define LEEWAY (4 * sizeof(size_t))

static unsigned long allocations;

static void *counting_malloc(size_t size)
{
	allocations++;
	return malloc(size);
}

static size_t counting_usable_size(void *p)
{
	return malloc_usable_size(p);
}

/* An allocator of 4 KiB size classes, as glibc's arithmetic has none. */
static size_t paged_usable_size(void *p)
{
	return (malloc_usable_size(p) + 4095) & ~(size_t)4095;
}

static void use_allocator(void *(*alloc)(size_t), size_t (*usable)(void *))
{
	ck_assert(real_alloc_init());
	real.malloc = alloc;
	real.malloc_usable_size = usable;
}

/* Up to sizes glibc may serve with mmap, whose threshold moves as such
 * blocks are freed (so that a fresh block may then come from the heap). */
START_TEST(sizes_are_what_fresh_blocks_offer)
{
	ck_assert(real_alloc_init());
	for (size_t size = 0; size < 120 * 1024; size += size < 4096 ? 1 : 97) {
		size_t usable = usable_size_of(size, 0);
		void *block = malloc(size);
		size_t offered = malloc_usable_size(block);

		free(block);
		ck_assert_uint_ge(usable, size);
		ck_assert_uint_le(usable, offered);
		ck_assert_uint_lt(offered, usable + LEEWAY);
	}
}
END_TEST

START_TEST(glibc_is_asked_once)
{
	size_t first;

	use_allocator(counting_malloc, counting_usable_size);
	first = usable_size_of(100, 0);
	allocations = 0;
	for (size_t size = 0; size < 60000; size++)
		ck_assert_uint_ge(usable_size_of(size, 0), size);
	ck_assert_uint_eq(allocations, 0);
	ck_assert_uint_eq(usable_size_of(100, 0), first);
	/* Aligned blocks and large ones are asked for. */
	(void)usable_size_of(100, 64);
	(void)usable_size_of(200 * 1024, 0);
	ck_assert_uint_eq(allocations, 1);
}
END_TEST

START_TEST(another_allocator_is_asked_every_time)
{
	use_allocator(counting_malloc, paged_usable_size);
	ck_assert_uint_eq(usable_size_of(100, 0), 4096);
	allocations = 0;
	ck_assert_uint_eq(usable_size_of(5000, 0), 8192);
	ck_assert_uint_eq(allocations, 1);
	/* Back to glibc: its arithmetic again. */
	use_allocator(counting_malloc, counting_usable_size);
	ck_assert_uint_lt(usable_size_of(100, 0), 100 + LEEWAY);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("usable_size");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, sizes_are_what_fresh_blocks_offer);
	tcase_add_test(tc, glibc_is_asked_once);
	tcase_add_test(tc, another_allocator_is_asked_every_time);
	suite_add_tcase(s, tc);
	return s;
}
