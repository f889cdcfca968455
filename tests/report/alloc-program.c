/* alloc-program - a heap whose shape is known, for the end-to-end test of
 * memprof-report on a profile written by the runtime (runtime.sh).
 *
 * Every block is at least 1 KiB, so that at SPPROF_SAMPLING_RATE=1 each is
 * sampled with probability 1 - exp(-1024), which is 1 in double precision:
 * the report's estimates are then exact and the output deterministic.  The
 * allocating functions are not inlined, so that they are the sites. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "site.h"

#define TABLES 10
#define CACHES 4
#define CHURNS 100

SITE static void *make_table(size_t size)
{
	return touch(memset(malloc(size), 1, size));
}

SITE static void *make_cache(size_t size)
{
	return touch(calloc(size, 1));
}

SITE static void churn(void)
{
	for (int i = 0; i < CHURNS; i++)
		free(touch(malloc(4096)));
}

SITE static void *grow(void *block, size_t size)
{
	return touch(realloc(block, size));
}

int main(void)
{
	void *tables[TABLES], *caches[CACHES], *buffer;

	for (int i = 0; i < TABLES; i++)
		tables[i] = make_table(100000);
	for (int i = 0; i < CACHES; i++)
		caches[i] = make_cache(65536);
	churn();
	buffer = grow(make_table(2048), 300000);
	for (int i = 0; i < CACHES / 2; i++)
		free(caches[i]);
	/* The rest stays live until the end: what the report must find. */
	touch(tables[0]);
	touch(buffer);
	return 0;
}
