/* report-wrappers.h - allocation wrappers, which a site passes over.
 *
 * Contract: marks the frames of the functions that only hand
 * allocations on to the allocator (xmalloc, zmalloc, palloc, g_malloc,
 * CRYPTO_zalloc...), so that an allocation's site is the code that asked
 * for it.  A named native function is a wrapper when every sampled stack
 * through it goes straight on into the allocator (through nothing but
 * wrappers and code inlined into it) and at least WRAPPER_CALLERS
 * different functions call it; or, whatever the profile shows of it, when
 * it is one of a few well-known wrappers.  Wrappers of wrappers are found
 * too (g_strdup calls g_malloc).
 */
#ifndef SPPROF_REPORT_WRAPPERS_H
#define SPPROF_REPORT_WRAPPERS_H

#include "report-stacks.h"

/* Callers that make a function that goes straight into the allocator a
 * wrapper: one or two are the code of a data structure; many are the
 * sign of a function the program allocates through. */
#define WRAPPER_CALLERS 3

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
 * first; NULL when none did.  Belongs to the caller. */
char *wrappers_note(const struct stack_table *stacks);

#endif /* SPPROF_REPORT_WRAPPERS_H */
