/* ctl-sites.c - the allocation sites of a running profile (see
 * ctl-sites.h). */
#include "config.h"

#include "ctl-sites.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report-engine.h"
#include "report-util.h"

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

/* Runs q for the sites as memprof-report groups them by default, their
 * growth per second, and keeps the first `top` in out; whether the
 * profile could be read. */
static bool keep_sites(struct ctl_sites *out, struct report_request *q,
		       size_t top, struct frame_namer *namer)
{
	struct report_result result;
	bool read;

	q->until = REPORT_LEAKS;
	q->namer = namer;
	q->grouping = GROUP_BY_FUNCTION;
	q->sort = SORT_BY_LIVE;
	q->at = AT_END;
	report_engine_run(q, &result);
	read = result.read > 0;
	if (read) {
		keep_largest(out, &result.sites, top);
		keep_growing(out, &result.leaks, top);
	}
	report_result_free(&result);
	return read;
}

struct frame_namer *ctl_sites_namer(void)
{
	struct symbolizer_options naming = { .warn = ctl_ignore_warning };

	return frame_namer_new(&naming);
}

void ctl_sites_of(const mlyze_reader *r, const struct heap_replay *h,
		  size_t top, struct frame_namer *namer, struct ctl_sites *out)
{
	struct report_request request = { .reader = r, .replay = h };

	memset(out, 0, sizeof(*out));
	ctl_summary_of(h, &out->summary);
	keep_sites(out, &request, top, namer);
}

int ctl_sites_read(int fd, const char *name, size_t top, uint64_t now_us,
		   uint64_t growth_window_us, struct frame_namer *namer,
		   struct ctl_sites *out, char *why, size_t size)
{
	struct ctl_reading reading = { fd, name, &out->summary, why, size };
	struct report_request request = ctl_stream_request(&reading,
							   REPORT_LEAKS);

	memset(out, 0, sizeof(*out));
	request.replaying = (struct replay_options){
		.growth = true, .until_us = now_us,
		.growth_window_us = growth_window_us
	};
	return keep_sites(out, &request, top, namer) ? 0 : -1;
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
