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
	if (p->resident > s->resident_high)
		s->resident_high = p->resident;
	if (p->resident_peak > s->resident_high)
		s->resident_high = p->resident_peak;
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
	peaks->resident_peak += series->resident_high;
	peaks->malloc_bytes += p->malloc_bytes;
	peaks->mapped_bytes += p->mapped_bytes;
	if (p->time_us > peaks->time_us)
		peaks->time_us = p->time_us;
	return true;
}

double memory_heap_share(const struct memory_point *peaks, double heap_peak)
{
	double resident = (double)peaks->resident_peak;

	if (heap_peak > resident)
		return -1;
	return resident > 0 ? heap_peak / resident : 0;
}

/* The profile holds none of the allocations of a program whose malloc
 * was not the runtime's: no share can be given, only what was missed. */
static char *unseen_malloc_note(const struct memory_point *peaks,
				size_t processes,
				const struct unseen_malloc *unseen)
{
	char resident[32];
	bool one = unseen->profiles == 1;
	char *whose = unseen->of > 1
			      ? xasprintf("%zu of the %zu processes allocate%s",
					  unseen->profiles, unseen->of,
					  one ? "s" : "")
			      : xasprintf("The program allocates");
	char *held = NULL, *note;

	format_size(resident, (double)peaks->resident_peak);
	if (processes)
		held = xasprintf(" (%s at the peak%s)", resident,
				 processes > 1 ? ", the sum of the processes'"
					       : "");
	note = xasprintf(
		"%s through a malloc of %s own, defined by %s, which comes "
		"before the profiler's: the profiler saw none of those "
		"allocations, so the profile cannot say how much of the "
		"resident memory%s is the malloc heap.",
		whose, one ? "its" : "their", unseen->defined_by,
		held ? held : "");
	free(whose);
	free(held);
	return note;
}

/* The sentence of a report that counts anonymous mappings: their share
 * beside malloc's, of the peak of both (heap_peak bytes, mapped_peak of
 * them the mappings'). */
static char *mapped_note(double share, double heap_peak, double mapped_peak,
			 const char *held, const char *resident)
{
	double malloc_peak = heap_peak - mapped_peak;
	char heap[32], mapped[32];

	format_size(heap, malloc_peak > 0 ? malloc_peak : 0);
	format_size(mapped, mapped_peak);
	if (share < 0)
		return xasprintf(
			"The peak of the malloc heap (%s) and of anonymous "
			"mappings (%s) is more than the most %s, %s: memory "
			"allocated or mapped but never touched is not resident "
			"(the kernel gives a page RAM only as it is written), "
			"so no share of resident memory can be given.",
			heap, mapped, held, resident);
	return xasprintf(
		"malloc accounts for %.0f %% and anonymous mappings for "
		"%.0f %% of resident memory at the peak: the malloc heap's "
		"peak, %s, and the mappings', %s, of the most %s, %s; %s",
		100.0 * share * (malloc_peak > 0 ? malloc_peak : 0) / heap_peak,
		100.0 * share * mapped_peak / heap_peak, heap, mapped, held,
		resident,
		share < MOSTLY_MALLOC
			? "the rest is neither (code, thread stacks, memory "
			  "mapped by the program's own system calls, as Go "
			  "does, and the C library's own mappings)."
			: "nearly all of it is one or the other.");
}

char *memory_explained_note(const struct memory_point *peaks,
			    size_t processes, double heap_peak,
			    double mapped_peak,
			    const struct unseen_malloc *unseen)
{
	double share = memory_heap_share(peaks, heap_peak);
	const char *held = processes > 1
				   ? "the processes held in RAM (the sum of "
				     "their peaks)"
				   : "the process held in RAM";
	char resident[32], heap[32];

	if (unseen && unseen->profiles)
		return unseen_malloc_note(peaks, processes, unseen);
	if (!processes || peaks->resident_peak == 0)
		return NULL;
	format_size(resident, (double)peaks->resident_peak);
	if (mapped_peak > 0)
		return mapped_note(share, heap_peak, mapped_peak, held,
				   resident);
	format_size(heap, heap_peak);
	if (share < 0)
		return xasprintf(
			"The malloc heap's peak, %s, is more than the most %s, "
			"%s: memory allocated but never touched is not "
			"resident (the kernel gives a block RAM only as it is "
			"written), so no share of resident memory can be "
			"given.", heap, held, resident);
	return xasprintf(
		"malloc accounts for %.0f %% of resident memory at the peak: "
		"the malloc heap's peak, %s, of the most %s, %s; %s",
		100.0 * share, heap, held, resident,
		share < MOSTLY_MALLOC
			? "the rest is not allocated through malloc (code, "
			  "thread stacks, and heaps of their own such as "
			  "JavaScript's, Go's or a garbage collector's)."
			: "nearly all of it is the malloc heap.");
}
