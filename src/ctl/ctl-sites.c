/* ctl-sites.c - the allocation sites of a running profile (see
 * ctl-sites.h). */
#include "config.h"

#include "ctl-sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-leaks.h"
#include "report-sites.h"
#include "report-util.h"
#include "report-wrappers.h"

/* The first `top` sites of `sites` (sorted by live bytes at the end)
 * that hold something. */
static void keep_largest(struct ctl_sites *out, const struct site_table *sites,
			 size_t top)
{
	out->largest = xcalloc(top + 1, sizeof(*out->largest));
	for (size_t i = 0; i < sites->count && out->largest_count < top; i++) {
		const struct site *s = &sites->sites[i];

		if (s->heap.live[AT_END].samples == 0)
			break;
		out->largest[out->largest_count++] = (struct ctl_site){
			.name = xstrdup(s->text),
			.value = s->heap.live[AT_END].bytes,
		};
	}
}

/* The first `top` growing sites of `leaks` (which ranks them first). */
static void keep_growing(struct ctl_sites *out, const struct leaks *leaks,
			 size_t top)
{
	out->growing = xcalloc(top + 1, sizeof(*out->growing));
	for (size_t i = 0; i < leaks->count && out->growing_count < top; i++) {
		const struct site_growth *g = &leaks->sites[i];

		if (g->verdict != GROWTH_GROWING)
			break;
		out->growing[out->growing_count++] = (struct ctl_site){
			.name = xstrdup(g->site->text),
			.value = g->trend.slope,
		};
	}
}

/* Sites of the stacks, as memprof-report groups them by default. */
static void keep_sites(struct ctl_sites *out, struct stack_table *stacks,
		       size_t top)
{
	struct site_table sites;
	struct leaks leaks;

	wrappers_mark(stacks);
	sites_build(&sites, stacks, GROUP_BY_FUNCTION, false);
	sites_sort(&sites, SORT_BY_LIVE, AT_END);
	leaks_rank(&leaks, &sites, PER_SECOND);
	keep_largest(out, &sites, top);
	keep_growing(out, &leaks, top);
	leaks_free(&leaks);
	sites_free(&sites);
}

struct frame_namer *ctl_sites_namer(void)
{
	struct symbolizer_options naming = { .warn = ctl_ignore_warning };

	return frame_namer_new(&naming);
}

void ctl_sites_of(const mlyze_reader *r, const struct heap_replay *h,
		  size_t top, struct frame_namer *namer, struct ctl_sites *out)
{
	struct stack_table stacks;

	memset(out, 0, sizeof(*out));
	ctl_summary_of(h, &out->summary);
	stacks_init(&stacks);
	free(stacks_add_profile(&stacks, namer, r, h));
	keep_sites(out, &stacks, top);
	stacks_free(&stacks);
}

int ctl_sites_read(int fd, const char *name, size_t top, uint64_t now_us,
		   uint64_t growth_window_us, struct frame_namer *namer,
		   struct ctl_sites *out, char *why, size_t size)
{
	struct mlyze_options reading = { .warn = ctl_ignore_warning };
	struct replay_options replaying = {
		.growth = true, .until_us = now_us,
		.growth_window_us = growth_window_us
	};
	mlyze_reader *r = mlyze_open_fd(fd, name, &reading);
	struct heap_replay h;

	memset(out, 0, sizeof(*out));
	if (!r)
		out_of_memory();
	if (mlyze_status(r) != MLYZE_OK || heap_replay(r, &h, &replaying) < 0) {
		snprintf(why, size, "%s", mlyze_error(r));
		mlyze_close(r);
		return -1;
	}
	ctl_sites_of(r, &h, top, namer, out);
	heap_replay_free(&h);
	mlyze_close(r);
	return 0;
}

static void free_list(struct ctl_site *list, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(list[i].name);
	free(list);
}

void ctl_sites_free(struct ctl_sites *s)
{
	free_list(s->largest, s->largest_count);
	free_list(s->growing, s->growing_count);
	memset(s, 0, sizeof(*s));
}
