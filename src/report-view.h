/* report-view.h - what a report says, and the views that print it.
 *
 * Contract: struct report is everything a view needs, gathered by
 * memprof-report from the profiles after their readers are closed; the
 * views only format it (report-text.c for people, report-json.c for
 * programs) and never read profiles themselves.
 */
#ifndef SPPROF_REPORT_VIEW_H
#define SPPROF_REPORT_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "report-sites.h"

struct profile_summary {
	char *file;
	uint64_t pid;          /* 0 when unknown */
	char **command_line;   /* NULL-terminated; empty when unknown */
	double duration_s;
	uint64_t sampling_rate; /* at the start; 0 when unknown */
	bool rate_changed;
	int complete;          /* as in struct mlyze_info */
	bool truncated;
	char *exec_program; /* the process was replaced by exec; else NULL */
	uint64_t damaged_stacks;
	uint64_t events;
	double peak_time_s; /* since the start */
	struct estimate peak, end; /* live heap of the profile */
};

struct report {
	struct profile_summary *profiles;
	size_t profile_count;
	const struct site_table *sites; /* sorted */
	size_t top;                     /* rows to show; 0: all */
	enum grouping grouping;
	enum sort_key sort;
	enum moment at; /* when the live bytes of the sites are counted */
	char **notes; /* caveats in plain words, for people and programs */
	size_t note_count;
	char **warnings; /* the warnings printed on stderr */
	size_t warning_count;
};

/* Rows the report shows. */
static inline size_t report_rows(const struct report *report)
{
	size_t n = report->sites->count;

	return report->top && report->top < n ? report->top : n;
}

void view_text(FILE *out, const struct report *report, bool colour);
/* Returns 0, or -1 when the JSON could not be written. */
int view_json(FILE *out, const struct report *report);

#endif /* SPPROF_REPORT_VIEW_H */
