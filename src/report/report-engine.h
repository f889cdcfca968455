/* report-engine.h - the report engine's one entry point: from profiles to
 * the stacks, sites and growth that memprof-report and memprof-ctl show.
 *
 * Contract: report_engine_run() takes each profile of the request, in
 * turn, through these steps:
 *   1. opened (libmlyze), by its name or from a descriptor;
 *   2. replayed into estimates per stack (report-heap.c) with the
 *      request's replay options, which the hook `opened` may adjust;
 *   3. from REPORT_STACKS on, its stacks symbolized by the request's namer
 *      and merged with those of the profiles before (report-stacks.c),
 *      apart by process with label_pid.
 * A profile replayed already (the replays memprof-ctl serve keeps between
 * scrapes) enters at step 3, and no hook of one profile sees it: its
 * lender has it.
 * Then, once every profile that could be read is in, the merged stacks:
 *   4. lose those the suppressions match, when there are some
 *      (report-suppress.c);
 *   5. have their allocation wrappers passed over, unless keep_wrappers
 *      (report-wrappers.c);
 *   6. from REPORT_SITES on, are grouped into sites, sorted by `sort` at
 *      `at` (report-sites.c);
 *   7. with REPORT_LEAKS, those sites are ranked by the trend of their
 *      live bytes (report-leaks.c): per marker when per_marker_when_marked
 *      and the profiles set two markers or more, else per second.
 * A profile that cannot be opened or replayed is left out (the hook
 * `failed` is told); when none could be read, steps 4 to 7 are not taken.
 * The hooks (each may be NULL) let a caller take what it needs of each
 * profile on the way; what a hook takes out of a replay it sets to NULL
 * there, so that the engine does not free it.  Running out of memory
 * ends the program (report-util.h).  The result is the caller's to free
 * with report_result_free(), whatever the run read.
 */
#ifndef SPPROF_REPORT_ENGINE_H
#define SPPROF_REPORT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "report-frames.h"
#include "report-heap.h"
#include "report-leaks.h"
#include "report-sites.h"
#include "report-stacks.h"
#include "report-suppress.h"
#include "spprof/mlyze.h"

/* How far a run goes: each step takes those before it. */
enum report_step {
	REPORT_REPLAY, /* each profile's replay, for the hooks alone */
	REPORT_STACKS, /* the stacks of the profiles, merged */
	REPORT_SITES,  /* the sites they make */
	REPORT_LEAKS,  /* the sites ranked by their growth */
};

/* What the caller takes of each profile.  `name` is the profile's file
 * name, or the name given with its descriptor. */
struct report_hooks {
	void *ctx;
	/* The profile is open and readable, not yet replayed. */
	void (*opened)(void *ctx, const char *name, const mlyze_reader *r,
		       struct replay_options *replaying);
	/* It cannot be read (mlyze_error(r) says why); it is left out. */
	void (*failed)(void *ctx, const char *name, const mlyze_reader *r);
	/* Its replay, before its stacks are merged. */
	void (*replayed)(void *ctx, const char *name, const mlyze_reader *r,
			 struct heap_replay *h);
	/* Its stacks merged: stack_map gives the index in the result's
	 * stacks of each of its own (see stacks_add_profile()). */
	void (*merged)(void *ctx, const char *name, const mlyze_reader *r,
		       struct heap_replay *h, const size_t *stack_map);
	/* Every profile that could be read is in, before step 4. */
	void (*all_merged)(void *ctx, const struct stack_table *stacks);
};

struct report_request {
	/* The profiles, by name; or, when fds is not NULL, open at fds[i]
	 * (read from its current offset, not closed), files[i] naming it. */
	const char *const *files;
	const int *fds;
	size_t count;
	/* Or one profile replayed already, with its reader still open. */
	const mlyze_reader *reader;
	const struct heap_replay *replay;
	struct mlyze_options reading;
	struct replay_options replaying;
	enum report_step until;
	struct frame_namer *namer; /* from REPORT_STACKS */
	bool label_pid;
	struct suppressions *suppressions; /* or NULL */
	bool keep_wrappers;
	enum grouping grouping; /* from REPORT_SITES */
	bool cumulative;
	enum sort_key sort;
	enum moment at;
	bool per_marker_when_marked; /* REPORT_LEAKS */
	struct report_hooks hooks;
};

struct report_result {
	size_t read, failed; /* profiles */
	bool malformed;      /* one that failed breaks the format */
	size_t markers;      /* set by the profiles read */
	struct stack_table stacks; /* from REPORT_STACKS */
	struct site_table sites;   /* from REPORT_SITES, when one was read */
	struct leaks leaks;        /* REPORT_LEAKS, when one was read */
};

void report_engine_run(const struct report_request *request,
		       struct report_result *result);
void report_result_free(struct report_result *result);

#endif /* SPPROF_REPORT_ENGINE_H */
