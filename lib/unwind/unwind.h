/* unwind.h - native call stacks.
 *
 * Contract: unwind_capture() records the return addresses of the callers
 * of the allocation hook, leaf first, skipping the runtime's own frames,
 * by one of two methods:
 *
 *  - the frame-pointer walk (cheap) reads only the current thread's stack,
 *    between the caller's frame and the top of the stack, and stops at the
 *    first frame pointer that is not plausible (outside that range,
 *    misaligned, not increasing) and at the first return address that lies
 *    in no loaded object's code (see code_map.h), so a caller built without
 *    frame pointers truncates the stack instead of crashing or recording
 *    stray values;
 *  - the unwind tables (the objects' .eh_frame, see unwind_tables.h) also
 *    see through code built without frame pointers and signal frames.
 *
 * UNWIND_AUTO walks frame pointers and keeps the result only when the walk
 * reached this thread's outermost frame record, as both methods agreed on
 * it the first time, through code of objects that keep frame pointers;
 * otherwise it takes the stack from the unwind tables.  A function without
 * a frame pointer in an object that mostly keeps them is invisible to the
 * walk: UNWIND_DWARF is exact there.  Neither allocates, locks or opens
 * anything, nor asks the C library for the thread's stack bounds.
 */
#ifndef SPPROF_UNWIND_H
#define SPPROF_UNWIND_H

#include <stdint.h>

#include "settings.h"

/* Records the address range of the runtime's own code and the method
 * asked for (call once, at load); says once on stderr when the unwind
 * tables were asked for but the runtime was built without them. */
void unwind_init(enum unwind_method method);

struct unwind_result {
	uint32_t depth;
	int truncated;             /* stopped at max, not at the outermost frame */
	enum unwind_method method; /* UNWIND_FP or UNWIND_DWARF */
};

/* Fills frames[0..max) with the stack (max <= MEMPROF_MAX_STACK_DEPTH). */
struct unwind_result unwind_capture(uint64_t *frames, uint32_t max);

#endif /* SPPROF_UNWIND_H */
