/* report-engine.c - from profiles to stacks, sites and growth (see
 * report-engine.h). */
#include "config.h"

#include "report-engine.h"

#include <stdlib.h>
#include <string.h>

#include "report-util.h"
#include "report-wrappers.h"

static size_t markers_of(const struct heap_replay *h)
{
	size_t n = 0;

	for (size_t i = 0; i < h->events_kept_count; i++)
		n += h->events_kept[i].kind == HEAP_EVENT_MARKER;
	return n;
}

/* Step 3 for one replayed profile: by its stacks, their index in the
 * result's (to free), or NULL before REPORT_STACKS. */
static size_t *merge_stacks(const struct report_request *q,
			    struct report_result *result,
			    const mlyze_reader *r, const struct heap_replay *h)
{
	result->read++;
	result->markers += markers_of(h);
	if (q->until < REPORT_STACKS)
		return NULL;
	if (q->label_pid)
		result->stacks.pid = mlyze_info(r)->pid;
	return stacks_add_profile(&result->stacks, q->namer, r, h);
}

static mlyze_reader *open_profile(const struct report_request *q, size_t i)
{
	mlyze_reader *r = q->fds ? mlyze_open_fd(q->fds[i], q->files[i],
						 &q->reading)
				 : mlyze_open(q->files[i], &q->reading);

	if (!r)
		out_of_memory();
	return r;
}

/* Steps 1 to 3 for profile i, with the hooks. */
static void read_profile(const struct report_request *q, size_t i,
			 struct report_result *result)
{
	const struct report_hooks *hooks = &q->hooks;
	const char *name = q->files[i];
	struct replay_options replaying = q->replaying;
	mlyze_reader *r = open_profile(q, i);
	struct heap_replay h;
	size_t *stack_map;

	if (mlyze_status(r) == MLYZE_OK && hooks->opened)
		hooks->opened(hooks->ctx, name, r, &replaying);
	if (mlyze_status(r) != MLYZE_OK || heap_replay(r, &h, &replaying) < 0) {
		result->failed++;
		result->malformed |= mlyze_status(r) == MLYZE_BAD_FILE;
		if (hooks->failed)
			hooks->failed(hooks->ctx, name, r);
		mlyze_close(r);
		return;
	}
	if (hooks->replayed)
		hooks->replayed(hooks->ctx, name, r, &h);
	stack_map = merge_stacks(q, result, r, &h);
	if (hooks->merged)
		hooks->merged(hooks->ctx, name, r, &h, stack_map);
	free(stack_map);
	heap_replay_free(&h);
	mlyze_close(r);
}

/* Steps 4 to 7, on the merged stacks. */
static void shape(const struct report_request *q,
		  struct report_result *result)
{
	if (q->suppressions)
		suppress_stacks(q->suppressions, &result->stacks);
	if (!q->keep_wrappers)
		wrappers_mark(&result->stacks);
	if (q->until < REPORT_SITES)
		return;
	sites_build(&result->sites, &result->stacks, q->grouping,
		    q->cumulative);
	sites_sort(&result->sites, q->sort, q->at);
	if (q->until < REPORT_LEAKS)
		return;
	leaks_rank(&result->leaks, &result->sites,
		   q->per_marker_when_marked && result->markers >= 2
			   ? PER_MARKER
			   : PER_SECOND);
}

void report_engine_run(const struct report_request *q,
		       struct report_result *result)
{
	memset(result, 0, sizeof(*result));
	stacks_init(&result->stacks);
	if (q->replay)
		free(merge_stacks(q, result, q->reader, q->replay));
	for (size_t i = 0; i < q->count; i++)
		read_profile(q, i, result);
	if (result->read == 0)
		return;
	if (q->hooks.all_merged)
		q->hooks.all_merged(q->hooks.ctx, &result->stacks);
	if (q->until >= REPORT_STACKS)
		shape(q, result);
}

void report_result_free(struct report_result *result)
{
	leaks_free(&result->leaks);
	sites_free(&result->sites);
	stacks_free(&result->stacks);
}
