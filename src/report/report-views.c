/* report-views.c - the table of views, and what they share (see
 * report-view.h).  A new format is one file and one row here.
 */
#include "config.h"

#include "report-util.h"
#include "report-view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct view views[] = {
	{ "text", NULL, view_text, 0 },
	{ "json", ".json", view_json, 0 },
	{ "folded", ".folded", view_folded, 0 },
	{ "speedscope", ".speedscope.json", view_speedscope, 0 },
	{ "pprof", ".pb.gz", view_pprof, 0 },
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

const char *const measure_titles[MEASURES] = {
	"Live bytes at the peak", "Live bytes at the end", "Bytes allocated",
	"Allocations",
};

enum measure report_measure(const struct report *report)
{
	switch (report->sort) {
	case SORT_BY_ALLOCATED:
		return MEASURE_ALLOCATED;
	case SORT_BY_COUNT:
		return MEASURE_ALLOCATIONS;
	default:
		return report->at == AT_PEAK ? MEASURE_LIVE_AT_PEAK
					     : MEASURE_LIVE_AT_END;
	}
}

double stack_value(const struct report_stack *stack, enum measure measure)
{
	const struct heap_estimates *h = &stack->heap;

	switch (measure) {
	case MEASURE_LIVE_AT_PEAK:
		return round(h->live[AT_PEAK].bytes);
	case MEASURE_LIVE_AT_END:
		return round(h->live[AT_END].bytes);
	case MEASURE_ALLOCATED:
		return round(h->allocated.bytes);
	default:
		return round(h->allocated.count);
	}
}

double stack_measure(const struct report *report,
		     const struct report_stack *stack)
{
	return stack_value(stack, report_measure(report));
}

char **report_frame_names(const struct report *report)
{
	const struct stack_table *t = report->stacks;
	char **names = xcalloc(t->frame_count, sizeof(*names));

	for (size_t i = 0; i < t->frame_count; i++)
		names[i] = frame_display_name(&t->frames[i], t->modules);
	return names;
}

void report_frame_names_free(const struct report *report, char **names)
{
	for (size_t i = 0; i < report->stacks->frame_count; i++)
		free(names[i]);
	free(names);
}
