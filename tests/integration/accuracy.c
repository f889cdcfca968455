/* accuracy.c - the live-heap estimate against a live set of known size.
 *
 * Allocates a fixed live set of mixed block sizes (many small blocks, some
 * of 64 KiB - 1 MiB, a few above 16 MiB, made with malloc, calloc, realloc
 * and posix_memalign), and estimates its size from the runtime's snapshot
 * with the unbiased weights: w = s/p with p = 1 - exp(-s/S), variance
 * sum w(w - s).  The experiment is repeated TRIALS times in the process.
 * It passes when at least MIN_INSIDE trials fall inside the estimate's own
 * 99 % interval and the mean of estimate/true is within 5 % of 1 (so that
 * a biased weight fails even where its intervals happen to be wide), when
 * every sample carries its block's exact size and the trial's rate, every
 * block above 16 MiB is sampled, and no freed block stays in the snapshot.
 *
 * Built twice: linked with libspprof-alloc (the program starts the runtime
 * itself) and with RUNTIME_API_BY_DLSYM for a run under LD_PRELOAD.  Big
 * blocks are never touched, so the test stays light on memory.
 */
#include "config.h"

#include <malloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime-api.h"

#define KiB (1024u)
#define MiB (1024u * 1024u)

#define SAMPLING_RATE (128u * KiB)
#define TRIALS 20
#define MIN_INSIDE 17
#define Z99 2.5758 /* two-sided 99 % quantile of the normal law */
#define MAX_MEAN_ERROR 0.05

#define SMALL_BLOCKS 10000
#define MEDIUM_BLOCKS 64
static const size_t large_sizes[] = { 17 * MiB + 1, 24 * MiB + 123,
				      33 * MiB + 7, 48 * MiB - 5 };
#define LARGE_BLOCKS (sizeof(large_sizes) / sizeof(large_sizes[0]))
#define BLOCKS (SMALL_BLOCKS + MEDIUM_BLOCKS + LARGE_BLOCKS)
#define LARGE_MIN (16u * MiB)

enum how { BY_MALLOC, BY_CALLOC, BY_REALLOC, BY_MEMALIGN };

struct block {
	size_t size;
	enum how how;
	void *ptr;
};

/* Blocks sorted by address, to match samples to blocks. */
struct by_address {
	uintptr_t address;
	size_t index;
};

struct trial {
	double estimate, variance, truth;
	size_t samples, large_sampled;
};

static struct runtime_api api;
static struct block blocks[BLOCKS];
static struct by_address index_of[BLOCKS];
static int failures;

static void failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void failure(const char *fmt, ...)
{
	va_list ap;

	fputs("accuracy: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	failures++;
}

static uint64_t random_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static size_t random_between(uint64_t *state, size_t lo, size_t hi)
{
	return lo + (size_t)(random_next(state) % (hi - lo + 1));
}

/* The same live set in every trial: sizes and allocation functions. */
static void plan_live_set(void)
{
	uint64_t state = 20240601;
	size_t i = 0;

	for (; i < SMALL_BLOCKS; i++) {
		static const enum how mix[8] = { BY_MALLOC,  BY_MALLOC,
						 BY_MALLOC,  BY_MALLOC,
						 BY_MALLOC,  BY_CALLOC,
						 BY_REALLOC, BY_MEMALIGN };

		blocks[i].size = random_between(&state, 16, 4 * KiB);
		blocks[i].how = mix[i % 8];
	}
	for (; i < SMALL_BLOCKS + MEDIUM_BLOCKS; i++) {
		blocks[i].size = random_between(&state, 64 * KiB, MiB);
		blocks[i].how = (enum how)(i % 4);
	}
	for (size_t k = 0; k < LARGE_BLOCKS; k++, i++) {
		blocks[i].size = large_sizes[k];
		blocks[i].how = k % 2 ? BY_CALLOC : BY_MALLOC;
	}
}

static void *allocate(const struct block *b)
{
	void *p = NULL;

	switch (b->how) {
	case BY_MALLOC:
		return malloc(b->size);
	case BY_CALLOC:
		return calloc(1, b->size);
	case BY_REALLOC:
		p = malloc(b->size / 2);
		return p ? realloc(p, b->size) : NULL;
	case BY_MEMALIGN:
		return posix_memalign(&p, 64, b->size) == 0 ? p : NULL;
	}
	return NULL;
}

static int compare_addresses(const void *a, const void *b)
{
	uintptr_t x = ((const struct by_address *)a)->address;
	uintptr_t y = ((const struct by_address *)b)->address;

	return (x > y) - (x < y);
}

static const struct block *block_at(uintptr_t address)
{
	struct by_address key = { .address = address };
	const struct by_address *hit = bsearch(&key, index_of, BLOCKS,
					       sizeof(index_of[0]),
					       compare_addresses);

	return hit ? &blocks[hit->index] : NULL;
}

static double allocate_live_set(void)
{
	double truth = 0;

	for (size_t i = 0; i < BLOCKS; i++) {
		blocks[i].ptr = allocate(&blocks[i]);
		if (!blocks[i].ptr) {
			fprintf(stderr, "accuracy: cannot allocate %zu bytes\n",
				blocks[i].size);
			exit(1);
		}
		index_of[i].address = (uintptr_t)blocks[i].ptr;
		index_of[i].index = i;
		truth += (double)blocks[i].size;
	}
	qsort(index_of, BLOCKS, sizeof(index_of[0]), compare_addresses);
	return truth;
}

static memprof_sample *snapshot(size_t *count)
{
	memprof_sample *samples;

	if (api.get_snapshot(&samples, count) < 0) {
		perror("accuracy: memprof_get_snapshot");
		exit(1);
	}
	return samples;
}

static void add_sample(struct trial *t, const memprof_sample *s,
		       const struct block *b)
{
	double w;

	if (s->size != b->size)
		failure("block of %zu bytes sampled as %llu bytes", b->size,
			(unsigned long long)s->size);
	if (s->sampling_rate != SAMPLING_RATE)
		failure("sample at rate %llu, expected %u",
			(unsigned long long)s->sampling_rate, SAMPLING_RATE);
	w = api.estimate_bytes(s->size, s->sampling_rate, NULL);
	t->estimate += w;
	t->variance += w * (w - (double)s->size);
	t->samples++;
	if (b->size > LARGE_MIN)
		t->large_sampled++;
}

static void estimate_live_set(struct trial *t)
{
	size_t count;
	memprof_sample *samples = snapshot(&count);

	for (size_t i = 0; i < count; i++) {
		const struct block *b = block_at(samples[i].address);

		if (b)
			add_sample(t, &samples[i], b);
	}
	api.free_snapshot(samples);
}

/* After the frees, the snapshot must hold none of the blocks (the
 * snapshot's own array may legitimately reuse one of their addresses). */
static void check_all_forgotten(int trial)
{
	size_t count, stale = 0;
	memprof_sample *samples = snapshot(&count);

	for (size_t i = 0; i < count; i++)
		if (samples[i].address != (uintptr_t)samples &&
		    block_at(samples[i].address))
			stale++;
	api.free_snapshot(samples);
	if (stale)
		failure("trial %d: %zu freed blocks still in the snapshot",
			trial, stale);
}

static int run_trial(int n, double *ratio)
{
	struct trial t = { .truth = allocate_live_set() };
	double half_width, error;

	estimate_live_set(&t);
	for (size_t i = 0; i < BLOCKS; i++)
		free(blocks[i].ptr);
	check_all_forgotten(n);
	if (t.large_sampled != LARGE_BLOCKS)
		failure("trial %d: %zu of %zu blocks above 16 MiB sampled", n,
			t.large_sampled, LARGE_BLOCKS);
	half_width = Z99 * sqrt(t.variance);
	error = t.estimate - t.truth;
	*ratio = t.estimate / t.truth;
	printf("trial %2d: true %.2f MiB, estimate %.2f MiB (%+.2f %%), "
	       "99 %% interval +-%.2f %%, %zu samples\n",
	       n, t.truth / MiB, t.estimate / MiB, 100 * error / t.truth,
	       100 * half_width / t.truth, t.samples);
	return fabs(error) <= half_width;
}

int main(void)
{
	int inside = 0;
	double ratio_sum = 0, mean_ratio;

	if (runtime_api_load(&api) < 0) {
		fputs("accuracy: the runtime's API is not available\n", stderr);
		return 1;
	}
	/* A fixed threshold: glibc would otherwise raise it after the first
	 * trial and serve the big blocks from the heap. */
	mallopt(M_MMAP_THRESHOLD, 64 * KiB);
	if (runtime_api_sample_at(&api, SAMPLING_RATE) < 0) {
		perror("accuracy: cannot start sampling");
		return 1;
	}
	plan_live_set();
	printf("large block sizes:");
	for (size_t k = 0; k < LARGE_BLOCKS; k++)
		printf(" %zu", large_sizes[k]);
	printf("\n");
	for (int n = 1; n <= TRIALS; n++) {
		double ratio;

		inside += run_trial(n, &ratio);
		ratio_sum += ratio;
	}
	mean_ratio = ratio_sum / TRIALS;
	printf("%d of %d trials inside their 99 %% interval (%d needed); "
	       "mean estimate/true %.4f\n",
	       inside, TRIALS, MIN_INSIDE, mean_ratio);
	if (inside < MIN_INSIDE)
		failure("only %d of %d trials inside their 99 %% interval",
			inside, TRIALS);
	if (fabs(mean_ratio - 1) >= MAX_MEAN_ERROR)
		failure("mean estimate/true %.4f is %.1f %% off", mean_ratio,
			100 * fabs(mean_ratio - 1));
	return failures ? 1 : 0;
}
