/* workload.c - allocation loads for the overhead benchmark.
 *
 * Contract: runs OPS allocation operations of one kind, split evenly over
 * THREADS threads, and prints a checksum of the bytes it read back (so the
 * work cannot be optimised away).  Each thread keeps a ring of live blocks
 * and replaces a random one per operation, writing into every new block,
 * so the load is churn on a steady heap, not a stack of malloc/free pairs.
 * The random numbers come from a fixed-seed xorshift generator: two runs
 * with the same arguments make exactly the same calls.
 *
 *   churn  free + malloc of 8-264 byte blocks (ring of 1024)
 *   mixed  16 B - 64 KiB blocks, log-uniform sizes (mean about 8 KiB), one
 *          operation in eight a realloc() of the chosen block (ring of 1024)
 *   maps   munmap + mmap of anonymous mappings of 4 KiB - 1 MiB,
 *          log-uniform sizes (ring of 1024): a program that maps often
 */
#include "config.h"

#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cli.h"

#define RING_SIZE 1024 /* a power of two: slots are picked by masking */
#define MAX_THREADS 64

enum kind { CHURN, MIXED, MAPS };

static const char *const kind_names[] = { "churn", "mixed", "maps" };

struct worker {
	pthread_t thread;
	enum kind kind;
	uint64_t ops;
	uint64_t rng;
	uint64_t checksum;
};

/* xorshift64* (Marsaglia, Vigna): fast, fixed sequence per seed. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/* Sizes from 16 B to 64 KiB: a power-of-two class picked uniformly, then
 * a uniform size inside it, as real heaps have many more small blocks. */
static size_t mixed_size(uint64_t r)
{
	size_t base = (size_t)16 << (r % 12);

	return base + (size_t)((r >> 8) % base);
}

/* One page to 256 pages, the class picked uniformly. */
static size_t mapping_size(uint64_t r)
{
	size_t base = (size_t)4096 << (r % 8);

	return base + (size_t)((r >> 8) % base) / 4096 * 4096;
}

static size_t size_of_kind(enum kind kind, uint64_t r)
{
	switch (kind) {
	case CHURN:
		return 8 + r % 257;
	case MIXED:
		return mixed_size(r);
	default:
		return mapping_size(r);
	}
}

static void *obtain(enum kind kind, size_t size)
{
	void *p;

	if (kind != MAPS)
		return malloc(size);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void give_back(enum kind kind, void *block, size_t size)
{
	if (kind == MAPS)
		munmap(block, size);
	else
		free(block);
}

static void *fail_oom(size_t size)
{
	fprintf(stderr, "workload: out of memory allocating %zu bytes\n",
		size);
	exit(1);
}

/* Writes the first and the last bytes of a new block, as a program
 * filling in a structure would, and returns a byte of it for the sum. */
static unsigned touch(unsigned char *block, size_t size, uint64_t stamp)
{
	if (!block)
		fail_oom(size);
	memcpy(block, &stamp, sizeof(stamp));
	block[size - 1] = (unsigned char)stamp;
	return block[size / 2];
}

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	unsigned char *ring[RING_SIZE];
	size_t sizes[RING_SIZE];
	uint64_t sum = 0;

	for (size_t i = 0; i < RING_SIZE; i++) {
		sizes[i] = size_of_kind(w->kind, i);
		ring[i] = obtain(w->kind, sizes[i]);
		sum += touch(ring[i], sizes[i], i);
	}
	for (uint64_t op = 0; op < w->ops; op++) {
		uint64_t r = next_random(&w->rng);
		size_t slot = r & (RING_SIZE - 1);
		size_t size = size_of_kind(w->kind, w->kind == CHURN
							    ? r >> 32
							    : r >> 10);

		sum += ring[slot][0];
		if (w->kind == MIXED && (r >> 61) == 0) {
			ring[slot] = realloc(ring[slot], size);
		} else {
			give_back(w->kind, ring[slot], sizes[slot]);
			ring[slot] = obtain(w->kind, size);
		}
		sizes[slot] = size;
		sum += touch(ring[slot], size, op);
	}
	for (size_t i = 0; i < RING_SIZE; i++)
		give_back(w->kind, ring[i], sizes[i]);
	w->checksum = sum;
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: workload [-t THREADS] churn|mixed|maps OPS\n"
		"Runs OPS allocation operations split over THREADS threads "
		"(default 1)\nand prints a checksum.\n"
		"  -t, --threads=N  number of threads\n"
		"  -h, --help       show this help\n"
		"  -V, --version    show the version\n");
}

static uint64_t parse_positive(const char *text, const char *what)
{
	char *end;
	unsigned long long v = strtoull(text, &end, 10);

	if (end == text || *end || text[0] == '-' || v == 0) {
		fprintf(stderr, "workload: %s '%s' is not a positive number\n",
			what, text);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct worker workers[MAX_THREADS];
	uint64_t threads = 1, ops, checksum = 0;
	int kind = -1, c;

	while ((c = getopt_long(argc, argv, "t:hV", options, NULL)) != -1) {
		switch (c) {
		case 't':
			threads = parse_positive(optarg, "thread count");
			break;
		default:
			return shared_option(c, "workload", usage);
		}
	}
	for (int k = 0; argc - optind == 2 && k <= MAPS; k++)
		if (!strcmp(argv[optind], kind_names[k]))
			kind = k;
	if (kind < 0 || threads > MAX_THREADS) {
		usage(stderr);
		return 2;
	}
	ops = parse_positive(argv[optind + 1], "operation count");
	for (uint64_t t = 0; t < threads; t++)
		workers[t] = (struct worker){
			.kind = (enum kind)kind,
			.ops = ops / threads,
			.rng = 0x9E3779B97F4A7C15ull * (t + 1),
		};
	/* Worker 0 is the main thread, so one thread means no thread. */
	for (uint64_t t = 1; t < threads; t++)
		if (pthread_create(&workers[t].thread, NULL, run_worker,
				   &workers[t])) {
			fprintf(stderr, "workload: cannot start a thread\n");
			return 1;
		}
	run_worker(&workers[0]);
	checksum = workers[0].checksum;
	for (uint64_t t = 1; t < threads; t++) {
		pthread_join(workers[t].thread, NULL);
		checksum += workers[t].checksum;
	}
	printf("%llu\n", (unsigned long long)checksum);
	return 0;
}
