/* script_stack.h - interpreter (Python) frames merged into native stacks.
 *
 * Contract: a language binding installs a frame walker (see
 * memprof_set_frame_walker); on every sampled allocation the native stack
 * is then rewritten "trim and sandwich": the native frames below the
 * interpreter (C extensions called from the script), then the script
 * frames in place of the interpreter's own native frames, then the native
 * frames above the interpreter (the program's main).  Script frames are
 * interned (names.h) and packed (frames.h).  Without a walker, or when
 * it returns no frames, the native stack is kept as it is.
 */
#ifndef SPPROF_SCRIPT_STACK_H
#define SPPROF_SCRIPT_STACK_H

#include <stdint.h>

#include <spprof/memprof.h>

int script_stack_set_walker(memprof_frame_walker walker,
			    const void *interpreter_code);

/* Rewrites frames[0..depth) in place (room for max); returns the depth. */
uint32_t script_stack_merge(uint64_t *frames, uint32_t depth, uint32_t max);

/* The merge itself: native leaf-first frames, script frames innermost
 * first, interpreter code in [lo, hi).  Returns the merged depth. */
uint32_t merge_frames(uint64_t *out, uint32_t max, const uint64_t *native,
		      uint32_t n, const uint64_t *script, uint32_t m,
		      uintptr_t lo, uintptr_t hi);

#endif /* SPPROF_SCRIPT_STACK_H */
