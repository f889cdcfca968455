/* Unit tests of the unwinder inside an allocation hook: reading a stack
 * from the unwind tables never calls malloc (this program replaces malloc
 * to see it), and finds the callers. */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include <spprof/memprof.h>

#include "cfi.h"
#include "code_map.h"
#include "packed_rule.h"
#include "unwind.h"

Suite *test_suite(void);

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *block, size_t size);
void __libc_free(void *block);

static _Atomic int watching;
static _Atomic int calls_while_watching;

static void note_call(void)
{
	if (atomic_load(&watching))
		atomic_fetch_add(&calls_while_watching, 1);
}

void *malloc(size_t size)
{
	note_call();
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	note_call();
	return __libc_calloc(n, size);
}

void *realloc(void *block, size_t size)
{
	note_call();
	return __libc_realloc(block, size);
}

void free(void *block)
{
	note_call();
	__libc_free(block);
}

/* Reads this thread's stack three times with every call to the allocator
 * watched, after a first time that may allocate: finding where a thread's
 * stack ends asks the C library, once per thread. */
static void *capture_watched(void *depth_out)
{
	uint64_t frames[MEMPROF_MAX_STACK_DEPTH];
	struct unwind_result r = unwind_capture(frames,
						MEMPROF_MAX_STACK_DEPTH);

	for (int i = 0; i < 3; i++) {
		atomic_store(&watching, 1);
		r = unwind_capture(frames, MEMPROF_MAX_STACK_DEPTH);
		atomic_store(&watching, 0);
	}
	*(uint32_t *)depth_out = r.depth;
	ck_assert_int_eq(r.method, UNWIND_DWARF);
	return NULL;
}

START_TEST(unwind_tables_never_allocate)
{
	pthread_t thread;
	uint32_t main_depth = 0, thread_depth = 0;

	unwind_init(UNWIND_DWARF);
	capture_watched(&main_depth);
	ck_assert_int_eq(pthread_create(&thread, NULL, capture_watched,
					&thread_depth), 0);
	ck_assert_int_eq(pthread_join(thread, NULL), 0);
	ck_assert_int_eq(atomic_load(&calls_while_watching), 0);
	/* This program is linked with the runtime's code, whose frames are
	 * left out: what remains is the C library's entry code. */
	ck_assert_uint_gt(main_depth, 0);
	ck_assert_uint_gt(thread_depth, 0);
}
END_TEST

#if defined(__x86_64__)
static uintptr_t return_address;

__attribute__((noinline)) static void note_return_address(void)
{
	return_address = (uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

/* The rule at a call in a function that keeps a frame pointer: CFA at
 * rbp + 16, return address below it, the caller's rbp below that. */
__attribute__((noinline)) static void call_with_frame_pointer(void)
{
	note_return_address();
	__asm__ volatile("" ::: "memory");
}

/* Without a frame pointer: CFA from rsp. */
__attribute__((noinline, optimize("omit-frame-pointer"))) static void
call_without_frame_pointer(void)
{
	note_return_address();
	__asm__ volatile("" ::: "memory");
}

static struct frame_rule rule_at(uintptr_t address)
{
	return cfi_find_rule(code_map_lookup(address).eh_frame_hdr,
			     address - 1);
}

START_TEST(rules_from_the_tables)
{
	struct frame_rule r;

	call_with_frame_pointer();
	r = rule_at(return_address);
	ck_assert_int_eq(r.kind, FRAME_STEP);
	ck_assert_int_eq(r.cfa_on_fp, 1);
	ck_assert_int_eq(r.cfa_offset, 16);
	ck_assert_int_eq(r.ra_offset, -8);
	ck_assert_int_eq(r.fp_saved, 1);
	ck_assert_int_eq(r.fp_offset, -16);

	call_without_frame_pointer();
	r = rule_at(return_address);
	ck_assert_int_eq(r.kind, FRAME_STEP);
	ck_assert_int_eq(r.cfa_on_fp, 0);
	ck_assert_int_eq(r.ra_offset, -8);
	ck_assert_int_eq(r.fp_saved, 0);

	/* An address in no function of the tables. */
	ck_assert_int_eq(cfi_find_rule(code_map_lookup(return_address)
					       .eh_frame_hdr,
				       0x1000)
				 .kind,
			 FRAME_UNKNOWN);
}
END_TEST
#endif

static void expect_round_trip(struct frame_rule rule)
{
	struct frame_rule back;

	ck_assert(rule_packable(&rule));
	ck_assert_uint_ne(pack_rule(&rule), 0);
	back = unpack_rule(pack_rule(&rule));
	ck_assert_int_eq(back.kind, rule.kind);
	ck_assert_int_eq(back.cfa_on_fp, rule.cfa_on_fp);
	ck_assert_int_eq(back.cfa_deref, rule.cfa_deref);
	ck_assert_int_eq(back.cfa_offset, rule.cfa_offset);
	ck_assert_int_eq(back.ra_offset, rule.ra_offset);
	ck_assert_int_eq(back.fp_saved, rule.fp_saved);
	ck_assert_int_eq(back.fp_near_fp, rule.fp_near_fp);
	ck_assert_int_eq(back.fp_offset, rule.fp_offset);
}

/* The rules of the cache: x86-64's, with the return address next to the
 * CFA, and arm64's, whose frame record lies at the bottom of a frame of
 * several KiB, are cached alike. */
START_TEST(rules_are_packed_in_one_word)
{
	const int32_t w = (int32_t)sizeof(uintptr_t);
	struct frame_rule rule = { .kind = FRAME_STEP, .cfa_offset = 16,
				   .ra_offset = -w, .fp_saved = 1,
				   .fp_offset = -2 * w };

	expect_round_trip(rule);
	rule = (struct frame_rule){ .kind = FRAME_STEP, .cfa_offset = 8304,
				    .ra_offset = -8304 + w, .fp_saved = 1,
				    .fp_offset = -8304 };
	expect_round_trip(rule);
	rule.cfa_on_fp = rule.fp_near_fp = 1;
	rule.cfa_offset = -(1 << 23);
	rule.ra_offset = 32767 * w;
	rule.fp_offset = -32768 * w;
	expect_round_trip(rule);
	rule = (struct frame_rule){ .kind = FRAME_OUTERMOST, .cfa_deref = 1,
				    .cfa_offset = (1 << 23) - 1 };
	expect_round_trip(rule);
	rule.cfa_offset = 1 << 23;
	ck_assert(!rule_packable(&rule));
	rule.cfa_offset = 0;
	rule.ra_offset = 32768 * w;
	ck_assert(!rule_packable(&rule));
	rule.ra_offset = 1;
	ck_assert(!rule_packable(&rule));
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("unwind");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, unwind_tables_never_allocate);
#if defined(__x86_64__)
	tcase_add_test(tc, rules_from_the_tables);
	tcase_add_test(tc, rules_are_packed_in_one_word);
#endif
	suite_add_tcase(s, tc);
	return s;
}
