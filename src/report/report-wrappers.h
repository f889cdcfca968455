/* report-wrappers.h - allocation wrappers, which a site passes over.
 *
 * Contract: marks the frames of the functions that only hand
 * allocations on to the allocator (xmalloc, zmalloc, palloc, g_malloc,
 * CRYPTO_zalloc...), so that an allocation's site is the code that asked
 * for it.  A named native function is a wrapper when every sampled stack
 * through it goes straight on into the allocator (through nothing but
 * wrappers and code inlined into it) and either its name says it
 * allocates ("alloc" in the function's own name, not in its parameters
 * or class: alloc_root, pool_alloc, av_malloc) or at
 * least WRAPPER_CALLERS different functions call it; or, whatever the
 * profile shows of it, when it is one of a few well-known wrappers.
 * Wrappers of wrappers are found too (g_strdup calls g_malloc).
 *
 * Why the name: a count of sampled callers depends on the samples, so a
 * function with a few callers was a wrapper in one recording window and
 * a site in the next of the same workload (mariadb's alloc_root), and
 * its series churned.  What a function's name says does not change from
 * one window or process of a binary to the next; what its stacks show
 * (that it goes straight into the allocator) changes only with what the
 * code does.  The note says why each wrapper is one, and names the
 * functions that go straight into the allocator but are sites for want
 * of one more caller, so that a decision that still differs between two
 * reports says why.  (The names are those of C code; the C++ library's
 * allocation plumbing, inlined, is never a site anyway.)
 */
#ifndef SPPROF_REPORT_WRAPPERS_H
#define SPPROF_REPORT_WRAPPERS_H

#include "report-stacks.h"

/* Callers that make a function that goes straight into the allocator a
 * wrapper: one or two are the code of a data structure; many are the
 * sign of a function the program allocates through. */
#define WRAPPER_CALLERS 3

/* Why a function is a wrapper, or not though it hands allocations on. */
enum wrapper_reason {
	WRAPPER_NOT = 0,
	WRAPPER_BY_LIST,     /* one of the well-known wrappers */
	WRAPPER_BY_NAME,     /* its name says it allocates */
	WRAPPER_BY_CALLERS,  /* WRAPPER_CALLERS callers or more */
	WRAPPER_FEW_CALLERS, /* no wrapper: one caller short, no such name */
};

/* The first frame past the allocators and the wrappers at the leaf of
 * `stack`, with the code they run on their way to the allocator (code
 * inlined into them, and code known by its address only: a stripped
 * library's own helpers): where the code that asked for the memory
 * starts.  The outermost frame when every frame is one of those. */
size_t stack_first_past_wrappers(const struct stack_table *table,
				 const struct report_stack *stack);
/* Sets report_frame.wrapper on the frames of every wrapper in `stacks`. */
void wrappers_mark(struct stack_table *stacks);
/* A note naming the wrappers that sites passed over, for most samples
 * first, each with why it is one, and the functions that are sites for
 * want of callers; NULL when there are none.  Belongs to the caller. */
char *wrappers_note(const struct stack_table *stacks);

#endif /* SPPROF_REPORT_WRAPPERS_H */
