/* profiler.h - the profiler's state machine and the sampled-block records.
 *
 * Contract: the interposer asks profiler_wants_sample() after the sampler
 * has picked an allocation, carves a block aligned to SAMPLED_ALIGNMENT
 * out of a slightly larger C-library block (see free_filter.h), then calls
 * profiler_record_alloc() with the distance between the two.  Aligned
 * pointers given back to the interposer (free, realloc) go through
 * profiler_release() before anything is returned to the C library, so an
 * address is never reused while it is still in the tables, and the C
 * library always gets its own pointer back.  These run under the thread's
 * re-entrancy guard and keep errno intact.  A vfork() child shares our
 * memory; what it allocates before exec (POSIX allows nothing) is recorded
 * as its parent's.
 */
#ifndef SPPROF_PROFILER_H
#define SPPROF_PROFILER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "heap_map.h"

int profiler_wants_sample(void);

/* 1 when the block is now tracked; 0 when it could not be (table full),
 * in which case the caller must not hand out a carved block.  slack: the
 * bytes past size the program may use (malloc_usable_size).  With sample
 * 0 the block is only remembered as carved (a sampled block resized in
 * place that the sampler did not pick again): it appears in no snapshot,
 * event or estimate. */
int profiler_record_alloc(void *block, size_t size, size_t slack,
			  uint32_t offset, int sample);

/* 1 and *record filled when block was a live sampled block, which is now
 * forgotten (and its free recorded when frees are tracked).  Works in every
 * state, so that carved blocks always find their way back. */
int profiler_release(void *block, struct heap_record *record);

/* Reads a live sampled block's record: 1 when block is one. */
int profiler_find(void *block, struct heap_record *record);

/* Puts back a block released by a realloc() that then failed. */
int profiler_restore(void *block, const struct heap_record *record);

/* A live sample at block counts no more: its free is recorded, and a
 * carved block is remembered as carved only (memprof_report_chunk(3):
 * a pool's chunk whose blocks are reported apart). */
void profiler_unsample(void *block);

/* Anonymous mappings (interpose_mmap.c).  profiler_record_mapping():
 * the program mapped `length` bytes at start, and the sampler picked
 * them.  Around a system call that unmaps or replaces [start, start +
 * length) (munmap, mremap, mmap with MAP_FIXED): profiler_begin_unmap()
 * returns 1 when the range touches a sampled mapping, and then holds the
 * mapping table, under the re-entrancy guard, until profiler_end_unmap()
 * (unmapped: the call succeeded) forgets what the call took; called
 * outside the guard only. */
void profiler_record_mapping(void *start, size_t length);
int profiler_begin_unmap(const void *start, size_t length);
void profiler_end_unmap(const void *start, size_t length, int unmapped);

/* Called once when the library is loaded. */
void profiler_load(void);
void profiler_unload(void);

/* Called from _exit(), which runs no exit handlers: finish the profile. */
void profiler_exit_now(void);

/* Called around an exec: finish the profile of the image about to be
 * replaced by program, and start over if the exec failed. */
void profiler_before_exec(const char *program);
void profiler_exec_failed(void);

/* Called before the process sandboxes itself (what: "installs a seccomp
 * filter"...): finishes the profile while the process still can, says
 * so, and leaves the process alone from then on (interpose_sandbox.c). */
void profiler_before_sandbox(const char *what);

/* 1 while the runtime may do its work in this process: 0 in a child made
 * by clone() itself, which the atfork handlers never saw (its state is
 * its parent's, process_owner.h), or once the process sandboxed itself;
 * the runtime then leaves it alone, and its children too.  One load. */
int profiler_may_work_here(void);

/* Called before the process changes its effective user or group
 * ((uid_t)-1, (gid_t)-1: unchanged); see writer_before_id_change(). */
void profiler_before_id_change(uid_t uid, gid_t gid);

#endif /* SPPROF_PROFILER_H */
