/* unwind_tables.c - native stacks by libunwind (see unwind_tables.h). */
#include "config.h"

#include "unwind_tables.h"

#ifdef HAVE_LIBUNWIND

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stddef.h>

int unwind_tables_init(void)
{
	/* The default cache is shared behind a lock and signal masking;
	 * one per thread needs neither. */
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	return 1;
}

uint32_t unwind_tables_capture(uintptr_t *frames, uint32_t max)
{
	void *addresses[UNWIND_TABLES_MAX_DEPTH];
	int n = unw_backtrace(addresses, (int)(max < UNWIND_TABLES_MAX_DEPTH
						? max
						: UNWIND_TABLES_MAX_DEPTH));

	for (int i = 0; i < n; i++)
		frames[i] = (uintptr_t)addresses[i];
	return n > 0 ? (uint32_t)n : 0;
}

#else /* frame pointers only */

int unwind_tables_init(void)
{
	return 0;
}

uint32_t unwind_tables_capture(uintptr_t *frames, uint32_t max)
{
	(void)frames;
	(void)max;
	return 0;
}

#endif
