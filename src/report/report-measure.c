/* report-measure.c - what the views weigh stacks by (see report-view.h),
 * apart from the table of views, so that a program that writes one view
 * (memprof-ctl serve's pprof) links that view alone. */
#include "config.h"

#include "report-view.h"

#include <math.h>
#include <stdint.h>

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
	"Allocations", "Live bytes at the chosen moment",
};

size_t report_measures(const struct report *report)
{
	return report->at == AT_TIME ? MEASURES : MEASURE_LIVE_AT_TIME;
}

enum measure report_measure(const struct report *report)
{
	switch (report->sort) {
	case SORT_BY_ALLOCATED:
		return MEASURE_ALLOCATED;
	case SORT_BY_COUNT:
		return MEASURE_ALLOCATIONS;
	default:
		return report->at == AT_PEAK  ? MEASURE_LIVE_AT_PEAK
		       : report->at == AT_END ? MEASURE_LIVE_AT_END
					      : MEASURE_LIVE_AT_TIME;
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
	case MEASURE_LIVE_AT_TIME:
		return round(h->live[AT_TIME].bytes);
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
