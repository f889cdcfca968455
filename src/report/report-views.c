/* report-views.c - the table of views, and what they share (see
 * report-view.h).  A new format is one file and one row here.
 */
#include "config.h"

#include "report-util.h"
#include "report-view.h"

#include <math.h>
#include <string.h>

static const struct view views[] = {
	{ "text", NULL, view_text, 0 },
	{ "json", ".json", view_json, 0 },
};

#define VIEW_COUNT (sizeof(views) / sizeof(views[0]))

const struct view *view_named(const char *name)
{
	for (size_t i = 0; i < VIEW_COUNT; i++)
		if (strcmp(views[i].name, name) == 0)
			return &views[i];
	return NULL;
}

static bool ends_with(const char *text, const char *suffix)
{
	size_t n = strlen(text), k = strlen(suffix);

	return n > k && strcmp(text + n - k, suffix) == 0;
}

const struct view *view_for_file(const char *path)
{
	const struct view *best = NULL;

	for (size_t i = 0; i < VIEW_COUNT; i++)
		if (views[i].suffix && ends_with(path, views[i].suffix) &&
		    (!best || strlen(views[i].suffix) > strlen(best->suffix)))
			best = &views[i];
	return best;
}

size_t view_count(void)
{
	return VIEW_COUNT;
}

const struct view *view_at(size_t index)
{
	return &views[index];
}

double report_seconds(const struct report *report, uint64_t time_us)
{
	uint64_t start = UINT64_MAX;

	for (size_t i = 0; i < report->profile_count; i++)
		if (report->profiles[i].start_time_us < start)
			start = report->profiles[i].start_time_us;
	return time_us > start ? (double)(time_us - start) / 1e6 : 0.0;
}

double stack_measure(const struct report *report,
		     const struct report_stack *stack)
{
	const struct heap_estimates *h = &stack->heap;

	switch (report->sort) {
	case SORT_BY_ALLOCATED:
		return round(h->allocated.bytes);
	case SORT_BY_COUNT:
		return round(h->allocated.count);
	default:
		return round(h->live[report->at].bytes);
	}
}
