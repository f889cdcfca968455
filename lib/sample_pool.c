/* sample_pool.c - pages for small sampled blocks (see sample_pool.h). */
#include "config.h"

#include "sample_pool.h"

#include <stdatomic.h>
#include <stddef.h>

#include "rawmem.h"
#include "spinlock.h"

#define REGION_BYTES (4u << 20)
#define PAGE_BYTES SAMPLED_ALIGNMENT

struct free_page {
	struct free_page *next;
};

static _Atomic int busy;
static struct free_page *free_pages;
static char *region_next, *region_end;

void *pool_alloc(void)
{
	void *page = NULL;

	spin_lock(&busy);
	if (free_pages) {
		page = free_pages;
		free_pages = free_pages->next;
	} else {
		if (region_next == region_end) {
			/* mmap returns page-aligned memory; the region is a
			 * whole number of pool pages. */
			region_next = rawmem_map(REGION_BYTES);
			region_end = region_next ? region_next + REGION_BYTES
						 : NULL;
		}
		if (region_next) {
			page = region_next;
			region_next += PAGE_BYTES;
		}
	}
	spin_unlock(&busy);
	return page;
}

void pool_free(void *page)
{
	struct free_page *p = page;

	spin_lock(&busy);
	p->next = free_pages;
	free_pages = p;
	spin_unlock(&busy);
}
