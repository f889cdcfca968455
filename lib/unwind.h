/* unwind.h - native call stacks by frame-pointer walking.
 *
 * Contract: unwind_capture() records the return addresses of the callers
 * of the allocation hook, leaf first, skipping the runtime's own frames.
 * It reads only the current thread's stack, between the caller's frame and
 * the top of the stack, and stops at the first frame pointer that is not
 * plausible (outside that range, misaligned, not increasing) or at the
 * first return address that lies in no loaded object's code (see
 * code_map.h), so a caller built without frame pointers truncates the
 * stack instead of crashing or recording stray values.
 * It never allocates; finding the stack top of a new thread does, once,
 * and must therefore run under the runtime's re-entrancy guard.
 */
#ifndef SPPROF_UNWIND_H
#define SPPROF_UNWIND_H

#include <stdint.h>

/* Records the address range of the runtime's own code (call once). */
void unwind_init(void);

/* The executable segment of the module containing `code`: 0 and
 * [*lo, *hi) set, or -1 when no loaded module contains it. */
int code_range_of(const void *code, uintptr_t *lo, uintptr_t *hi);

/* Fills frames[0..max) and returns the depth; *truncated is set when the
 * walk stopped at max rather than at the outermost frame. */
uint32_t unwind_capture(uintptr_t *frames, uint32_t max, int *truncated);

#endif /* SPPROF_UNWIND_H */
