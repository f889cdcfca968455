/* interpose.c - the malloc family, as seen by the program.
 *
 * Every entry point first spends the thread's sampling budget (one
 * compare and subtract) and calls the C library directly when no sample
 * falls in the block.  A sampled block gets an address aligned to
 * SAMPLED_ALIGNMENT: a run of pages of the runtime's pool when it fits
 * (see sample_pool.h), else carved out of a C-library block one alignment
 * larger and recorded with its offset.  free() and realloc() look up only
 * pointers with that alignment (see free_filter.h) and give the C library
 * back its own pointer.  The C library's semantics (errno, overflow
 * checks, realloc(p, 0), alignment errors) are kept by delegating every
 * unsampled call, and by checking the same conditions before sampling.
 */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compiler.h"
#include "free_filter.h"
#include "interpose.h"
#include "profiler.h"
#include "real_alloc.h"
#include "sample_pool.h"
#include "sampler.h"
#include "usable_size.h"

#define MIN_ALIGNMENT 16

/* Slow paths stay out of line so that the fast path of each entry point
 * needs no registers saved beyond the frame pointer.  They are not marked
 * cold: a sample takes them often enough, and code built for size copies
 * a block's data byte by byte. */
#define SLOW_PATH __attribute__((noinline))

static int is_power_of_two(size_t n)
{
	return n && !(n & (n - 1));
}

/* The sampled path starts here (and, for a sampled block given back, in
 * free_slow() and realloc_slow()).  It runs inside the program's call to
 * the allocator, so the program may hold any lock it takes around an
 * allocation: the runtime never waits for such a lock, nor for a lock of
 * its own that a thread waiting for such a lock may hold.  What the path
 * reaches, and why it cannot wait for the program:
 *  - the runtime's own locks (the writer's, the names', the heap map's
 *    gate, the pool's and the stack table's compare-and-swaps) guard a
 *    few hundred instructions of its own memory and system calls (open,
 *    write, mmap, ftruncate, fallocate, readlink, getcwd, nanosleep,
 *    sched_yield, pthread_sigmask), snprintf into a buffer (no stream,
 *    no lock) and strerrordesc_np; messages go out with write(2), never
 *    through stdio, whose stream locks the program holds while stdio
 *    allocates (getline, a stream's first buffer);
 *  - a few times a second, the process's resident memory is read from
 *    /proc/self/statm (process_memory.c) with raw openat, read and close
 *    system calls and getauxval(), before the writer's lock is taken: no
 *    lock, no allocation, no cancellation point;
 *  - the runtime's memory comes from mmap; the C library's allocator is
 *    called only for the program's own block, and takes only its own
 *    arena locks, which no program holds outside malloc;
 *  - the thread's stack bounds come from pthread_self() and
 *    __libc_stack_end (unwind.c), not from pthread_getattr_np(), which
 *    allocates while it holds the thread's lock;
 *  - the dynamic loader's lock, which a thread holds while it allocates
 *    inside dlopen(), dlclose() or a dl_iterate_phdr() callback:
 *    _dl_find_object() needs none; dl_iterate_phdr() (code_map.c,
 *    modules.c) is called holding no lock a sampled call waits for (the
 *    code map's rebuild lock is only tried; the module list is refreshed
 *    before the writer's lock is taken, and a refresh under way is waited
 *    for briefly); dlopen, dlsym and dladdr run only at load time; the
 *    runtime is bound at load (-z now), so no lazy symbol lookup runs here;
 *  - fork(): the atfork handlers hold none of the runtime's locks across
 *    fork(), which takes the stream list's lock after them (whose holder
 *    may wait for a stream's lock, whose holder may be allocating); the
 *    child resets what its parent's other threads held;
 *  - the environment (getenv/setenv, whose lock setenv() holds while it
 *    allocates) is read once at load, and changed there without the lock
 *    or an allocation (environ_edit.h); time is clock_gettime() (no time
 *    zone, whose lock tzset() holds while it allocates); randomness is
 *    getrandom() at load; the Python frame walker reads thread-specific
 *    data and the interpreter's frames, and takes no lock.
 * tests/integration/lock-hazards.sh runs each case with every block
 * sampled. */
int interpose_decide(size_t size)
{
	if (unlikely(!real_alloc_init()))
		return -1;
	return sampler_slow_path(size) && profiler_wants_sample();
}

/* The first aligned address inside a C-library block. */
static char *carve(char *base)
{
	return (char *)(((uintptr_t)base + SAMPLED_ALIGNMENT) &
			~(SAMPLED_ALIGNMENT - 1));
}

/* The bytes a sampled block offers its program: what malloc_usable_size()
 * reports, and what realloc() keeps, as the C library does. */
static size_t usable_bytes(const struct heap_record *r)
{
	return r->size + r->slack;
}

/* A sampled block from the pool, with room for `usable` bytes. */
static void *pooled_alloc(size_t size, size_t usable, int zero)
{
	char *block = pool_alloc(usable);

	if (!block)
		return NULL;
	if (zero)
		memset(block, 0, usable);
	if (profiler_record_alloc(block, size, usable - size, POOL_OFFSET, 1))
		return block;
	pool_free(block, usable);
	return NULL;
}

/* A sampled block, with the room the C library would have given it:
 * from the pool when that fits; else carved at the first aligned address
 * inside a C-library block SAMPLED_ALIGNMENT larger (cheaper than
 * memalign, which reshuffles the heap), or from memalign for larger
 * alignments.  When the tables cannot take it, the caller gets an
 * ordinary block instead. */
static void *sampled_alloc(size_t size, size_t alignment, int zero)
{
	size_t usable, padded;
	char *base, *block;

	if (alignment > SAMPLED_ALIGNMENT) {
		block = real.memalign(alignment, size);
		if (block)
			profiler_record_alloc(block, size,
					      real.malloc_usable_size(block) -
						      size,
					      0, 1);
		return block;
	}
	usable = usable_size_of(size, alignment);
	if (usable <= POOL_BLOCK_MAX && (block = pooled_alloc(size, usable, zero)))
		return block;
	if (__builtin_add_overflow(usable, SAMPLED_ALIGNMENT, &padded)) {
		errno = ENOMEM;
		return NULL;
	}
	base = zero ? real.calloc(1, padded) : real.malloc(padded);
	if (!base)
		return NULL;
	block = carve(base);
	if (profiler_record_alloc(block, size, usable - size,
				  (uint32_t)(block - base), 1))
		return block;
	real.free(base);
	return zero ? real.calloc(1, size) : real.malloc(size);
}

/* A sampled block left in place (see IN_PLACE_RATE_MAX): the block the
 * C library gave, as it gave it, tracked with its usable size. */
static void *tracked_in_place(void *block, size_t size)
{
	if (block)
		profiler_record_alloc(block, size,
				      real.malloc_usable_size(block) - size, 0,
				      1);
	return block;
}

SLOW_PATH static void *aligned_slow(size_t alignment, size_t size,
			  void *(*unsampled)(size_t, size_t))
{
	int d = interpose_decide(size);

	if (d < 0)
		return bootstrap_alloc(size, alignment);
	if (d && sampled_blocks_in_place())
		return tracked_in_place(unsampled(alignment, size), size);
	if (d == 0 || !is_power_of_two(alignment))
		return unsampled(alignment, size);
	return sampled_alloc(size, alignment, 0);
}

SLOW_PATH static void *malloc_slow(size_t size)
{
	int d = interpose_decide(size);

	if (d < 0)
		return bootstrap_alloc(size, MIN_ALIGNMENT);
	if (d && sampled_blocks_in_place())
		return tracked_in_place(real.malloc(size), size);
	return d ? sampled_alloc(size, 0, 0) : real.malloc(size);
}

MEMPROF_PUBLIC void *malloc(size_t size)
{
	if (likely(sampler_within_budget(size)))
		return real.malloc(size);
	return malloc_slow(size);
}

SLOW_PATH static void *calloc_slow(size_t n, size_t size, size_t bytes)
{
	int d = interpose_decide(bytes);

	if (d < 0)
		return bootstrap_alloc(bytes, MIN_ALIGNMENT);
	if (d && sampled_blocks_in_place())
		return tracked_in_place(real.calloc(n, size), bytes);
	return d ? sampled_alloc(bytes, 0, 1) : real.calloc(n, size);
}

MEMPROF_PUBLIC void *calloc(size_t n, size_t size)
{
	size_t bytes;

	if (unlikely(__builtin_mul_overflow(n, size, &bytes))) {
		errno = ENOMEM;
		return NULL;
	}
	if (likely(sampler_within_budget(bytes)))
		return real.calloc(n, size);
	return calloc_slow(n, size, bytes);
}

SLOW_PATH static void free_slow(void *block)
{
	struct heap_record r;

	if (!block || is_bootstrap(block))
		return; /* bootstrap blocks are static storage, never given back */
	if (profiler_release(block, &r)) {
		if (r.offset == POOL_OFFSET) {
			pool_free(block, usable_bytes(&r));
			return;
		}
		block = (char *)block - r.offset;
	}
	real.free(block);
}

MEMPROF_PUBLIC void free(void *block)
{
	if (likely(!free_filter_maybe_sampled(block))) {
		real.free(block);
		return;
	}
	free_slow(block);
}

SLOW_PATH static void *realloc_from_bootstrap(void *block, size_t size)
{
	size_t old = bootstrap_usable_size(block);
	void *moved;

	if (size == 0)
		return NULL;
	moved = malloc(size);
	if (moved)
		memcpy(moved, block, old < size ? old : size);
	return moved;
}

/* Makes the run of pool block `block` (room for old_usable bytes) fit
 * `usable` bytes in place and tracks it at its new size: shorter runs
 * give their last pages back once the block is tracked, longer ones
 * claim the pages after it first.  0, with the run as it was, when
 * `usable` is too large for the pool, the pages after the run are taken
 * or the tables have no room. */
static int resize_pooled(char *block, size_t old_usable, size_t size,
			 size_t usable, int sample)
{
	int longer;

	if (usable > POOL_BLOCK_MAX)
		return 0;
	longer = pool_run_bytes(usable) > pool_run_bytes(old_usable);
	if (longer && !pool_extend(block, old_usable, usable))
		return 0;
	if (!profiler_record_alloc(block, size, usable - size, POOL_OFFSET,
				   sample > 0)) {
		if (longer)
			pool_trim(block, usable, old_usable);
		return 0;
	}
	pool_trim(block, old_usable, usable);
	return 1;
}

/* A pool block keeps its place when its run can be resized, tracked even
 * when the sampler did not pick the new size (as a carved block resized
 * in place); else it moves to a new block.  It is released first, so the
 * profile never shows both blocks live at once, and put back if no new
 * block can be had. */
static void *realloc_pooled(char *block, size_t size, struct heap_record *old,
			    int sample)
{
	size_t run = usable_bytes(old);
	void *moved = NULL;

	profiler_release(block, old);
	if (size && resize_pooled(block, run, size,
				  usable_size_of(size, 0), sample))
		return block;
	if (size) {
		moved = sample > 0 ? sampled_alloc(size, 0, 0) : real.malloc(size);
		if (!moved) {
			profiler_restore(block, old);
			return NULL;
		}
		memcpy(moved, block, run < size ? run : size);
	}
	pool_free(block, run);
	return moved;
}

/* The C library serves blocks this large with mmap (its default
 * threshold), and resizes them with mremap, without copying. */
#define REMAPPED_SIZE ((size_t)128 * 1024)

/* Whether realloc() gives a C-library block of `usable` bytes `padded`
 * bytes without copying: it already has the room, or it is remapped. */
static int resizes_without_copy(size_t usable, size_t padded)
{
	return padded <= usable || padded >= REMAPPED_SIZE;
}

/* Copies keep bytes of data into fresh, when there is one, and gives the
 * C library its block old back; returns fresh. */
static void *move_into(void *fresh, const void *data, size_t keep, void *old)
{
	if (fresh) {
		memcpy(fresh, data, keep);
		real.free(old);
	}
	return fresh;
}

/* A C-library block of `padded` bytes holding, at its offset `from`, the
 * keep bytes of base (`usable` bytes): base itself resized when that
 * copies nothing, else a new block, so that the data is copied once rather
 * than by realloc and again to be carved.  NULL (errno set, base intact)
 * when no memory. */
static char *resized_base(char *base, size_t usable, size_t *from,
			  size_t keep, size_t padded)
{
	char *fresh;

	if (resizes_without_copy(usable, padded))
		return real.realloc(base, padded);
	fresh = real.malloc(padded);
	if (!fresh)
		return NULL;
	memcpy(carve(fresh), base + *from, keep);
	*from = (size_t)(carve(fresh) - fresh);
	real.free(base);
	return fresh;
}

/* Resizes a C-library block to the room of size bytes (their usable
 * size as the C library gives it) + SAMPLED_ALIGNMENT and carves it
 * again: the keep bytes at offset `from` end at its aligned address.  The
 * result is a sample only when the sampler picked it, but is tracked
 * either way.  NULL (errno set, the old block intact) when the C library
 * cannot resize it. */
static void *resize_carved(char *base, size_t usable, size_t from,
			   size_t keep, size_t size, int sample)
{
	size_t room = usable_size_of(size, 0), padded;
	char *moved, *carved;

	if (__builtin_add_overflow(room, SAMPLED_ALIGNMENT, &padded)) {
		errno = ENOMEM;
		return NULL;
	}
	moved = resized_base(base, usable, &from, keep, padded);
	if (!moved)
		return NULL;
	carved = carve(moved);
	if (carved != moved + from)
		memmove(carved, moved + from, keep);
	if (profiler_record_alloc(carved, size, room - size,
				  (uint32_t)(carved - moved), sample > 0))
		return carved;
	memmove(moved, carved, keep); /* the tables are full: stop carving */
	return moved;
}

/* A carved block stays carved when resizing it copies nothing, even when
 * the new size is no sample: large buffers keep growing in place.  When
 * its data must move anyway and the sampler did not pick the new size,
 * it becomes an ordinary block. */
static void *realloc_carved(char *block, size_t size,
			    struct heap_record *old, int sample)
{
	char *base = block - old->offset;
	size_t usable = real.malloc_usable_size(base);
	size_t had = usable_bytes(old);
	size_t keep = had < size ? had : size;
	void *moved;

	profiler_release(block, old);
	if (size == 0) {
		real.free(base);
		return NULL; /* realloc(p, 0) frees p */
	}
	if (sample <= 0 && size < REMAPPED_SIZE &&
	    !resizes_without_copy(usable, size + SAMPLED_ALIGNMENT))
		moved = move_into(real.malloc(size), block, keep, base);
	else
		moved = resize_carved(base, usable, old->offset, keep, size,
				      sample);
	if (!moved)
		profiler_restore(block, old);
	return moved;
}

/* A block the C library gave as it is (unsampled, or sampled in place:
 * offset 0) resized by the C library itself, as without the runtime;
 * tracked in place when the sampler picked the new size.  A tracked
 * block is released first, and put back if the C library cannot resize
 * it (tracked: 1, *old its record). */
static void *realloc_in_place(char *block, size_t size, int tracked,
			      struct heap_record *old, int sample)
{
	void *moved;

	if (tracked)
		profiler_release(block, old);
	moved = real.realloc(block, size);
	if (!moved) {
		if (tracked && size)
			profiler_restore(block, old);
		return NULL;
	}
	return sample > 0 ? tracked_in_place(moved, size) : moved;
}

/* An unsampled block whose new size the sampler picked. */
static void *realloc_into_sample(char *block, size_t size)
{
	size_t had = real.malloc_usable_size(block);
	size_t keep = had < size ? had : size;

	if (size > POOL_BLOCK_MAX)
		return resize_carved(block, had, 0, keep, size, 1);
	return move_into(sampled_alloc(size, 0, 0), block, keep, block);
}

SLOW_PATH static void *realloc_slow(void *block, size_t size,
				    int within_budget)
{
	struct heap_record old;
	int sample, tracked;

	if (!block)
		return within_budget ? real.malloc(size) : malloc_slow(size);
	if (is_bootstrap(block))
		return realloc_from_bootstrap(block, size);
	sample = within_budget ? 0 : interpose_decide(size);
	tracked = free_filter_maybe_sampled(block) &&
		  profiler_find(block, &old);
	if (tracked && old.offset == POOL_OFFSET)
		return realloc_pooled(block, size, &old, sample);
	if (tracked && old.offset != 0)
		return realloc_carved(block, size, &old, sample);
	if (tracked || sampled_blocks_in_place())
		return realloc_in_place(block, size, tracked, &old, sample);
	if (sample <= 0 || size == 0)
		return real.realloc(block, size);
	return realloc_into_sample(block, size);
}

MEMPROF_PUBLIC void *realloc(void *block, size_t size)
{
	int within_budget = sampler_within_budget(size);

	if (likely(within_budget && !free_filter_maybe_sampled(block)))
		return real.realloc(block, size);
	return realloc_slow(block, size, within_budget);
}

MEMPROF_PUBLIC void *reallocarray(void *block, size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(block, bytes);
}

static void *call_memalign(size_t alignment, size_t size)
{
	return real.memalign(alignment, size);
}

static void *call_aligned_alloc(size_t alignment, size_t size)
{
	return real.aligned_alloc ? real.aligned_alloc(alignment, size)
				  : real.memalign(alignment, size);
}

MEMPROF_PUBLIC void *memalign(size_t alignment, size_t size)
{
	if (likely(sampler_within_budget(size)))
		return real.memalign(alignment, size);
	return aligned_slow(alignment, size, call_memalign);
}

MEMPROF_PUBLIC void *aligned_alloc(size_t alignment, size_t size)
{
	if (likely(sampler_within_budget(size)))
		return call_aligned_alloc(alignment, size);
	return aligned_slow(alignment, size, call_aligned_alloc);
}

MEMPROF_PUBLIC int posix_memalign(void **out, size_t alignment, size_t size)
{
	int saved_errno = errno;
	void *block;

	if (likely(sampler_within_budget(size)))
		return real.posix_memalign(out, alignment, size);
	if (!is_power_of_two(alignment) || alignment % sizeof(void *))
		return EINVAL;
	block = aligned_slow(alignment, size, call_memalign);
	errno = saved_errno; /* posix_memalign reports through its result */
	if (!block)
		return ENOMEM;
	*out = block;
	return 0;
}

MEMPROF_PUBLIC void *valloc(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (likely(sampler_within_budget(size)))
		return real.valloc ? real.valloc(size)
				   : real.memalign(page, size);
	return aligned_slow(page, size, call_memalign);
}

MEMPROF_PUBLIC void *pvalloc(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t rounded;

	if (__builtin_add_overflow(size, page - 1, &rounded)) {
		errno = ENOMEM;
		return NULL;
	}
	rounded &= ~(page - 1);
	return valloc(rounded); /* pvalloc(0) as the C library has it */
}

MEMPROF_PUBLIC size_t malloc_usable_size(void *block)
{
	struct heap_record r;

	if (!block)
		return 0;
	if (is_bootstrap(block))
		return bootstrap_usable_size(block);
	/* A block left in place (offset 0) is as the C library gave it. */
	if (free_filter_maybe_sampled(block) && profiler_find(block, &r) &&
	    r.offset != 0)
		return usable_bytes(&r);
	return real.malloc_usable_size(block);
}

/* _exit() skips the exit handlers that finish the profile; programs call
 * it on purpose (multiprocessing workers, shells), so finish it here. */
MEMPROF_PUBLIC void _exit(int status)
{
	if (!real_alloc_init()) /* cannot be: nothing was allocated yet */
		syscall(SYS_exit_group, status);
	profiler_exit_now();
	real._exit(status);
}

MEMPROF_PUBLIC void _Exit(int status)
{
	_exit(status);
}

__attribute__((constructor)) static void runtime_loaded(void)
{
	profiler_load();
}

__attribute__((destructor)) static void runtime_unloading(void)
{
	profiler_unload();
}
