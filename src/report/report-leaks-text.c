/* report-leaks-text.c - which sites keep growing, for people: the sites
 * that grow significantly, fastest first, next to what they still held at
 * the end, and how many hold a steady level.
 */
#include "config.h"

#include "estimator.h"
#include "report-util.h"
#include "report-view.h"

static const char *const axis_units[AXES] = {
	[PER_SECOND] = "second",
	[PER_MARKER] = "marker",
};

static void span_line(FILE *out, const struct profile_summary *p)
{
	size_t markers = 0;

	for (size_t i = 0; i < p->mark_count; i++)
		markers += p->marks[i].kind == HEAP_EVENT_MARKER;
	fprintf(out, "  %s: %.1f s, %zu marker%s%s\n", p->file, p->duration_s,
		markers, markers == 1 ? "" : "s",
		p->complete == 1 ? "" : " (the profile did not end cleanly)");
}

static void growth_row(FILE *out, const struct site_growth *g)
{
	const struct estimate *end = &g->site->heap.live[AT_END];
	char rate[SIGNED_SIZE], rate_ci[32], live[32], live_ci[32];

	format_signed(rate, g->trend.slope, false, true);
	format_size(rate_ci, estimator_interval95(g->trend.slope_variance));
	format_size(live, end->bytes);
	format_size(live_ci, estimator_interval95(end->bytes_variance));
	fprintf(out, "%13s %11s %11s %11s  %-9s %s\n", rate, rate_ci, live,
		live_ci, growth_verdict_names[g->verdict], g->site->text);
}

int view_leaks_text(FILE *out, const struct report *r)
{
	const struct leaks *l = r->leaks;
	size_t rows = r->all ? l->count : l->growing;
	char title[32];

	if (r->top && r->top < rows)
		rows = r->top;
	fprintf(out, "Growth of live bytes per %s, grouped by %s%s\n",
		axis_units[l->axis], grouping_names[r->grouping],
		r->sites->cumulative ? ", cumulative" : "");
	for (size_t i = 0; i < r->profile_count; i++)
		span_line(out, &r->profiles[i]);
	fprintf(out, "\n%zu of %zu sites grow significantly, %zu shrink; %zu "
		     "hold a steady level within the noise.\n",
		l->growing, l->count, l->shrinking,
		l->count - l->significant);
	fprintf(out, "(95 %% level for all %zu sites together: z test of the "
		     "slope of each site's live bytes, Holm's correction.)\n",
		l->count);
	snprintf(title, sizeof(title), "PER %s",
		 l->axis == PER_SECOND ? "SECOND" : "MARKER");
	/* "±" takes two bytes and one column. */
	if (rows)
		fprintf(out, "\n%13s %12s %11s %12s  %-9s %s\n", title, "±95%",
			"LIVE AT END", "±95%", "VERDICT", "SITE");
	for (size_t i = 0; i < rows; i++)
		growth_row(out, &l->sites[i]);
	if (r->note_count)
		fputs("\nNotes\n", out);
	for (size_t i = 0; i < r->note_count; i++)
		fprintf(out, "  %s\n", r->notes[i]);
	return 0;
}
