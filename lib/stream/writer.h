/* writer.h - streams the .mlyze profile of this process.
 *
 * Contract: events are appended, under a short spin lock, to the crash-
 * safe stream of "<name>.part" (event_stream.h): once written, an event
 * survives any end of the process, and memory stays bounded however long
 * the run.  The streamed file is itself a valid .mlyze file: stacks,
 * modules and names are defined inline (event types 4-6) before their
 * first use.  writer_finalise() has the final file assembled (header,
 * complete JSON metadata, events: profile_assembly.h) and published under
 * its final name - never over an existing file - and removes the streamed
 * one (profile_files.h names them).  The file is created lazily, at the
 * first event, so a forked child that only execs leaves nothing behind; at
 * exit the first process of a tree writes its profile even when empty,
 * descendants only when they recorded something (the others name
 * themselves in the manifest, profile_files.h).
 *
 * A profile with a size limit (settings->max_size) checkpoints when its
 * streamed file reaches it: a new streamed file starts with the sampled
 * blocks still live (LIVE events, with the stacks, modules and names they
 * need), every stack's sums since the start (TOTALS) and the live heap at
 * each earlier checkpoint (HEAP_POINT), then replaces the old one by
 * rename(2), and the events go on after it; the older events are gone.
 * So the file never exceeds the limit by more than one stream window, and
 * a kill at any moment leaves a "<name>.part" that reads (during a
 * checkpoint, the one before it, beside an unfinished "<name>.part.next").
 * A checkpoint larger than half the limit makes the next one wait until
 * the file is twice its size, so that checkpoints never follow each
 * other.  When the stream cannot
 * go on (disk full, file size limit, file removed), recording stops with
 * one message and the program carries on.
 *
 * A few times a second, a sampled allocation also records the process's
 * resident and anonymous memory (process_memory.h), and so does the end
 * of the profile.
 *
 * All entry points may run inside the allocation hooks, under the
 * runtime's re-entrancy guard.
 */
#ifndef SPPROF_WRITER_H
#define SPPROF_WRITER_H

#include <stdint.h>
#include <sys/types.h>

#include <spprof/memprof.h>

#include "heap_map.h"
#include "mapping_table.h"
#include "settings.h"
#include "stack_table.h"

/* Enables recording to settings->output; returns 0 or -1 with errno.
 * The sampled blocks of both heap maps (full records and those left in
 * place) are what a checkpoint keeps. */
int writer_configure(const struct runtime_config *settings,
		     struct stack_table *stacks, struct heap_map *heap,
		     struct heap_map *in_place, uint64_t sampling_rate,
		     int descendant);
int writer_enabled(void);
/* Writes nothing more, without a system call: in a process the runtime
 * leaves alone (profiler_may_work_here()), whose stream, if any, is its
 * parent's and not even mapped. */
void writer_stand_aside(void);

void writer_alloc(uintptr_t address, const struct heap_record *record);
void writer_free(uintptr_t address);
/* A sampled anonymous mapping (MAP), or what remains of one after part
 * of it was unmapped (remainder 1: nothing newly allocated), and the end
 * of one, whole (UNMAP). */
void writer_map(const struct sampled_mapping *m, int remainder);
void writer_unmap(uintptr_t start, uint64_t length);
/* For a free made while this thread may hold the writer's lock (a
 * signal handler that interrupted the runtime): the FREE is written
 * before the next event of any thread, so before any ALLOC that reuses
 * the address.  Lock-free; -1 when too many wait already. */
int writer_free_later(uintptr_t address);
void writer_rate(uint64_t sampling_rate);
int writer_marker(const char *name);
void writer_gc(uint64_t objects, uint64_t bytes);

/* Writes the final file; later events are ignored. */
void writer_finalise(const memprof_stats *stats);

/* The same from _exit(), which skips the exit handlers, or before an
 * exec (exec_program: the program named), which marks the profile as
 * replaced by it.  Does nothing in a vfork() child, and waits for the
 * lock only briefly: a signal handler may be calling in while its own
 * thread holds it.  After a failed exec, the next event starts a new
 * profile. */
void writer_finish_now(const memprof_stats *stats, const char *exec_program);
void writer_exec_failed(void);

/* Recording windows (memprof-ctl start, stop, snapshot).  Each returns 0
 * or an errno value.  writer_recording(): 1 while events are written.
 * writer_finish_window() finalises the profile as writer_finalise() does,
 * labelled with why it ended, and gives its name.  writer_restart() makes
 * the next event start a new profile, named after pattern, labelled with
 * why it started; writer_begin() then creates its streamed file at once
 * (so that memprof-ctl sees the window before its first sample) and
 * gives the name it will be published under (the streamed file's,
 * without ".part", %p filled in).  writer_snapshot() publishes a finalised profile of the
 * events so far next to the streamed file, "NAME.snapshot.mlyze" (or the
 * first free name after it), and the stream goes on. */
int writer_recording(void);
int writer_finish_window(const memprof_stats *stats, const char *ended_by,
			 char *final, size_t size);
int writer_restart(const char *pattern, const char *started_by);
int writer_begin(char *name, size_t size);
int writer_snapshot(const memprof_stats *stats, char *final, size_t size);

/* Before the process changes its effective user or group to uid or gid
 * ((uid_t)-1, (gid_t)-1: unchanged), while it may still create files
 * where it runs: the streamed file is created if it is not yet, and given
 * to the new owner, so that the process can go on writing it.  Its final
 * file, should the process no longer be allowed to create it, goes to
 * memprof-wrap to publish (profile_files_hand_over). */
void writer_before_id_change(uid_t uid, gid_t gid);

uint64_t writer_events_written(void);
uint64_t writer_events_dropped(void);

/* In the child after fork(): it never writes into its parent's file.
 * The lock is not held across fork() (a thread that waits for it may
 * hold a lock fork() takes): the child forgets whatever event another
 * thread was writing, with the parent's file. */
void writer_postfork_child(int keep_recording);

#endif /* SPPROF_WRITER_H */
