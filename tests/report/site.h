/* site.h - for the test programs whose functions must be the sites
 * memprof-report finds: SITE keeps a function out of its callers (no
 * inlining, no clones), and touch() stores a block where the compiler
 * cannot see it unread, so that it keeps the allocation. */
#ifndef TESTS_REPORT_SITE_H
#define TESTS_REPORT_SITE_H

#if defined(__clang__)
#define SITE __attribute__((noinline))
#else
#define SITE __attribute__((noinline, noipa))
#endif

static void *volatile last_block;

static inline void *touch(void *block)
{
	last_block = block;
	return block;
}

#endif /* TESTS_REPORT_SITE_H */
