/* report-view.h - what a report says, and the views that write it.
 *
 * Contract: struct report is everything a view needs, gathered by
 * memprof-report from the profiles after their readers are closed: the
 * symbolized stacks, the sites they make, and each profile's heap over
 * time.  The views only format it, one file each (report-text.c,
 * report-json.c, ...), and never read profiles themselves.  The table of
 * views (report-views.c) is the one place that lists them.
 */
#ifndef SPPROF_REPORT_VIEW_H
#define SPPROF_REPORT_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "report-blocks.h"
#include "report-compare.h"
#include "report-heap.h"
#include "report-leaks.h"
#include "report-sites.h"
#include "report-stacks.h"

struct profile_summary {
	char *file;
	uint64_t pid;          /* 0 when unknown */
	char **command_line;   /* NULL-terminated; empty when unknown */
	char *title;           /* as the program rewrote it, or NULL */
	/* "started by memprof-ctl start, ended by stop" for a recording
	 * window that did not start with the process, else NULL. */
	char *window;
	uint64_t start_time_us;
	double duration_s;
	uint64_t sampling_rate; /* at the start; 0 when unknown */
	bool rate_changed;
	int complete;          /* as in struct mlyze_info */
	/* Not finalised because its process still runs (--running). */
	bool running;
	bool truncated;
	char *exec_program; /* the process was replaced by exec; else NULL */
	/* The file defining the malloc the program's calls reached, when it
	 * was not the runtime's (none of its allocations were seen); else
	 * NULL. */
	char *malloc_defined_by;
	uint64_t damaged_stacks;
	bool has_stack_methods; /* the two below are known */
	uint64_t fp_stacks, dwarf_stacks; /* by the method that took them */
	/* The runtime's statistics the profile keeps, by name. */
	struct mlyze_stat *stats;
	size_t stat_count;
	uint64_t events;
	/* A profile with a size limit: its checkpoints, and when the events
	 * it kept start (since the start); 0 when it has none. */
	uint64_t checkpoints;
	double kept_from_s;
	double peak_time_s; /* since the start */
	double at_time_s;   /* of --at TIME or MARKER, since the start */
	struct estimate peak, end; /* live heap of the profile */
	double mapped_peak; /* of peak, the anonymous mappings counted */
	/* The share of the run the live heap was within the peak's interval
	 * of its estimate; SINGLE_PEAK_MAX_SHARE or more: no single peak. */
	double peak_level_share;
	/* The live heap over time, markers and garbage collections, and
	 * moments at which the live bytes of every stack are known (their
	 * stacks are indexes in the report's stacks). */
	struct heap_point *timeline;
	size_t timeline_count;
	struct heap_event *marks;
	size_t mark_count;
	struct heap_snapshot *snapshots;
	size_t snapshot_count;
	struct stack_amounts allocated_after_snapshots;
	/* The process's resident memory over time (no readings in
	 * profiles of older runtimes). */
	struct memory_series memory;
};

struct report {
	struct profile_summary *profiles;
	size_t profile_count;
	const struct stack_table *stacks;
	const struct site_table *sites; /* sorted */
	size_t shown_sites; /* the sites a table may show (see --all) */
	size_t top;         /* rows to show; 0: all */
	enum grouping grouping;
	enum sort_key sort; /* also the measure of the flame graphs */
	enum moment at;     /* when the live bytes of the sites are counted */
	const char *moment; /* at AT_TIME: "12.5 s", "marker load" */
	bool moment_is_marker;
	/* With --from or --to: their labels (NULL: the start, the end), and
	 * the sampled blocks allocated outside the stretch. */
	const char *from, *to;
	uint64_t born_outside;
	bool colour;        /* the text view may use colour */
	bool all;           /* --all: every site, not only the notable ones */
	/* With --base: the report of the base profiles, and what changed
	 * from them to these (else NULL). */
	const struct report *base;
	const struct comparison *comparison;
	/* With --leaks or --growth, or for a view that shows_growth, else
	 * NULL. */
	const struct leaks *leaks;
	/* With --temporary, --histogram or --group-by thread, else NULL. */
	const struct block_table *blocks;
	/* The sum of the peaks of resident memory of the processes that
	 * read it (report-memory.h), and how many did. */
	struct memory_point resident;
	size_t resident_processes;
	/* The profiles whose program's malloc was not the runtime's. */
	struct unseen_malloc unseen_malloc;
	/* Of the peak, the bytes of anonymous mappings counted (0 when the
	 * report counts none). */
	double mapped_peak;
	char **notes; /* caveats in plain words, for people and programs */
	size_t note_count;
	char **warnings; /* the warnings printed on stderr */
	size_t warning_count;
};

/* Rows the report shows. */
static inline size_t report_rows(const struct report *report)
{
	size_t n = report->shown_sites;

	return report->top && report->top < n ? report->top : n;
}

/* Seconds since the start of the first profile. */
double report_seconds(const struct report *report, uint64_t time_us);

/* What a flame graph weighs stacks by. */
enum measure {
	MEASURE_LIVE_AT_PEAK,
	MEASURE_LIVE_AT_END,
	MEASURE_ALLOCATED,   /* bytes */
	MEASURE_ALLOCATIONS, /* count */
	MEASURE_LIVE_AT_TIME, /* at --at TIME or MARKER */
	MEASURES
};

/* "Live bytes at the peak", ... by enum measure. */
extern const char *const measure_titles[MEASURES];
/* The measures the report has: those before MEASURE_LIVE_AT_TIME, and
 * that one with --at TIME or MARKER. */
size_t report_measures(const struct report *report);

/* The measure of the report: --sort, and --at for live bytes. */
enum measure report_measure(const struct report *report);
/* What one stack holds by a measure, rounded to a whole number. */
double stack_value(const struct report_stack *stack, enum measure measure);
/* The same by the report's measure. */
double stack_measure(const struct report *report,
		     const struct report_stack *stack);

/* The frames of a flame graph: one per display name, so that the lines
 * of a function make one box, and one for each kind of stack without
 * frames. */
struct flame_frames {
	char **names;       /* by flame frame */
	const char **files; /* by flame frame; NULL when unknown */
	enum frame_kind *kinds;
	size_t count;
	size_t *by_frame;   /* the report's frame -> flame frame */
	size_t no_stack, damaged_stack;
};

void flame_frames_build(const struct report *report, struct flame_frames *ff);
void flame_frames_free(struct flame_frames *ff);
/* A stack as flame frames from the root to the site, in `ids` (room for
 * depth + 1); returns how many. */
size_t flame_stack(const struct report *report, const struct flame_frames *ff,
		   const struct report_stack *stack, size_t *ids);

struct view {
	const char *name;   /* of --format */
	const char *suffix; /* of an -o FILE that chooses it; NULL: none */
	/* Returns 0, or -1 when the output could not be written. */
	int (*write)(FILE *out, const struct report *report);
	size_t snapshots;   /* moments of every stack the view shows */
	/* Writes a comparison (--base); NULL when the view has none. */
	int (*write_comparison)(FILE *out, const struct report *report);
	/* Writes the growth of the sites (--leaks); NULL when it has none. */
	int (*write_leaks)(FILE *out, const struct report *report);
	/* The view shows the fastest growing sites, whose trends the
	 * replay then measures (report->leaks is set, also without
	 * --leaks). */
	bool shows_growth;
	/* --growth adds a column of each site's growth to its table (from
	 * report->leaks). */
	bool growth_column;
	/* Writes --temporary, --histogram or --group-by thread (from
	 * report->blocks); NULL when the view has none. */
	int (*write_blocks)(FILE *out, const struct report *report);
	/* Bytes that a terminal would show as garbage: never written to
	 * one. */
	bool binary;
};

/* The view of --format NAME, or NULL. */
const struct view *view_named(const char *name);
/* The view whose suffix ends `path` (the longest such), or NULL. */
const struct view *view_for_file(const char *path);
/* Every view, in the order of the table. */
size_t view_count(void);
const struct view *view_at(size_t index);

int view_text(FILE *out, const struct report *report);
int view_json(FILE *out, const struct report *report);
int view_folded(FILE *out, const struct report *report);
int view_speedscope(FILE *out, const struct report *report);
int view_pprof(FILE *out, const struct report *report);
int view_html(FILE *out, const struct report *report);
int view_compare_text(FILE *out, const struct report *report);
int view_compare_json(FILE *out, const struct report *report);
int view_compare_pprof(FILE *out, const struct report *report);
int view_leaks_text(FILE *out, const struct report *report);
int view_leaks_json(FILE *out, const struct report *report);
int view_blocks_text(FILE *out, const struct report *report);
int view_blocks_json(FILE *out, const struct report *report);

#endif /* SPPROF_REPORT_VIEW_H */
