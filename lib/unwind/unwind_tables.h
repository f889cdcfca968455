/* unwind_tables.h - native stacks from the binaries' unwind tables.
 *
 * Contract: unwind_tables_capture() follows the call stack of the current
 * thread from its own frame up: for every frame it finds the object's
 * .eh_frame through the code map (code_map.h) and its .eh_frame_hdr
 * search table, runs the call frame instructions up to the frame's
 * address (cfi.h), and so finds the caller's frame, return address and
 * frame pointer.  Code built without frame pointers is walked through, and
 * so are signal frames (the interrupted instruction is recorded as a
 * frame).  It reads only the thread's stack below stack_top and the
 * objects' mapped tables (where glibc has _dl_find_object, only of
 * objects loaded at that moment); the rule found for an address is cached
 * in a table shared by all threads, mapped by unwind_tables_init(), for
 * the code map's generation.  No
 * allocation, no lock, no descriptor.  A rule it does not know (a frame
 * address or return address given by a DWARF expression, registers other
 * than the stack and frame pointers), a return address in no known code
 * and the outermost frame (return address undefined) end the walk.
 * The processor's part is in unwind_arch.h; on an architecture it does
 * not describe, unwind_tables_init() says 0 and nothing is walked.
 */
#ifndef SPPROF_UNWIND_TABLES_H
#define SPPROF_UNWIND_TABLES_H

#include <stdint.h>

#include <spprof/memprof.h>

#include "unwind_arch.h"

/* Room for the deepest stack kept and the runtime's own frames below it. */
#define UNWIND_TABLES_MAX_DEPTH (MEMPROF_MAX_STACK_DEPTH + 16)

/* Maps the rule cache; takes the C library's code range (see
 * is_signal_trampoline). */
int unwind_tables_init(uintptr_t libc_text_lo, uintptr_t libc_text_hi);

/* Fills frames[0..max) with the return addresses from start (a frame whose
 * registers after the return are known), or from this function's own
 * address when start is NULL, leaf first; *truncated is set when the walk
 * stopped at max. */
uint32_t unwind_tables_capture(const struct frame_regs *start,
			       uint64_t *frames, uint32_t max,
			       uintptr_t stack_top, int *truncated);

/* Whether pc is a sigreturn trampoline: the return address the kernel
 * gives a signal handler.  Reads code only in the C library and the vDSO,
 * which are never unloaded. */
int is_signal_trampoline(uintptr_t pc);

#endif /* SPPROF_UNWIND_TABLES_H */
