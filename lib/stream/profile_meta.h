/* profile_meta.h - the header and JSON metadata of a .mlyze profile.
 *
 * Contract: meta_write_prologue() writes the fixed header and the JSON
 * metadata (mlyze(5)) through an outbuf positioned at file offset 0, then
 * patches the metadata's length into the header.  A streamed file gets
 * the profile's identity only ("complete": false); the final file also
 * lists the stacks, modules, names and statistics, and how the process
 * (or the recording window) ended.  Nothing here allocates.
 */
#ifndef SPPROF_PROFILE_META_H
#define SPPROF_PROFILE_META_H

#include <stdint.h>

#include <spprof/memprof.h>

#include "outbuf.h"
#include "stack_table.h"

struct profile_meta {
	uint64_t sampling_rate; /* the rate the profile started with */
	uint64_t start_wall_us;
	/* What only the complete metadata holds: */
	struct stack_table *stacks;
	const uint8_t *stack_defined; /* bitmap: the stacks to list */
	int none_defined;             /* list the empty stack too */
	const memprof_stats *stats;
	const char *exec_program;     /* replaced by this exec, or NULL */
	/* A recording window that did not start with the process or did not
	 * end with it: why it started ("SPPROF_OUTPUT", "memprof-ctl start")
	 * and ended ("stop", "snapshot"); NULL: with the process. */
	const char *started_by;
	const char *ended_by;
};

/* Copies the command line as the process started with it, before the
 * program can rewrite it: called once, when the runtime is loaded.  The
 * metadata shows this copy, and the command line of the moment as the
 * title when the program changed it. */
void meta_note_command_line(void);

/* What the process is, on one line, for people: its title if it has
 * one, else its command line.  Valid until the next call. */
const char *meta_process_name(void);

/* 0, or the errno value of the first failed write. */
int meta_write_prologue(struct outbuf *o, const struct profile_meta *m,
			int complete);

#endif /* SPPROF_PROFILE_META_H */
