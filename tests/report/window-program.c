/* window-program - one workload seen in two recording windows, for the
 * test that a function's wrapper decision does not flip between them
 * (runtime.sh).
 *
 * Usage: window-program CALLERS
 * pool_alloc() and hand_on() only hand requests on to malloc, each for
 * the first CALLERS (1 to 3) of three functions: with 3, both have as
 * many sampled callers as make a wrapper of any function; with 2, fewer.
 * pool_alloc's name says it allocates: it is a wrapper either way;
 * hand_on is a site with 2, and the report says why.  Every block is at
 * least 1 KiB, so that at SPPROF_SAMPLING_RATE=1 every one is sampled. */
#include "config.h"

#include <stdlib.h>

#include "site.h"

SITE static void *pool_alloc(size_t size)
{
	return touch(malloc(size));
}

SITE static void *hand_on(size_t size)
{
	return touch(malloc(size));
}

SITE static void parse_query(void)
{
	touch(pool_alloc(10000));
	touch(hand_on(20000));
}

SITE static void plan_query(void)
{
	touch(pool_alloc(30000));
	touch(hand_on(40000));
}

SITE static void run_query(void)
{
	touch(pool_alloc(50000));
	touch(hand_on(60000));
}

int main(int argc, char **argv)
{
	static void (*const callers[])(void) = { parse_query, plan_query,
						 run_query };
	int count = argc > 1 ? atoi(argv[1]) : 0;

	if (count < 1 || count > 3)
		return 2;
	for (int i = 0; i < count; i++)
		callers[i]();
	return 0;
}
