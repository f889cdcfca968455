/* unwind_tables.h - native stacks from the binaries' unwind tables.
 *
 * Contract: unwind_tables_init() says whether the runtime was built with
 * libunwind; without it unwind_tables_capture() records nothing.  With it,
 * unwind_tables_capture() records the current thread's stack as return
 * addresses, leaf first, the runtime's own frames included, read from the
 * .eh_frame of each object: code built without frame pointers and signal
 * frames are walked through.  libunwind keeps a cache per thread, takes
 * its memory from mmap and never calls malloc; on a cache miss it looks
 * the code up with dl_iterate_phdr, which takes the dynamic linker's lock
 * (never held while the runtime waits for anything).
 */
#ifndef SPPROF_UNWIND_TABLES_H
#define SPPROF_UNWIND_TABLES_H

#include <stdint.h>

#include <spprof/memprof.h>

/* Room for the deepest stack kept and the runtime's own frames above it. */
#define UNWIND_TABLES_MAX_DEPTH (MEMPROF_MAX_STACK_DEPTH + 16)

int unwind_tables_init(void);

/* Fills frames[0..max), max <= UNWIND_TABLES_MAX_DEPTH. */
uint32_t unwind_tables_capture(uintptr_t *frames, uint32_t max);

#endif /* SPPROF_UNWIND_TABLES_H */
