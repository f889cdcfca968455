/* spprof/memprof-pool.h - reports of allocators the runtime cannot see.
 *
 * A pool or arena allocator hands out blocks that malloc() never sees.
 * It reports them here, and the runtime samples them as it samples
 * malloc's blocks (the same Poisson process over bytes, the same stacks):
 *
 *   void *p = carve_from_my_chunk(pool, size);
 *   memprof_pool_alloc(p, size);      - the block is handed out
 *   ...
 *   memprof_pool_free(p);             - the block is given back
 *   put_back_into_my_chunk(pool, p);
 *
 * The contract:
 *  - Header only, nothing to link: a program or library that includes it
 *    links and runs without libspprof-alloc, and the calls then do
 *    nothing.  The runtime is looked up once, by name in the process
 *    (dlsym), at the first call of each file that includes this header;
 *    a runtime loaded later with dlopen() is not seen by files that
 *    looked before.  GNU C (gcc, clang) and glibc 2.34 or later, or
 *    -ldl with older ones.
 *  - Cheap: a report is a load, a load and a branch not taken when the
 *    runtime is absent, or loaded but not sampling (dormant, stopped)
 *    while no reported block was ever sampled; a sampling runtime adds a
 *    call and a subtraction, as malloc() pays.
 *  - memprof_pool_alloc() once per block handed out, memprof_pool_free()
 *    once when it is given back, with the same pointer, before another
 *    block is reported at that address.  A reallocation is a free and an
 *    alloc.  Async-signal-safe after the first call of the file.
 *  - Reported blocks live apart from malloc's: a block may sit at the
 *    address of a malloc block (the first block of a chunk does), and the
 *    two stay distinct.  A sampled block's address in snapshots and
 *    profiles is its key, MEMPROF_POOL_KEY(address), so that it never
 *    equals a malloc block's.
 *  - A chunk that the pool took from malloc() and carves into reported
 *    blocks would count twice (once as the chunk, once as its blocks):
 *    memprof_pool_chunk(chunk) after the chunk's malloc() says so, and
 *    the runtime then counts its blocks only.  A pool that does not call
 *    it shows both: its chunks at the site that grew it, its blocks at
 *    their callers.  Chunks taken with mmap() or from static storage need
 *    no call.
 *
 * The runtime's entry points below may also be called directly by a
 * program linked with -lspprof-alloc (see memprof_report_alloc(3)).
 */
#ifndef SPPROF_MEMPROF_POOL_H
#define SPPROF_MEMPROF_POOL_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a sampled reported block is known by in snapshots and profiles:
 * the address shifted left by two with the top bit set, which no malloc
 * block has (user addresses are below 2^57), and a multiple of 4 for any
 * address (pools of strings align to one byte). */
#define MEMPROF_POOL_KEY_BIT ((uint64_t)1 << 63)
#define MEMPROF_POOL_KEY(address) \
	(MEMPROF_POOL_KEY_BIT | ((uint64_t)(uintptr_t)(address) << 2))
#define MEMPROF_POOL_ADDRESS(key) \
	((uintptr_t)(((uint64_t)(key) & ~MEMPROF_POOL_KEY_BIT) >> 2))

/* The words a report reads before calling in: allocs non-zero while
 * the runtime samples; frees non-zero once it sampled a reported block
 * (whose free it must then see).  Valid for the life of the process. */
struct memprof_gates {
	const int *allocs;
	const int *frees;
};

/* The runtime's entry points (libspprof-alloc). */
void memprof_report_alloc(void *block, size_t size);
void memprof_report_free(void *block);
void memprof_report_chunk(void *chunk);
const struct memprof_gates *memprof_report_gates(void);

/* What follows is the header's own machinery: one copy per file. */

struct memprof_pool_runtime_ {
	const int *allocs;
	const int *frees;
	void (*alloc)(void *, size_t);
	void (*free)(void *);
	void (*chunk)(void *);
};

/* An open gate until the runtime is looked up, then a closed one when
 * it is absent. */
static const int memprof_pool_open_ = 1;
static const int memprof_pool_closed_ = 0;

static void memprof_pool_resolve_alloc_(void *block, size_t size);
static void memprof_pool_resolve_free_(void *block);
static void memprof_pool_resolve_chunk_(void *chunk);

static struct memprof_pool_runtime_ memprof_pool_runtime_ = {
	&memprof_pool_open_,		&memprof_pool_open_,
	memprof_pool_resolve_alloc_,	memprof_pool_resolve_free_,
	memprof_pool_resolve_chunk_,
};

#define MEMPROF_POOL_LOAD_(p) __atomic_load_n(&(p), __ATOMIC_RELAXED)
#define MEMPROF_POOL_STORE_(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELAXED)

static void memprof_pool_absent_alloc_(void *block, size_t size)
{
	(void)block;
	(void)size;
}

static void memprof_pool_absent_one_(void *block)
{
	(void)block;
}

/* A symbol of the runtime, or NULL; RTLD_DEFAULT is (void *)0, which
 * <dlfcn.h> names only with _GNU_SOURCE. */
#define MEMPROF_POOL_FIND_(type, name) \
	(__extension__(type)dlsym((void *)0, name))

/* Looks the runtime up (twice at worst, by two threads at once: both
 * find the same).  The functions are stored before the gates that lead
 * to them. */
static void memprof_pool_resolve_(void)
{
	struct memprof_pool_runtime_ *r = &memprof_pool_runtime_;
	const struct memprof_gates *(*gates)(void) = MEMPROF_POOL_FIND_(
		const struct memprof_gates *(*)(void), "memprof_report_gates");
	void (*alloc_fn)(void *, size_t) = MEMPROF_POOL_FIND_(
		void (*)(void *, size_t), "memprof_report_alloc");
	void (*free_fn)(void *) = MEMPROF_POOL_FIND_(
		void (*)(void *), "memprof_report_free");
	void (*chunk_fn)(void *) = MEMPROF_POOL_FIND_(
		void (*)(void *), "memprof_report_chunk");
	const struct memprof_gates *g = gates ? gates() : NULL;

	if (!g || !alloc_fn || !free_fn || !chunk_fn) {
		MEMPROF_POOL_STORE_(r->alloc, &memprof_pool_absent_alloc_);
		MEMPROF_POOL_STORE_(r->free, &memprof_pool_absent_one_);
		MEMPROF_POOL_STORE_(r->chunk, &memprof_pool_absent_one_);
		MEMPROF_POOL_STORE_(r->allocs, &memprof_pool_closed_);
		MEMPROF_POOL_STORE_(r->frees, &memprof_pool_closed_);
		return;
	}
	MEMPROF_POOL_STORE_(r->alloc, alloc_fn);
	MEMPROF_POOL_STORE_(r->free, free_fn);
	MEMPROF_POOL_STORE_(r->chunk, chunk_fn);
	MEMPROF_POOL_STORE_(r->allocs, g->allocs);
	MEMPROF_POOL_STORE_(r->frees, g->frees);
}

static void memprof_pool_resolve_alloc_(void *block, size_t size)
{
	memprof_pool_resolve_();
	if (MEMPROF_POOL_LOAD_(*memprof_pool_runtime_.allocs))
		MEMPROF_POOL_LOAD_(memprof_pool_runtime_.alloc)(block, size);
}

static void memprof_pool_resolve_free_(void *block)
{
	memprof_pool_resolve_();
	if (MEMPROF_POOL_LOAD_(*memprof_pool_runtime_.frees))
		MEMPROF_POOL_LOAD_(memprof_pool_runtime_.free)(block);
}

static void memprof_pool_resolve_chunk_(void *chunk)
{
	memprof_pool_resolve_();
	MEMPROF_POOL_LOAD_(memprof_pool_runtime_.chunk)(chunk);
}

/* The block of size bytes at block is handed out by the pool. */
static inline void memprof_pool_alloc(void *block, size_t size)
{
	if (__builtin_expect(MEMPROF_POOL_LOAD_(*MEMPROF_POOL_LOAD_(
				     memprof_pool_runtime_.allocs)),
			     0))
		MEMPROF_POOL_LOAD_(memprof_pool_runtime_.alloc)(block, size);
}

/* The block reported at block is given back to the pool. */
static inline void memprof_pool_free(void *block)
{
	if (__builtin_expect(MEMPROF_POOL_LOAD_(*MEMPROF_POOL_LOAD_(
				     memprof_pool_runtime_.frees)),
			     0))
		MEMPROF_POOL_LOAD_(memprof_pool_runtime_.free)(block);
}

/* chunk, a block that malloc() just returned, is carved into blocks
 * that the pool reports: only they count.  Seldom called (once per
 * chunk), so it always calls in. */
static inline void memprof_pool_chunk(void *chunk)
{
	MEMPROF_POOL_LOAD_(memprof_pool_runtime_.chunk)(chunk);
}

#undef MEMPROF_POOL_FIND_
#undef MEMPROF_POOL_STORE_
#undef MEMPROF_POOL_LOAD_

#ifdef __cplusplus
}
#endif

#endif /* SPPROF_MEMPROF_POOL_H */
