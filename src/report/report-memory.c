/* report-memory.c - resident memory and the malloc heap (see
 * report-memory.h). */
#include "config.h"

#include "report-memory.h"
#include "report-util.h"

#include <stdlib.h>
#include <string.h>

/* Keeps every other point, to make room. */
static void thin(struct memory_series *s)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->count; i += 2)
		s->points[kept++] = s->points[i];
	s->count = kept;
	s->stride *= 2;
}

void memory_series_add(struct memory_series *s, const struct memory_point *p)
{
	if (s->readings == 0 || p->resident > s->peak.resident)
		s->peak = *p;
	if (s->stride == 0)
		s->stride = 1;
	if (s->readings++ % s->stride != 0)
		return;
	if (s->count == MEMORY_POINTS_MAX)
		thin(s);
	s->points = xgrow(s->points, &s->capacity, s->count + 1,
			  sizeof(*s->points));
	s->points[s->count++] = *p;
}

void memory_series_free(struct memory_series *s)
{
	free(s->points);
	memset(s, 0, sizeof(*s));
}

/* Below this share, malloc leaves most of resident memory unexplained. */
#define MOSTLY_MALLOC 0.9

bool memory_peak_add(struct memory_point *peaks,
		     const struct memory_series *series)
{
	const struct memory_point *p = &series->peak;

	if (!series->readings)
		return false;
	peaks->resident += p->resident;
	peaks->anonymous += p->anonymous;
	peaks->malloc_bytes += p->malloc_bytes;
	if (p->time_us > peaks->time_us)
		peaks->time_us = p->time_us;
	return true;
}

char *memory_explained_note(const struct memory_point *peaks,
			    size_t processes)
{
	double resident = (double)peaks->resident;
	char size[32];

	if (!processes || peaks->resident == 0)
		return NULL;
	format_size(size, resident);
	return xasprintf(
		"malloc accounts for %.0f %% of resident memory at the peak "
		"(%s%s); %s",
		100.0 * peaks->malloc_bytes / resident, size,
		processes > 1 ? ", the sum of the peaks of the processes" : "",
		peaks->malloc_bytes < MOSTLY_MALLOC * resident
			? "the rest is not allocated through malloc (code, "
			  "thread stacks, and heaps of their own such as "
			  "JavaScript's, Go's or a garbage collector's)."
			: "nearly all of it is the malloc heap.");
}
