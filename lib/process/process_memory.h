/* process_memory.h - the process's resident and anonymous memory, as the
 * kernel counts it: what `top` shows, including the memory the runtime
 * cannot see (a JavaScript, Go or JVM heap, a garbage collector's arenas:
 * whatever comes from mmap and not from malloc); and the most resident
 * memory so far, which the kernel keeps, so that a peak between two
 * readings is not missed.
 *
 * Contract: process_memory_read() may run inside the allocation hooks:
 * it makes raw system calls only (no allocation, no lock, no stdio, no
 * cancellation point) and leaves errno as it was.  process_memory_due()
 * lets one caller at a time through, at most once per
 * PROCESS_MEMORY_INTERVAL_NS: readings are never on the fast path, and
 * rare on the sampled one.
 */
#ifndef SPPROF_PROCESS_MEMORY_H
#define SPPROF_PROCESS_MEMORY_H

#include <stdint.h>

/* A few readings a second draw the curve of a run without costing it. */
#define PROCESS_MEMORY_INTERVAL_NS (250 * UINT64_C(1000000))

struct process_memory {
	uint64_t resident;  /* bytes in RAM */
	uint64_t anonymous; /* of those, not backed by a file (heaps, stacks) */
	/* The most bytes the process has held in RAM so far (the kernel's
	 * high-water mark, VmHWM); 0 when the kernel does not say. */
	uint64_t resident_peak;
};

/* 0, or -1 when the kernel does not say (no /proc: readings stop). */
int process_memory_read(struct process_memory *out);
/* 1 when the mapping that holds address is anonymous memory of the
 * program's (no file, not PROT_NONE), as /proc/self/maps shows it; 0 when
 * it is not, holds no mapping, or the kernel does not say.  It reads the
 * whole list of mappings: for the sampled path only.  Raw system calls
 * only, errno left as it was, as process_memory_read(). */
int process_memory_anonymous_at(uintptr_t address);
/* Whether the caller should take a reading at monotonic time now_ns;
 * true for one caller per interval. */
int process_memory_due(uint64_t now_ns);
/* The next call of process_memory_due() is true (a new profile: a
 * forked child's). */
void process_memory_reset(void);

#endif /* SPPROF_PROCESS_MEMORY_H */
