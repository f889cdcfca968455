/* report-compare-text.c - what changed between two sets of profiles, for
 * people: the significant changes, largest first, and how many sites
 * changed within the noise.
 */
#include "config.h"

#include "estimator.h"
#include "report-util.h"
#include "report-view.h"

#include <stdlib.h>

static const char *const measure_phrases[MEASURES] = {
	[MEASURE_LIVE_AT_PEAK] = "live bytes at the peak",
	[MEASURE_LIVE_AT_END] = "live bytes at the end",
	[MEASURE_ALLOCATED] = "bytes allocated",
	[MEASURE_ALLOCATIONS] = "number of allocations",
	[MEASURE_LIVE_AT_TIME] = "live bytes at the chosen moment",
};

/* A size or a count by the measure, with a sign when asked. */
static void amount(char out[SIGNED_SIZE], const struct report *r,
		   double value, bool plus)
{
	format_signed(out, value, r->sort == SORT_BY_COUNT, plus);
}

static void side_line(FILE *out, const char *label, const struct report *r,
		      double value, double variance)
{
	char v[SIGNED_SIZE], ci[SIGNED_SIZE];

	amount(v, r, value, false);
	amount(ci, r, estimator_interval95(variance), false);
	fprintf(out, "  %-6s %s ± %s in %zu profile%s:", label, v, ci,
		r->profile_count, r->profile_count == 1 ? "" : "s");
	for (size_t i = 0; i < r->profile_count; i++)
		fprintf(out, "%s %s", i ? "," : "", r->profiles[i].file);
	fputc('\n', out);
}

static void change_row(FILE *out, const struct report *r,
		       const struct site_change *c)
{
	char change[SIGNED_SIZE], ci[SIGNED_SIZE];
	char base[SIGNED_SIZE], now[SIGNED_SIZE];

	amount(change, r, c->change, true);
	amount(ci, r, estimator_interval95(c->change_variance), false);
	amount(base, r, c->base, false);
	amount(now, r, c->now, false);
	fprintf(out, "%11s %10s %10s %10s  %-7s %s\n", change, ci, base, now,
		c->verdict == VERDICT_NONE ? "-" : verdict_names[c->verdict],
		c->text);
}

/* The caveats of one side, under `title`. */
static void notes(FILE *out, const char *title, const struct report *r)
{
	if (r->note_count)
		fprintf(out, "\n%s\n", title);
	for (size_t i = 0; i < r->note_count; i++)
		fprintf(out, "  %s\n", r->notes[i]);
}

int view_compare_text(FILE *out, const struct report *r)
{
	const struct comparison *c = r->comparison;
	size_t rows = r->all ? c->count : c->significant;
	char change[SIGNED_SIZE], ci[SIGNED_SIZE];

	if (r->top && r->top < rows)
		rows = r->top;
	fprintf(out, "Change in %s, grouped by %s%s\n",
		measure_phrases[report_measure(r)], grouping_names[r->grouping],
		r->sites->cumulative ? ", cumulative" : "");
	side_line(out, "Base", r->base, c->total.base, c->total.base_variance);
	side_line(out, "New", r, c->total.now, c->total.now_variance);
	amount(change, r, c->total.change, true);
	amount(ci, r, estimator_interval95(c->total.change_variance), false);
	fprintf(out, "  %-6s %s ± %s (%s)\n\n", "Change", change, ci,
		verdict_names[c->total.verdict]);
	fprintf(out, "%zu of %zu sites changed significantly (%zu grown, %zu "
		     "shrunk); %zu changed within the noise.\n",
		c->significant, c->count, c->grown, c->shrunk,
		c->count - c->significant);
	fprintf(out, "(95 %% level for all %zu sites together: z test of each "
		     "difference, Holm's correction.)\n", c->count);
	/* "±" takes two bytes and one column. */
	if (rows)
		fprintf(out, "\n%11s %11s %10s %10s  %-7s %s\n", "CHANGE",
			"±95%", "BASE", "NEW", "VERDICT", "SITE");
	for (size_t i = 0; i < rows; i++)
		change_row(out, r, &c->changes[i]);
	notes(out, "Notes on the base", r->base);
	notes(out, "Notes on the newer profiles", r);
	return 0;
}
