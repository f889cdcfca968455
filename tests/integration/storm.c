/* storm.c - many threads allocating, reallocating and freeing at once.
 *
 * Each thread runs random operations (malloc, calloc, realloc,
 * posix_memalign, aligned_alloc, free) on a private pool of blocks, and
 * swaps blocks with a shared mailbox, so that many blocks are freed or
 * reallocated by a thread other than the one that allocated them.  Every
 * block carries a stamp (its size in a header, a trailing byte) that each
 * free and realloc checks, and calloc blocks must be zero, so a runtime
 * that corrupts, loses or hands out a block twice makes the program fail.
 * At the end every block is freed; when the runtime is loaded, no block
 * sampled by a storm thread may remain live.  With FORKS, the main thread
 * forks that many children while the storm blows; each must run a short
 * storm of its own and exit within CHILD_SECONDS, which it cannot when it
 * inherits a lock of the runtime that a storm thread held.
 *
 * Usage: storm [THREADS [OPERATIONS-PER-THREAD [FORKS]]]
 */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime-api.h"

#define MAX_THREADS 64
#define POOL_BLOCKS 64
#define MAILBOX_SLOTS 256
#define STAMP_KEY 0x5DEECE66DA3B1F27ull
#define ZERO_CHECK_STRIDE 512
#define CHILD_OPERATIONS 2000
#define CHILD_SECONDS 20

struct stamp {
	uint64_t size;
	uint64_t check;
};

/* A block holds its stamp and a distinct last byte. */
#define MIN_BLOCK (sizeof(struct stamp) + 1)

struct worker {
	pthread_t thread;
	uint64_t random;
	long operations;
	uint32_t tid;
	void *pool[POOL_BLOCKS];
};

static _Atomic(void *) mailbox[MAILBOX_SLOTS];

static void corrupted(const char *what, const void *block, uint64_t size)
{
	fprintf(stderr, "storm: %s (block %p, %llu bytes)\n", what, block,
		(unsigned long long)size);
	abort();
}

static uint8_t tail_byte(uint64_t size)
{
	return (uint8_t)(size * 131 + 7);
}

static void *stamp(void *block, uint64_t size)
{
	struct stamp s = { size, size ^ STAMP_KEY };

	if (!block)
		corrupted("allocation failed", block, size);
	memcpy(block, &s, sizeof(s));
	((uint8_t *)block)[size - 1] = tail_byte(size);
	return block;
}

/* The size recorded in a block's stamp, after checking the stamp. */
static uint64_t stamped_size(const void *block)
{
	struct stamp s;

	memcpy(&s, block, sizeof(s));
	if ((s.size ^ STAMP_KEY) != s.check)
		corrupted("stamp overwritten", block, s.size);
	if (((const uint8_t *)block)[s.size - 1] != tail_byte(s.size))
		corrupted("last byte overwritten", block, s.size);
	return s.size;
}

static void release(void *block)
{
	if (block) {
		stamped_size(block);
		free(block);
	}
}

static uint64_t next_random(struct worker *w)
{
	uint64_t x = w->random;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return w->random = x;
}

/* Mostly small blocks, a few of up to 256 KiB. */
static uint64_t random_size(struct worker *w)
{
	uint64_t r = next_random(w), kind = r % 1000;

	r >>= 10;
	if (kind < 970)
		return MIN_BLOCK + r % 496;
	if (kind < 999)
		return 512 + r % (16 * 1024);
	return 16 * 1024 + r % (240 * 1024);
}

static void check_zero(const uint8_t *block, uint64_t size)
{
	uint64_t step = size > 4 * ZERO_CHECK_STRIDE ? ZERO_CHECK_STRIDE : 1;

	for (uint64_t i = 0; i < size; i += step)
		if (block[i])
			corrupted("calloc block not zero", block, size);
	if (block[size - 1])
		corrupted("calloc block not zero at its end", block, size);
}

static void *new_block(struct worker *w, uint64_t size, unsigned kind)
{
	void *p = NULL;
	size_t alignment = (size_t)16 << (next_random(w) % 9);

	switch (kind) {
	case 0: {
		uint64_t n = 1 + next_random(w) % 4;

		size = (size + n - 1) / n * n;
		p = calloc(n, size / n);
		if (p)
			check_zero(p, size);
		break;
	}
	case 1:
		if (posix_memalign(&p, alignment, size) != 0)
			p = NULL;
		break;
	case 2:
		p = aligned_alloc(alignment, (size + alignment - 1) /
						     alignment * alignment);
		break;
	default:
		p = malloc(size);
	}
	if (p && (uintptr_t)p % (kind == 1 || kind == 2 ? alignment : 16))
		corrupted("misaligned block", p, size);
	return stamp(p, size);
}

/* Grows or shrinks a block; the part that stays must be unchanged. */
static void *resize(void *block, uint64_t size)
{
	uint64_t old = block ? stamped_size(block) : 0;
	uint8_t *p = realloc(block, size);

	if (!p)
		corrupted("realloc failed", block, size);
	if (old && (((struct stamp *)p)->size != old ||
		    (old <= size && p[old - 1] != tail_byte(old))))
		corrupted("realloc lost the contents", p, old);
	return stamp(p, size);
}

static void operate(struct worker *w)
{
	uint64_t r = next_random(w);
	void **slot = &w->pool[(r >> 8) % POOL_BLOCKS];
	unsigned op = (unsigned)(r % 100);

	if (op < 50) {
		release(*slot);
		*slot = new_block(w, random_size(w), op % 10);
	} else if (op < 70) {
		*slot = resize(*slot, random_size(w));
	} else if (op < 85) {
		release(*slot);
		*slot = NULL;
	} else {
		*slot = atomic_exchange(&mailbox[(r >> 16) % MAILBOX_SLOTS],
					*slot);
		if (*slot)
			stamped_size(*slot);
	}
}

static void *storm(void *arg)
{
	struct worker *w = arg;

	w->tid = (uint32_t)syscall(SYS_gettid);
	for (long i = 0; i < w->operations; i++)
		operate(w);
	for (size_t i = 0; i < POOL_BLOCKS; i++)
		release(w->pool[i]);
	return NULL;
}

/* Waits up to CHILD_SECONDS for a child; 1 when it exited with 0. */
static int child_succeeded(pid_t pid)
{
	const struct timespec pause = { 0, 1000000 };
	int status;

	for (long waited = 0; waited < CHILD_SECONDS * 1000L; waited++) {
		pid_t done = waitpid(pid, &status, WNOHANG);

		if (done == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		if (done < 0)
			return 0;
		nanosleep(&pause, NULL);
	}
	fprintf(stderr, "storm: child %ld still running after %d s\n",
		(long)pid, CHILD_SECONDS);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 0;
}

/* Forks children while the storm threads run; 0 when all of them could
 * allocate, free and exit. */
static int fork_during_storm(int forks)
{
	for (int i = 0; i < forks; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("storm: fork");
			return 1;
		}
		if (pid == 0) {
			struct worker w = { .random = STAMP_KEY + (uint64_t)i };

			for (long n = 0; n < CHILD_OPERATIONS; n++)
				operate(&w);
			for (size_t n = 0; n < POOL_BLOCKS; n++)
				release(w.pool[n]);
			_exit(0);
		}
		if (!child_succeeded(pid)) {
			fprintf(stderr, "storm: child %d of %d failed\n",
				i + 1, forks);
			return 1;
		}
	}
	return 0;
}

/* Samples still live that a storm thread allocated. */
static size_t storm_samples_live(const struct runtime_api *api,
				 const struct worker *workers, int threads)
{
	memprof_sample *samples;
	size_t count, live = 0;

	if (api->get_snapshot(&samples, &count) < 0)
		return 0;
	for (size_t i = 0; i < count; i++)
		for (int t = 0; t < threads; t++)
			live += samples[i].thread_id == workers[t].tid;
	api->free_snapshot(samples);
	return live;
}

static void report(const struct runtime_api *api, size_t left_live)
{
	memprof_stats s;

	if (api->get_stats(&s) < 0)
		return;
	printf("storm: %llu samples, %llu frees tracked, %llu live, "
	       "%llu heap map drops, %llu heap map slots, %llu stacks; "
	       "%zu storm samples live\n",
	       (unsigned long long)s.total_samples,
	       (unsigned long long)s.freed_samples,
	       (unsigned long long)s.live_samples,
	       (unsigned long long)s.heap_map_full_drops,
	       (unsigned long long)s.heap_map_capacity,
	       (unsigned long long)s.unique_stacks, left_live);
}

int main(int argc, char **argv)
{
	static struct worker workers[MAX_THREADS];
	int threads = argc > 1 ? atoi(argv[1]) : 8;
	long operations = argc > 2 ? atol(argv[2]) : 1000000;
	int forks = argc > 3 ? atoi(argv[3]) : 0, failed;
	struct runtime_api api;
	size_t left_live = 0;

	if (threads < 1 || threads > MAX_THREADS || operations < 1 ||
	    forks < 0) {
		fputs("Usage: storm [THREADS [OPERATIONS-PER-THREAD "
		      "[FORKS]]]\n",
		      stderr);
		return 2;
	}
	for (int t = 0; t < threads; t++) {
		workers[t].random = 0x9E3779B97F4A7C15ull * (uint64_t)(t + 1);
		workers[t].operations = operations;
		if (pthread_create(&workers[t].thread, NULL, storm,
				   &workers[t])) {
			fputs("storm: cannot create a thread\n", stderr);
			return 1;
		}
	}
	failed = fork_during_storm(forks);
	for (int t = 0; t < threads; t++)
		pthread_join(workers[t].thread, NULL);
	for (size_t i = 0; i < MAILBOX_SLOTS; i++)
		release(atomic_exchange(&mailbox[i], NULL));
	if (runtime_api_load(&api) == 0) {
		left_live = storm_samples_live(&api, workers, threads);
		report(&api, left_live);
	}
	return left_live || failed ? 1 : 0;
}
