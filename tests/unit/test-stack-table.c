/* Unit tests of the stack intern table. */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <string.h>

#include "stack_table.h"

Suite *test_suite(void);

/* A distinct, reproducible stack for each number. */
static uint32_t make_stack(uint32_t n, uint64_t *frames)
{
	uint32_t depth = 1 + n % 20;

	for (uint32_t i = 0; i < depth; i++)
		frames[i] = 0x400000 + (uintptr_t)n * 0x1000 + i * 8;
	return depth;
}

static void assert_entry(struct stack_table *t, uint32_t id, uint32_t n)
{
	uint64_t frames[MEMPROF_MAX_STACK_DEPTH];
	uint32_t depth = make_stack(n, frames);
	const struct stack_entry *e = stack_table_get(t, id);

	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->depth, depth);
	ck_assert(!memcmp(e->frames, frames, depth * sizeof(uint64_t)));
}

START_TEST(same_stack_same_id)
{
	struct stack_table t;
	uint64_t a[3] = { 1, 2, 3 }, b[3] = { 1, 2, 4 };
	uint32_t ida, idb;

	ck_assert_int_eq(stack_table_init(&t, STACK_TABLE_MAX_DEFAULT), 0);
	ida = stack_table_intern(&t, a, 3);
	idb = stack_table_intern(&t, b, 3);
	ck_assert_uint_ne(ida, idb);
	ck_assert_uint_eq(stack_table_intern(&t, a, 3), ida);
	ck_assert_uint_eq(stack_table_intern(&t, b, 3), idb);
	/* a prefix is a different stack */
	ck_assert_uint_ne(stack_table_intern(&t, a, 2), ida);
	/* the empty stack is a stack too */
	ck_assert_uint_eq(stack_table_intern(&t, a, 0),
			  stack_table_intern(&t, b, 0));
	ck_assert_uint_eq(stack_table_count(&t), 4);
	ck_assert_ptr_null(stack_table_get(&t, 4));
	stack_table_destroy(&t);
}
END_TEST

START_TEST(grows_and_keeps_ids)
{
	static uint32_t ids[20000];
	struct stack_table t;
	uint64_t frames[MEMPROF_MAX_STACK_DEPTH];

	ck_assert_int_eq(stack_table_init(&t, STACK_TABLE_MAX_DEFAULT), 0);
	ck_assert_uint_eq(stack_table_capacity(&t), STACK_TABLE_INITIAL);
	for (uint32_t n = 0; n < 20000; n++)
		ids[n] = stack_table_intern(&t, frames, make_stack(n, frames));
	ck_assert_uint_ge(stack_table_capacity(&t), 32768);
	for (uint32_t n = 0; n < 20000; n++) {
		ck_assert_uint_eq(
			stack_table_intern(&t, frames, make_stack(n, frames)),
			ids[n]);
		assert_entry(&t, ids[n], n);
	}
	ck_assert_uint_eq(stack_table_count(&t), 20000);
	stack_table_destroy(&t);
}
END_TEST

START_TEST(full_table_gives_none)
{
	struct stack_table t;
	uint64_t frames[MEMPROF_MAX_STACK_DEPTH];
	uint32_t none = 0;

	ck_assert_int_eq(stack_table_init(&t, STACK_TABLE_CHUNK), 0);
	for (uint32_t n = 0; n < STACK_TABLE_CHUNK + 100; n++)
		none += stack_table_intern(&t, frames, make_stack(n, frames)) ==
			STACK_ID_NONE;
	ck_assert_uint_eq(none, 100);
	ck_assert_uint_eq(atomic_load(&t.drops), 100);
	ck_assert_uint_eq(stack_table_count(&t), STACK_TABLE_CHUNK);
	/* known stacks are still found */
	ck_assert_uint_ne(stack_table_intern(&t, frames, make_stack(5, frames)),
			  STACK_ID_NONE);
	stack_table_destroy(&t);
}
END_TEST

START_TEST(deep_stacks_are_cut_to_the_maximum)
{
	struct stack_table t;
	uint64_t frames[MEMPROF_MAX_STACK_DEPTH + 10] = { 0 };
	uint32_t id;

	ck_assert_int_eq(stack_table_init(&t, STACK_TABLE_MAX_DEFAULT), 0);
	id = stack_table_intern(&t, frames, MEMPROF_MAX_STACK_DEPTH + 10);
	ck_assert_uint_eq(stack_table_get(&t, id)->depth,
			  MEMPROF_MAX_STACK_DEPTH);
	stack_table_destroy(&t);
}
END_TEST

#define THREADS 4
#define SHARED_STACKS 12000

static struct stack_table shared;
static uint32_t results[THREADS][SHARED_STACKS];

static void *intern_all(void *arg)
{
	uintptr_t t = (uintptr_t)arg;
	uint64_t frames[MEMPROF_MAX_STACK_DEPTH];

	/* each thread walks the stacks in its own order */
	for (uint32_t i = 0; i < SHARED_STACKS; i++) {
		uint32_t n = (uint32_t)((i * 7919u + t * 104729u) % SHARED_STACKS);

		results[t][n] = stack_table_intern(&shared, frames,
						   make_stack(n, frames));
	}
	return NULL;
}

START_TEST(concurrent_interning_while_growing)
{
	pthread_t threads[THREADS];
	uint64_t duplicates;

	ck_assert_int_eq(stack_table_init(&shared, STACK_TABLE_MAX_DEFAULT), 0);
	for (uintptr_t t = 0; t < THREADS; t++)
		pthread_create(&threads[t], NULL, intern_all, (void *)t);
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	/* every id names the right stack, whoever interned it */
	for (int t = 0; t < THREADS; t++)
		for (uint32_t n = 0; n < SHARED_STACKS; n++)
			assert_entry(&shared, results[t][n], n);
	/* racing threads may create a few duplicate ids, never many */
	duplicates = stack_table_count(&shared) - SHARED_STACKS;
	ck_assert_uint_lt(duplicates, SHARED_STACKS / 10);
	ck_assert_uint_ge(stack_table_capacity(&shared), 16384);
	stack_table_destroy(&shared);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("stack_table");
	TCase *tc = tcase_create("single thread");
	TCase *mt = tcase_create("threads");

	tcase_add_test(tc, same_stack_same_id);
	tcase_add_test(tc, grows_and_keeps_ids);
	tcase_add_test(tc, full_table_gives_none);
	tcase_add_test(tc, deep_stacks_are_cut_to_the_maximum);
	tcase_add_test(mt, concurrent_interning_while_growing);
	tcase_set_timeout(mt, 60);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, mt);
	return s;
}
