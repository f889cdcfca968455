/* edge-cases.c - the malloc family keeps the C library's semantics.
 *
 * Checks each interposed function at its edges: zero sizes, overflowing
 * and impossible sizes (NULL with ENOMEM), bad alignments (EINVAL with
 * errno untouched), alignment and usable size of the blocks, zeroed calloc
 * memory where a freed block full of garbage would be reused, contents
 * kept by realloc in both directions, realloc(p, 0) freeing like glibc,
 * and errno left alone by every successful call.  Runs with or without
 * the runtime.  When the runtime is active, realloc is also driven
 * through all four transitions between sampled and unsampled blocks.
 * With --all-sampled (SPPROF_SAMPLING_RATE=1), every block of 64 bytes or
 * more must be sampled with its exact size, and a block whose realloc
 * failed must still be.  With --full-tables, blocks are sampled until the
 * live-block table is full and must keep working (their contents, realloc,
 * free) when the runtime has to hand out ordinary blocks instead.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime-api.h"

#define KiB ((size_t)1024)
#define MiB (KiB * KiB)
#define GARBAGE 0xA5
#define UNTOUCHED_ERRNO ESRCH /* a value no allocator sets */
#define MIN_SURE_SAMPLE 64    /* at rate 1, p = 1 - exp(-64) */

static struct runtime_api api;
static int runtime_active; /* the runtime is loaded and sampling */
static int all_sampled;    /* --all-sampled */
static int failures;

#define CHECK(cond, ...) check((cond), __LINE__, __VA_ARGS__)

static void check(int ok, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check(int ok, int line, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	fprintf(stderr, "edge-cases.c:%d: ", line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	failures++;
}

/* errno before a call that must succeed without touching it. */
static void arm_errno(void)
{
	errno = UNTOUCHED_ERRNO;
}

#define CHECK_ERRNO_KEPT(what) \
	CHECK(errno == UNTOUCHED_ERRNO, "%s changed errno to %d", what, errno)

/* Values the compiler cannot follow: it would rightly warn about the
 * impossible sizes and the uses of pointers after realloc() that are
 * tested here. */
static size_t opaque_size(size_t n)
{
	volatile size_t v = n;

	return v;
}

static void *opaque(void *p)
{
	void *volatile v = p;

	return v;
}

static int is_aligned(const void *p, size_t alignment)
{
	return (uintptr_t)p % alignment == 0;
}

/* With --all-sampled, the runtime must hold a live sample of `size` bytes
 * for block (tiny blocks may escape a rate-1 sampler). */
static void check_sampled(const void *block, size_t size, const char *what)
{
	memprof_sample s;

	if (!all_sampled || size < MIN_SURE_SAMPLE)
		return;
	if (!runtime_api_find_sample(&api, (uintptr_t)block, &s))
		CHECK(0, "%s: block %p of %zu bytes not sampled", what, block,
		      size);
	else
		CHECK(s.size == size, "%s: sampled as %llu bytes, not %zu",
		      what, (unsigned long long)s.size, size);
}

static int is_sampled(uintptr_t address)
{
	memprof_sample s;

	return runtime_api_find_sample(&api, address, &s);
}

/* A block from a call that must have succeeded: errno kept, aligned, at
 * least `size` usable bytes, sampled when all must be.  Writes all of it
 * and frees it. */
static void check_block(void *p, size_t alignment, size_t size,
			const char *what)
{
	CHECK_ERRNO_KEPT(what);
	CHECK(p && is_aligned(p, alignment) && malloc_usable_size(p) >= size,
	      "%s gave %p with %zu bytes for %zu bytes aligned to %zu", what,
	      p, malloc_usable_size(p), size, alignment);
	if (!p)
		return;
	check_sampled(p, size, what);
	memset(p, 1, size);
	free(p);
}

static void fill(void *block, size_t size, unsigned seed)
{
	for (size_t i = 0; i < size; i++)
		((uint8_t *)block)[i] = (uint8_t)(i * 7 + seed);
}

static int filled(const void *block, size_t size, unsigned seed)
{
	for (size_t i = 0; i < size; i++)
		if (((const uint8_t *)block)[i] != (uint8_t)(i * 7 + seed))
			return 0;
	return 1;
}

static int all_zero(const void *block, size_t size)
{
	for (size_t i = 0; i < size; i++)
		if (((const uint8_t *)block)[i])
			return 0;
	return 1;
}

/* A NULL result with errno ENOMEM. */
static void check_enomem(void *result, const char *what)
{
	CHECK(result == NULL && errno == ENOMEM,
	      "%s: expected NULL and ENOMEM, got %p and errno %d", what,
	      result, errno);
	free(result);
}

static void test_malloc(void)
{
	void *a, *b;

	arm_errno();
	a = malloc(0);
	b = malloc(0);
	CHECK_ERRNO_KEPT("malloc(0)");
	CHECK(a && b && a != b, "malloc(0) gave %p and %p", a, b);
	free(a);
	free(b);
	arm_errno();
	free(NULL);
	CHECK_ERRNO_KEPT("free(NULL)");
	check_enomem(malloc(opaque_size(SIZE_MAX)), "malloc(SIZE_MAX)");
	check_enomem(malloc(opaque_size((size_t)PTRDIFF_MAX + 1)),
		     "malloc(PTRDIFF_MAX+1)");
	for (size_t size = 1; size <= 4 * MiB; size = size * 3 + 1) {
		arm_errno();
		check_block(malloc(size), 16, size, "malloc");
	}
	CHECK(malloc_usable_size(NULL) == 0, "malloc_usable_size(NULL) != 0");
}

#define HALF_SIZE_BITS ((size_t)1 << (sizeof(size_t) * CHAR_BIT / 2))

static void test_calloc_overflow(void)
{
	void *p;

	check_enomem(calloc(opaque_size(SIZE_MAX / 2 + 1), 2),
		     "calloc(SIZE_MAX/2+1, 2)");
	check_enomem(calloc(2, opaque_size(SIZE_MAX)), "calloc(2, SIZE_MAX)");
	/* Half the bits of a size_t each: the product is 2^32 or 2^64. */
	check_enomem(calloc(opaque_size(HALF_SIZE_BITS), HALF_SIZE_BITS),
		     "calloc(2^(bits/2), 2^(bits/2))");
	check_enomem(calloc(1, opaque_size(SIZE_MAX)), "calloc(1, SIZE_MAX)");
	arm_errno();
	p = calloc(0, 16);
	CHECK(p != NULL, "calloc(0, 16) gave NULL");
	free(p);
	p = calloc(16, 0);
	CHECK(p != NULL, "calloc(16, 0) gave NULL");
	CHECK_ERRNO_KEPT("calloc with a zero count");
	free(p);
}

/* calloc must clear blocks that reuse freed memory full of garbage. */
static void test_calloc_zero(void)
{
	static const size_t sizes[] = { 1,	  24,	    100,      1000,
					4096,	  5000,	    64 * KiB, 200 * KiB,
					1 * MiB, 5 * MiB + 3 };

	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t n = sizes[i];
			void *old = malloc(n);
			unsigned char *p;

			CHECK(old != NULL, "malloc(%zu) failed", n);
			memset(old, GARBAGE, n);
			free(old);
			arm_errno();
			p = round == 1 && n % 4 == 0 ? calloc(n / 4, 4)
						     : calloc(n, 1);
			CHECK_ERRNO_KEPT("calloc");
			CHECK(p && all_zero(p, n),
			      "calloc(%zu) memory is not zero", n);
			check_sampled(p, n, "calloc");
			if (p)
				memset(p, GARBAGE, n);
			free(p);
		}
	}
}

static void test_reallocarray(void)
{
	unsigned char *p = malloc(64), *q;

	fill(p, 64, 1);
	check_enomem(reallocarray(opaque(p), opaque_size(SIZE_MAX / 2), 4),
		     "reallocarray overflow");
	CHECK(filled(p, 64, 1), "a failed reallocarray changed the block");
	arm_errno();
	q = reallocarray(p, 16, 8);
	CHECK_ERRNO_KEPT("reallocarray");
	CHECK(q && filled(q, 64, 1), "reallocarray lost the contents");
	check_sampled(q, 128, "reallocarray");
	free(q);
}

static void test_realloc_edges(void)
{
	uintptr_t address;
	void *p;

	arm_errno();
	p = realloc(NULL, 100);
	CHECK_ERRNO_KEPT("realloc(NULL, 100)");
	CHECK(p != NULL, "realloc(NULL, 100) gave NULL");
	check_sampled(p, 100, "realloc(NULL, n)");
	fill(p, 100, 2);
	check_enomem(realloc(opaque(p), opaque_size(SIZE_MAX)),
		     "realloc(p, SIZE_MAX)");
	check_enomem(realloc(opaque(p), opaque_size((size_t)PTRDIFF_MAX + 1)),
		     "realloc(p, PTRDIFF_MAX+1)");
	CHECK(filled(p, 100, 2), "a failed realloc changed the block");
	check_sampled(p, 100, "block after a failed realloc");
	/* glibc frees the block and returns NULL. */
	address = (uintptr_t)p;
	arm_errno();
	CHECK(realloc(p, 0) == NULL, "realloc(p, 0) did not return NULL");
	CHECK_ERRNO_KEPT("realloc(p, 0)");
	CHECK(!all_sampled || !is_sampled(address),
	      "block freed by realloc(p, 0) still sampled");
	p = realloc(NULL, 0);
	CHECK(p != NULL, "realloc(NULL, 0) gave NULL");
	free(p);
}

/* Grows and shrinks one block through sizes that cross glibc's bins and
 * its mmap threshold; the common prefix must survive every step. */
static void test_realloc_contents(void)
{
	static const size_t sizes[] = { 1,	   24,	     100,     4000,
					5000,	   70 * KiB, 300 * KiB, 2 * MiB,
					100 * KiB, 3000,     10,	200,
					1 * MiB,   16 };
	size_t old = sizes[0];
	unsigned char *p = malloc(old);

	fill(p, old, 3);
	for (size_t i = 1; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i], kept = old < n ? old : n;

		arm_errno();
		p = realloc(p, n);
		CHECK_ERRNO_KEPT("realloc");
		CHECK(p && filled(p, kept, 3),
		      "realloc from %zu to %zu bytes lost the contents", old,
		      n);
		check_sampled(p, n, "realloc");
		fill(p, n, 3);
		old = n;
	}
	free(p);
}

/* The bytes malloc_usable_size() offers beyond the size asked for are the
 * program's: realloc keeps them all, as the C library does. */
static void test_realloc_keeps_usable_bytes(void)
{
	static const size_t sizes[] = { 100, 5000, 70 * KiB, 300 * KiB };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned char *p = malloc(sizes[i]), *q;
		size_t usable = p ? malloc_usable_size(p) : 0;

		CHECK(p && usable >= sizes[i], "malloc(%zu) gave %zu bytes",
		      sizes[i], usable);
		if (!p)
			continue;
		fill(p, usable, 5);
		q = realloc(p, 2 * usable);
		CHECK(q && filled(q, usable, 5),
		      "realloc of a %zu-byte block lost bytes of its %zu "
		      "usable ones", sizes[i], usable);
		free(q ? q : p);
	}
}

/* More sampled blocks live at once than the runtime's 64 MiB pool of
 * pages holds: the ones that do not fit are served otherwise, and all of
 * them behave like any block (sampled, when all must be). */
static void test_pool_overflow(void)
{
	enum { BLOCKS = 700, SIZE = 100 * 1024 };
	unsigned char **blocks = calloc(BLOCKS, sizeof(*blocks));

	CHECK(blocks != NULL, "no memory for %d pointers", BLOCKS);
	if (!blocks)
		return;
	for (size_t i = 0; i < BLOCKS; i++) {
		blocks[i] = malloc(SIZE + i);
		CHECK(blocks[i] != NULL, "malloc %zu of %d failed", i, BLOCKS);
		if (!blocks[i])
			continue;
		check_sampled(blocks[i], SIZE + i, "pool overflow");
		blocks[i][0] = (unsigned char)i;
		blocks[i][SIZE + i - 1] = (unsigned char)~i;
	}
	for (size_t i = 0; i < BLOCKS; i++) {
		if (!blocks[i])
			continue;
		CHECK(blocks[i][0] == (unsigned char)i &&
			      blocks[i][SIZE + i - 1] == (unsigned char)~i,
		      "block %zu of %d lost its contents", i, BLOCKS);
		free(blocks[i]);
	}
	free(blocks);
}

/* realloc between sampled and unsampled blocks, both ways, growing and
 * shrinking: at rate 1 every block is sampled (a new rate holds at once
 * for the thread that sets it), and stop() keeps new blocks unsampled.
 * Rate 1 leaves samples in place, so where a resized block goes is the C
 * library's choice, as without the runtime (whether a pool block keeps
 * its pages is test-sample-pool's); each step keeps the contents and is
 * sampled exactly when the sampler was on. */
static void test_realloc_transitions(void)
{
	static const struct {
		size_t size;
		int sampled;
	} steps[] = { { 5000, 1 },  { 6000, 0 }, { 7000, 1 },  { 9000, 0 },
		      { 3000, 0 },  { 20000, 1 }, { 2000, 1 },  { 1000, 0 },
		      { 100, 1 },   { 70000, 0 }, { 300, 1 },   { 200000, 1 } };
	memprof_stats stats;
	unsigned char *p = NULL;
	uintptr_t address;
	size_t old = 0;

	if (!runtime_active || api.get_stats(&stats) < 0)
		return;
	api.set_sampling_rate(1);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		size_t n = steps[i].size, kept = old < n ? old : n;

		if (steps[i].sampled)
			api.start();
		else
			api.stop();
		p = realloc(p, n);
		CHECK(p && filled(p, kept, 4),
		      "realloc from %zu to %zu bytes lost the contents", old,
		      n);
		CHECK(is_sampled((uintptr_t)p) == steps[i].sampled,
		      "step %zu: block of %zu bytes %s sampled", i, n,
		      steps[i].sampled ? "not" : "wrongly");
		fill(p, n, 4);
		old = n;
	}
	address = (uintptr_t)p;
	free(p);
	CHECK(!is_sampled(address), "freed block still sampled");
	api.start();
	api.set_sampling_rate(stats.sampling_rate);
}

/* Blocks sampled apart from the C library's (from the pool, or carved
 * out of a larger block) stay usable once a small rate leaves new
 * samples in place: resized, they keep their contents and find their way
 * back to the C library.  Runs before anything sets such a rate, which
 * holds from then on. */
static void test_samples_kept_apart_then_in_place(void)
{
	static const size_t sizes[] = { 3000, 300000 };
	memprof_stats stats;
	unsigned char *blocks[2] = { NULL, NULL };

	if (!runtime_active || api.get_stats(&stats) < 0 ||
	    stats.sampling_rate < 64 * 1024)
		return;
	api.set_sampling_rate(64 * 1024);
	for (int i = 0; i < 2; i++) {
		/* kept only once sampled: a few tries at most */
		for (int tries = 0; tries < 1000 && !blocks[i]; tries++) {
			blocks[i] = malloc(sizes[i]);
			if (blocks[i] && !is_sampled((uintptr_t)blocks[i])) {
				free(blocks[i]);
				blocks[i] = NULL;
			}
		}
		CHECK(blocks[i] != NULL, "no block of %zu bytes sampled",
		      sizes[i]);
		if (blocks[i])
			fill(blocks[i], sizes[i], 7);
	}
	api.set_sampling_rate(1);
	for (int i = 0; i < 2; i++) {
		unsigned char *grown;

		if (!blocks[i])
			continue;
		grown = realloc(blocks[i], sizes[i] * 2);
		CHECK(grown && filled(grown, sizes[i], 7),
		      "a block of %zu bytes sampled apart lost its contents "
		      "when resized in place mode", sizes[i]);
		CHECK(malloc_usable_size(grown) >= sizes[i] * 2,
		      "resized to %zu bytes, it has %zu", sizes[i] * 2,
		      malloc_usable_size(grown));
		free(grown);
	}
	api.set_sampling_rate(stats.sampling_rate);
}

/* Fills the live-block table with sampled blocks, then allocates and
 * resizes more: the blocks the table cannot take must behave like any. */
static void test_full_tables(void)
{
	enum { BLOCK = 1000, GROWN = 3000 };
	memprof_stats stats;
	unsigned char **blocks;
	size_t count;

	if (api.get_stats(&stats) < 0)
		return;
	count = stats.heap_map_capacity + 64;
	blocks = calloc(count, sizeof(*blocks));
	CHECK(blocks != NULL, "no memory for %zu pointers", count);
	if (!blocks)
		return;
	api.set_sampling_rate(1);
	for (size_t i = 0; i < count; i++) {
		blocks[i] = malloc(BLOCK);
		CHECK(blocks[i] != NULL, "malloc %zu of %zu failed", i, count);
		if (blocks[i])
			fill(blocks[i], BLOCK, (unsigned char)i);
	}
	for (size_t i = 0; i < count; i++) {
		unsigned char *grown = realloc(blocks[i], GROWN);

		CHECK(grown && filled(grown, BLOCK, (unsigned char)i),
		      "realloc %zu of a full table lost the contents", i);
		if (grown)
			blocks[i] = grown;
	}
	CHECK(api.get_stats(&stats) == 0 && stats.heap_map_full_drops > 0,
	      "%zu live samples did not fill a table of %llu slots", count,
	      (unsigned long long)stats.heap_map_capacity);
	for (size_t i = 0; i < count; i++)
		free(blocks[i]);
	free(blocks);
	api.set_sampling_rate(stats.sampling_rate);
}

static void test_posix_memalign(void)
{
	/* Not powers of two, or not multiples of sizeof(void *). */
	static const size_t bad[] = { 0, 1, 2, 3, sizeof(void *) / 2, 24, 48,
				      4097 };
	void *sentinel = &api, *p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = sentinel;
		arm_errno();
		CHECK(posix_memalign(&p, bad[i], 100) == EINVAL,
		      "posix_memalign alignment %zu not EINVAL", bad[i]);
		CHECK_ERRNO_KEPT("a failing posix_memalign");
		CHECK(p == sentinel, "a failing posix_memalign stored %p", p);
	}
	CHECK(posix_memalign(&p, 64, opaque_size(SIZE_MAX / 2)) == ENOMEM,
	      "posix_memalign of SIZE_MAX/2 bytes not ENOMEM");
	for (size_t align = sizeof(void *); align <= MiB; align *= 2) {
		for (size_t size = 1; size <= 3 * MiB; size = size * 37 + 11) {
			p = NULL;
			arm_errno();
			CHECK(posix_memalign(&p, align, size) == 0,
			      "posix_memalign(%zu, %zu) failed", align, size);
			check_block(p, align, size, "posix_memalign");
		}
	}
}

/* aligned_alloc, memalign and valloc: aligned blocks of at least the size;
 * pvalloc: whole pages. */
static void test_aligned_functions(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	for (size_t align = 16; align <= MiB; align *= 4) {
		arm_errno();
		check_block(aligned_alloc(align, align * 3), align, align * 3,
			    "aligned_alloc");
		arm_errno();
		check_block(memalign(align, align + 5), align, align + 5,
			    "memalign");
	}
	/* glibc rounds an alignment that is not a power of two up. */
	p = memalign(48, 100);
	CHECK(p && is_aligned(p, 64), "memalign(48, 100) gave %p", p);
	free(p);
	check_enomem(memalign(64, opaque_size(SIZE_MAX)),
		     "memalign(64, SIZE_MAX)");
	for (size_t size = 1; size <= 3 * page; size += page / 2 + 1) {
		size_t whole = (size + page - 1) / page * page;

		arm_errno();
		check_block(valloc(size), page, size, "valloc");
		arm_errno();
		check_block(pvalloc(size), page, whole, "pvalloc");
	}
	p = pvalloc(0);
	CHECK(p && is_aligned(p, page), "pvalloc(0) gave %p", p);
	free(p);
	check_enomem(valloc(opaque_size(SIZE_MAX)), "valloc(SIZE_MAX)");
	check_enomem(pvalloc(opaque_size(SIZE_MAX)), "pvalloc(SIZE_MAX)");
}

int main(int argc, char **argv)
{
	memprof_stats stats;

	int full_tables = argc > 1 && !strcmp(argv[1], "--full-tables");

	all_sampled = argc > 1 && !strcmp(argv[1], "--all-sampled");
	runtime_active = runtime_api_load(&api) == 0 &&
			 api.get_stats(&stats) == 0 && stats.heap_map_capacity;
	if ((all_sampled || full_tables) && !runtime_active) {
		fprintf(stderr, "edge-cases: %s needs an active runtime\n",
			argv[1]);
		return 2;
	}
	if (full_tables)
		test_full_tables();
	test_malloc();
	test_calloc_overflow();
	test_calloc_zero();
	test_reallocarray();
	test_realloc_edges();
	test_realloc_contents();
	test_realloc_keeps_usable_bytes();
	test_samples_kept_apart_then_in_place();
	test_realloc_transitions();
	test_pool_overflow();
	test_posix_memalign();
	test_aligned_functions();
	if (runtime_active && api.get_stats(&stats) == 0)
		printf("edge-cases: %llu allocations sampled\n",
		       (unsigned long long)stats.total_samples);
	printf("edge-cases: %d failures\n", failures);
	return failures ? 1 : 0;
}
