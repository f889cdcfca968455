/* pool-reports.c - a loop of reports through <spprof/memprof-pool.h>,
 * for bench/pool-reports.sh to count instructions per call.
 *
 * Usage: pool-reports MODE COUNT, MODE one of
 *   loop    the loop alone, which the others' counts are taken from
 *   alloc   COUNT reports of a block handed out (64 bytes)
 *   free    COUNT reports of a block given back
 *   both    COUNT blocks reported handed out, then given back
 *   malloc  COUNT malloc() and free() of 64 bytes: the baseline
 * The blocks are 64 of a static array.  The first report of the program
 * (which looks the runtime up) is made before the loop. */
#include <spprof/memprof-pool.h>

#include <stdlib.h>
#include <string.h>

#define BLOCK_BYTES 64

static char blocks[64][BLOCK_BYTES];

/* Keeps the compiler from removing or merging the loop's work. */
#define USED(p) __asm__ volatile("" : : "r"(p) : "memory")

static void loop(long count)
{
	for (long i = 0; i < count; i++)
		__asm__ volatile("");
}

static void report_allocs(long count)
{
	for (long i = 0; i < count; i++)
		memprof_pool_alloc(blocks[i & 63], BLOCK_BYTES);
}

static void report_frees(long count)
{
	for (long i = 0; i < count; i++)
		memprof_pool_free(blocks[i & 63]);
}

static void report_both(long count)
{
	for (long i = 0; i < count; i++) {
		memprof_pool_alloc(blocks[i & 63], BLOCK_BYTES);
		memprof_pool_free(blocks[i & 63]);
	}
}

static void malloc_frees(long count)
{
	for (long i = 0; i < count; i++) {
		void *block = malloc(BLOCK_BYTES);

		USED(block);
		free(block);
	}
}

static const struct {
	const char *name;
	void (*run)(long count);
} modes[] = {
	{"loop", loop},
	{"alloc", report_allocs},
	{"free", report_frees},
	{"both", report_both},
	{"malloc", malloc_frees},
};

int main(int argc, char **argv)
{
	long count = argc == 3 ? atol(argv[2]) : -1;

	if (count < 0)
		return 2;
	memprof_pool_alloc(NULL, 0);
	memprof_pool_free(NULL);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(argv[1], modes[i].name) == 0) {
			modes[i].run(count);
			return 0;
		}
	return 2;
}
