/* Unit tests of the public lifecycle API: the state machine, its errors,
 * snapshots, stacks and in-process symbol names. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <spprof/memprof.h>

#include "free_filter.h"
#include "profiler.h"

Suite *test_suite(void);

#define expect_failure(call, err)                                             \
	do {                                                                  \
		errno = 0;                                                    \
		ck_assert_int_eq((call), -1);                                 \
		ck_assert_int_eq(errno, (err));                               \
	} while (0)

START_TEST(state_machine)
{
	expect_failure(memprof_start(), EINVAL);
	expect_failure(memprof_stop(), EINVAL);
	expect_failure(memprof_init(0), EINVAL);
	ck_assert_int_eq(memprof_init(4096), 0);
	expect_failure(memprof_init(4096), EALREADY);
	expect_failure(memprof_stop(), EALREADY);
	ck_assert_int_eq(memprof_start(), 0);
	expect_failure(memprof_start(), EALREADY);
	ck_assert_int_eq(memprof_stop(), 0);
	expect_failure(memprof_stop(), EALREADY);
	ck_assert_int_eq(memprof_start(), 0); /* restart after stop */
	expect_failure(memprof_set_sampling_rate(0), EINVAL);
	ck_assert_int_eq(memprof_set_sampling_rate(8192), 0);
	ck_assert_int_eq(memprof_shutdown(), 0);
	/* one way: everything fails afterwards */
	expect_failure(memprof_shutdown(), ESHUTDOWN);
	expect_failure(memprof_start(), ESHUTDOWN);
	expect_failure(memprof_init(4096), ESHUTDOWN);
	expect_failure(memprof_set_sampling_rate(4096), ESHUTDOWN);
}
END_TEST

START_TEST(no_profile_file_without_output)
{
	ck_assert_int_eq(memprof_init(4096), 0);
	expect_failure(memprof_marker("m"), ENOTCONN);
	expect_failure(memprof_gc_event(1, 2), ENOTCONN);
	expect_failure(memprof_marker(NULL), EINVAL);
}
END_TEST

__attribute__((noinline)) static int record_here(void *block, size_t size)
{
	int tracked = profiler_record_alloc(block, size, 0, 0, 1);

	__asm__ volatile("" ::: "memory"); /* keep this frame */
	return tracked;
}

START_TEST(snapshot_stats_and_stacks)
{
	static char block[2 * SAMPLED_ALIGNMENT] __attribute__((aligned(4096)));
	memprof_sample *samples;
	memprof_stats stats;
	memprof_stack stack;
	size_t n;
	double count;
	struct heap_record r;

	ck_assert_int_eq(memprof_init(4096), 0);
	ck_assert_int_eq(memprof_start(), 0);
	ck_assert_int_eq(record_here(block, 100), 1);
	ck_assert_int_eq(memprof_get_snapshot(&samples, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(samples[0].address, (uintptr_t)block);
	ck_assert_uint_eq(samples[0].size, 100);
	ck_assert_uint_eq(samples[0].sampling_rate, 4096);

	ck_assert_int_eq(memprof_get_stack(samples[0].stack_id, &stack), 0);
	/* Linked into this program without its loader, the runtime does not
	 * know its own code, so the leaf frames are its own, in this program. */
	ck_assert_uint_ge(stack.depth, 1);
	ck_assert_ptr_null(stack.functions);
	ck_assert_int_ge(memprof_resolve_symbols(), 1);
	ck_assert_int_eq(memprof_get_stack(samples[0].stack_id, &stack), 0);
	ck_assert_ptr_nonnull(stack.functions);
	ck_assert_ptr_nonnull(stack.modules);
	ck_assert_ptr_nonnull(stack.modules[0]);
	ck_assert_msg(strstr(stack.modules[0], "test-lifecycle") != NULL,
		      "leaf frame in %s", stack.modules[0]);
	expect_failure(memprof_get_stack(12345, &stack), ENOENT);
	memprof_free_snapshot(samples);

	ck_assert_int_eq(memprof_get_stats(&stats), 0);
	ck_assert_uint_eq(stats.total_samples, 1);
	ck_assert_uint_eq(stats.live_samples, 1);
	ck_assert_uint_eq(stats.native_stacks, 1);
	ck_assert_double_eq_tol(stats.estimated_live_bytes,
				memprof_estimate_bytes(100, 4096, &count), 1);
	ck_assert_double_gt(count, 40); /* 100-byte blocks: p ~ 1/41 */

	ck_assert_int_eq(profiler_release(block, &r), 1);
	ck_assert_int_eq(profiler_release(block, &r), 0);
	ck_assert_int_eq(memprof_get_stats(&stats), 0);
	ck_assert_uint_eq(stats.live_samples, 0);
	ck_assert_uint_eq(stats.freed_samples, 1);
	ck_assert_double_eq_tol(stats.estimated_live_bytes, 0, 0.5);
}
END_TEST

START_TEST(estimates_are_unbiased_weights)
{
	double count;

	/* a block as large as the rate: p = 1 - 1/e */
	ck_assert_double_eq_tol(memprof_estimate_bytes(4096, 4096, &count),
				4096 / (1 - exp(-1.0)), 1e-6);
	ck_assert_double_eq_tol(count, 1 / (1 - exp(-1.0)), 1e-9);
	/* huge blocks are certain samples and count as themselves */
	ck_assert_double_eq_tol(memprof_estimate_bytes(100u << 20, 4096, &count),
				100u << 20, 1e-3);
	ck_assert_double_eq_tol(count, 1.0, 1e-9);
	ck_assert_double_eq_tol(memprof_estimate_bytes(0, 4096, &count), 0, 1e-12);
	ck_assert_double_eq_tol(count, 0, 1e-12);
	/* the variance one sample adds: w (w - size), w = size / p */
	ck_assert_double_eq_tol(memprof_estimate_variance(4096, 4096),
				4096 / (1 - exp(-1.0)) *
					(4096 / (1 - exp(-1.0)) - 4096),
				1e-3);
	ck_assert_double_eq_tol(memprof_estimate_variance(100u << 20, 4096), 0,
				1e-3);
	/* the 95 % interval of a sum, as the reader and Python draw it */
	ck_assert_double_eq_tol(memprof_estimate_interval95(4), 3.92, 1e-12);
	ck_assert_double_eq(memprof_estimate_interval95(-1e-3), 0);
}
END_TEST

static atomic_int asking, asked;

static void *ask_all_along(void *unused)
{
	memprof_stats stats;
	memprof_stack stack;

	(void)unused;
	while (atomic_load(&asking)) {
		memprof_get_stats(&stats);
		memprof_get_stack(0, &stack);
		atomic_store(&asked, 1);
	}
	return NULL;
}

/* Asked from another thread while memprof_init() makes its tables (as a
 * control request comes to a runtime loaded late into a busy program),
 * the stats and stacks are those of no table, never of one half made.
 * The instant is short: tried in many new processes. */
START_TEST(stats_asked_while_init_makes_its_tables)
{
	for (int run = 0; run < 300; run++) {
		pid_t child = fork();
		int status;

		ck_assert_int_ge(child, 0);
		if (child == 0) {
			pthread_t asker;

			atomic_store(&asking, 1);
			if (pthread_create(&asker, NULL, ask_all_along, NULL))
				_exit(3);
			while (!atomic_load(&asked))
				;
			status = memprof_init(4096);
			atomic_store(&asking, 0);
			pthread_join(asker, NULL);
			_exit(status == 0 ? 0 : 4);
		}
		ck_assert_int_eq(waitpid(child, &status, 0), child);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "run %d: wait status %#x", run, status);
	}
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("lifecycle");
	TCase *tc = tcase_create("lifecycle");

	/* each test runs in its own process: the profiler is one-way */
	tcase_add_test(tc, state_machine);
	tcase_add_test(tc, no_profile_file_without_output);
	tcase_add_test(tc, snapshot_stats_and_stacks);
	tcase_add_test(tc, estimates_are_unbiased_weights);
	tcase_add_test(tc, stats_asked_while_init_makes_its_tables);
	suite_add_tcase(s, tc);
	return s;
}
