/* report-html.c - one self-contained HTML page: the flame graph, the heap
 * over time and the top sites, readable offline.
 *
 * The page holds its style (report-html.css), its script
 * (report-html.js) and its data, a JSON object the script reads: the
 * frames of the flame graph, the stacks as lists of them from the root,
 * each stack's estimate, 95 % interval and samples for three measures
 * (live at the peak, live at the end, allocated), each profile's live
 * heap over time with its markers, garbage collections and snapshots of
 * the live stacks, the rows of the top sites, and the sites that grow
 * significantly (up to CHART_SITES, as --leaks ranks them) with their
 * live bytes at the snapshots, for the chart.  The style and script
 * are compiled in (report-html-assets.c is made from them at build time).
 * A '<' in the data is written as \u003c, so no text of the profile can
 * end the script element.
 *
 * With --base the data also holds the base stacks, in the page's frames
 * (matched by name), and their estimates: the flame graph keeps the
 * widths of the newer profiles and colours each box by its change.
 */
#include "config.h"

#include "estimator.h"
#include "report-index.h"
#include "report-jansson.h"
#include "report-util.h"
#include "report-view.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

extern const char report_html_css[];
extern const char report_html_js[];

/* The measures of the page's flame graph, in the order of its menu; the
 * last with --at TIME or MARKER only. */
static const enum measure page_measures[] = {
	MEASURE_LIVE_AT_PEAK, MEASURE_LIVE_AT_END, MEASURE_ALLOCATED,
	MEASURE_LIVE_AT_TIME,
};

static int page_measure_count(const struct report *r)
{
	return r->at == AT_TIME ? 4 : 3;
}

static const struct estimate *measured(const struct report_stack *s,
				       enum measure m)
{
	switch (m) {
	case MEASURE_ALLOCATED:
		return &s->heap.allocated;
	case MEASURE_LIVE_AT_END:
		return &s->heap.live[AT_END];
	case MEASURE_LIVE_AT_TIME:
		return &s->heap.live[AT_TIME];
	default:
		return &s->heap.live[AT_PEAK];
	}
}

static json_t *frames_json(const struct flame_frames *ff, json_t **kinds)
{
	json_t *names = json_array();

	*kinds = json_array();
	for (size_t i = 0; i < ff->count; i++) {
		append(names, text(ff->names[i]));
		append(*kinds, json_integer(ff->kinds[i]));
	}
	return names;
}

/* The stacks as lists of flame frames, each mapped through `map` (the
 * page's frame of each of ff's) unless NULL. */
static json_t *stacks_json(const struct report *r, const struct flame_frames *ff,
			   const size_t *map)
{
	const struct stack_table *t = r->stacks;
	json_t *stacks = json_array();
	size_t *ids = NULL, capacity = 0;

	for (size_t i = 0; i < t->stack_count; i++) {
		json_t *stack = json_array();
		size_t n;

		ids = xgrow(ids, &capacity, t->stacks[i].depth + 1,
			    sizeof(*ids));
		n = flame_stack(r, ff, &t->stacks[i], ids);
		for (size_t k = 0; k < n; k++)
			append(stack, json_integer((json_int_t)(
					      map ? map[ids[k]] : ids[k])));
		append(stacks, stack);
	}
	free(ids);
	return stacks;
}

/* data.values, data.intervals and data.samples: by measure, by stack. */
static void measures_json(json_t *data, const struct report *r)
{
	const struct stack_table *t = r->stacks;
	json_t *values = json_array(), *intervals = json_array(),
	       *samples = json_array();

	for (int m = 0; m < page_measure_count(r); m++) {
		json_t *v = json_array(), *ci = json_array(), *n = json_array();

		for (size_t i = 0; i < t->stack_count; i++) {
			const struct estimate *e =
				measured(&t->stacks[i], page_measures[m]);

			append(v, whole(e->bytes));
			append(ci, whole(estimator_interval95(e->bytes_variance)));
			append(n, json_integer((json_int_t)e->samples));
		}
		append(values, v);
		append(intervals, ci);
		append(samples, n);
	}
	set(data, "values", values);
	set(data, "intervals", intervals);
	set(data, "samples", samples);
}

/* [time, bytes, interval], appended to `array`. */
static void point_json(json_t *array, const struct report *r,
		       const struct heap_point *p)
{
	append(array, json_real(report_seconds(r, p->time_us)));
	append(array, whole(p->bytes));
	append(array, whole(estimator_interval95(p->bytes_variance)));
}

static json_t *mark_json(const struct report *r, const struct heap_event *m)
{
	json_t *mark = json_array();
	char *label = m->kind == HEAP_EVENT_MARKER
			      ? xstrdup(m->name)
			      : xasprintf("GC: %" PRIu64 " objects",
					  m->gc_objects);

	append(mark, json_real(report_seconds(r, m->live.time_us)));
	append(mark, json_string(m->kind == HEAP_EVENT_MARKER ? "marker"
							      : "gc"));
	append(mark, text(label));
	append(mark, whole(m->live.bytes));
	append(mark, whole(estimator_interval95(m->live.bytes_variance)));
	free(label);
	return mark;
}

/* [[stack...], [bytes...], [interval...], [samples...]] of `a`,
 * appended to `array`. */
static void amounts_json(json_t *array, const struct stack_amounts *a)
{
	json_t *stacks = json_array(), *bytes = json_array(),
	       *intervals = json_array(), *samples = json_array();

	for (size_t i = 0; i < a->count; i++) {
		append(stacks, json_integer((json_int_t)a->stacks[i]));
		append(bytes, whole(a->amounts[i].bytes));
		append(intervals, whole(estimator_interval95(
					  a->amounts[i].bytes_variance)));
		append(samples, json_integer((json_int_t)a->amounts[i].samples));
	}
	append(array, stacks);
	append(array, bytes);
	append(array, intervals);
	append(array, samples);
}

/* [time, bytes, interval, [stack...], [bytes...], [interval...],
 *  [samples...], then the same four of what the stacks allocated since
 *  the snapshot before] */
static json_t *snapshot_json(const struct report *r,
			     const struct heap_snapshot *snap)
{
	json_t *json = json_array(), *stacks = json_array(),
	       *bytes = json_array(), *intervals = json_array(),
	       *samples = json_array();

	point_json(json, r, &snap->live);
	for (size_t i = 0; i < snap->count; i++) {
		append(stacks, json_integer((json_int_t)snap->stacks[i]));
		append(bytes, whole(snap->bytes[i]));
		append(intervals, whole(estimator_interval95(snap->bytes_variance[i])));
		append(samples, json_integer((json_int_t)snap->samples[i]));
	}
	append(json, stacks);
	append(json, bytes);
	append(json, intervals);
	append(json, samples);
	amounts_json(json, &snap->allocated);
	return json;
}

/* The part of the live estimate in anonymous mappings over time: time,
 * bytes, time, bytes... */
static json_t *mapped_json(const struct report *r,
			   const struct profile_summary *p)
{
	json_t *mapped = json_array();

	for (size_t i = 0; i < p->timeline_count; i++) {
		append(mapped, json_real(report_seconds(
				       r, p->timeline[i].time_us)));
		append(mapped, whole(p->timeline[i].mapped_bytes));
	}
	return mapped;
}

static json_t *profile_json(const struct report *r,
			    const struct profile_summary *p)
{
	json_t *json = json_object(), *timeline = json_array(),
	       *marks = json_array(), *snapshots = json_array(),
	       *peak = json_array(), *resident = json_array(),
	       *after = json_array();
	struct heap_point at_peak = {
		.time_us = p->start_time_us +
			   (uint64_t)(p->peak_time_s * 1e6 + 0.5),
		.bytes = p->peak.bytes,
		.bytes_variance = p->peak.bytes_variance,
	};

	for (size_t i = 0; i < p->timeline_count; i++)
		point_json(timeline, r, &p->timeline[i]);
	for (size_t i = 0; i < p->memory.count; i++) {
		append(resident, json_real(report_seconds(
					 r, p->memory.points[i].time_us)));
		append(resident, json_integer(
					 (json_int_t)p->memory.points[i].resident));
	}
	for (size_t i = 0; i < p->mark_count; i++)
		append(marks, mark_json(r, &p->marks[i]));
	for (size_t i = 0; i < p->snapshot_count; i++)
		append(snapshots, snapshot_json(r, &p->snapshots[i]));
	point_json(peak, r, &at_peak);
	append(peak, json_boolean(p->peak_level_share < SINGLE_PEAK_MAX_SHARE));
	append(peak, json_real(p->peak_level_share));
	set(json, "file", text(p->file));
	set(json, "end", json_real(report_seconds(r, p->start_time_us) +
				   p->duration_s));
	set(json, "timeline", timeline);
	set(json, "resident", resident); /* time, bytes, time, bytes... */
	if (p->mapped_peak > 0)
		set(json, "mapped", mapped_json(r, p));
	/* Before it, the timeline has one point per checkpoint. */
	if (p->checkpoints)
		set(json, "kept_from",
		    json_real(report_seconds(r, p->start_time_us) +
			      p->kept_from_s));
	set(json, "peak", peak);
	set(json, "marks", marks);
	set(json, "snapshots", snapshots);
	/* What the stacks allocated after the last snapshot. */
	amounts_json(after, &p->allocated_after_snapshots);
	set(json, "allocated_after", after);
	return json;
}

static json_t *sites_json(const struct report *r)
{
	static const char *const live_titles[MOMENTS] = { "AT PEAK", "AT END",
							  "AT MOMENT" };
	const char *columns[] = { live_titles[r->at], "±95%", "SHARE",
				  "SAMPLES", "ALLOCS", "ALLOCATED", "SITE" };
	json_t *json = json_object(), *titles = json_array(),
	       *rows = json_array();
	double total = r->sites->heap.live[r->at].bytes;

	for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
		append(titles, json_string(columns[i]));
	for (size_t i = 0; i < report_rows(r); i++) {
		const struct site *s = &r->sites->sites[i];
		const struct estimate *live = &s->heap.live[r->at];
		json_t *row = json_array();

		append(row, text(s->text));
		append(row, whole(live->bytes));
		append(row, whole(estimator_interval95(live->bytes_variance)));
		append(row, json_real(total > 0 ? live->bytes / total : 0));
		append(row, json_integer((json_int_t)site_measure(
				    s, r->sort, r->at)->samples));
		append(row, whole(s->heap.allocated.count));
		append(row, whole(s->heap.allocated.bytes));
		append(row, json_boolean(site_rough(s, r->sort, r->at)));
		append(rows, row);
	}
	set(json, "columns", titles);
	set(json, "rows", rows);
	return json;
}

/* The growing sites the chart draws, the fastest first. */
#define CHART_SITES 5

static const char *const axis_units[AXES] = {
	[PER_SECOND] = "per second",
	[PER_MARKER] = "per marker",
};

/* The live bytes of the stacks flagged in `mine` (by stack) at each
 * snapshot of `p`, as [time, bytes, ...]. */
static json_t *site_series_json(const struct report *r,
				const struct profile_summary *p,
				const bool *mine)
{
	json_t *series = json_array();

	for (size_t i = 0; i < p->snapshot_count; i++) {
		const struct heap_snapshot *snap = &p->snapshots[i];
		double bytes = 0;

		for (size_t k = 0; k < snap->count; k++)
			if (mine[snap->stacks[k]])
				bytes += snap->bytes[k];
		append(series, json_real(report_seconds(r, snap->live.time_us)));
		append(series, whole(bytes));
	}
	return series;
}

/* {"label": "site: +1.0 KiB ± 80 B per second", "series": [by profile]};
 * `mine` is room for a flag by stack. */
static json_t *growing_site_json(const struct report *r,
				 const struct site_growth *g, bool *mine)
{
	json_t *json = json_object(), *series = json_array();
	char rate[SIGNED_SIZE], rate_ci[32];
	char *label;

	memset(mine, 0, r->stacks->stack_count * sizeof(*mine));
	for (size_t i = 0; i < g->site->stack_count; i++)
		mine[g->site->stacks[i]] = true;
	format_signed(rate, g->trend.slope, false, true);
	format_size(rate_ci, estimator_interval95(g->trend.slope_variance));
	label = xasprintf("%s: %s ± %s %s", g->site->text, rate, rate_ci,
			  axis_units[r->leaks->axis]);
	for (size_t i = 0; i < r->profile_count; i++)
		append(series, site_series_json(r, &r->profiles[i], mine));
	set(json, "label", text(label));
	set(json, "series", series);
	free(label);
	return json;
}

/* data.growing: the sites that grow significantly (as --leaks ranks
 * them), up to CHART_SITES, with their live bytes at the snapshots. */
static json_t *growing_json(const struct report *r)
{
	json_t *sites = json_array();
	size_t n = r->leaks->growing < CHART_SITES ? r->leaks->growing
						   : CHART_SITES;
	bool *mine = xcalloc(r->stacks->stack_count + 1, sizeof(*mine));

	for (size_t i = 0; i < n; i++)
		append(sites, growing_site_json(r, &r->leaks->sites[i], mine));
	free(mine);
	return sites;
}

/* "3 profiles · peak heap 11.0 MiB ± 0 B · live at end ... · ..." */
static char *summary_text(const struct report *r)
{
	const struct heap_estimates *heap = &r->stacks->heap;
	char peak[32], peak_ci[32], end[32], end_ci[32], allocated[32];
	char *profiles = r->profile_count == 1
				 ? xstrdup(r->profiles[0].file)
				 : xasprintf("%zu profiles", r->profile_count);
	char *summary;

	format_size(peak, heap->live[AT_PEAK].bytes);
	format_size(peak_ci, estimator_interval95(heap->live[AT_PEAK].bytes_variance));
	format_size(end, heap->live[AT_END].bytes);
	format_size(end_ci, estimator_interval95(heap->live[AT_END].bytes_variance));
	format_size(allocated, heap->allocated.bytes);
	summary = xasprintf("%s · %" PRIu64 " samples · peak heap %s ± %s · "
			    "live at the end %s ± %s · allocated %s "
			    "(estimates with their 95 %% intervals)",
			    profiles, heap->allocated.samples, peak, peak_ci,
			    end, end_ci, allocated);
	free(profiles);
	return summary;
}

/* data.base: the stacks of the base report in the page's frames, whose
 * names the page has or is given (data.frames, data.kinds), and their
 * estimates by measure. */
static json_t *base_json(json_t *data, const struct report *base,
			 const struct flame_frames *page)
{
	json_t *o = json_object(), *names = json_object_get(data, "frames"),
	       *kinds = json_object_get(data, "kinds");
	struct flame_frames ff;
	struct text_index index;
	size_t *map;
	bool added;

	text_index_init(&index);
	for (size_t i = 0; i < page->count; i++)
		text_index_intern(&index, page->names[i], &added);
	flame_frames_build(base, &ff);
	map = xcalloc(ff.count + 1, sizeof(*map));
	for (size_t i = 0; i < ff.count; i++) {
		map[i] = text_index_intern(&index, ff.names[i], &added);
		if (added) {
			append(names, text(ff.names[i]));
			append(kinds, json_integer(ff.kinds[i]));
		}
	}
	set(o, "stacks", stacks_json(base, &ff, map));
	measures_json(o, base);
	free(map);
	flame_frames_free(&ff);
	text_index_free(&index);
	return o;
}

static json_t *page_data(const struct report *r)
{
	json_t *data = json_object(), *profiles = json_array(), *kinds;
	enum measure m = report_measure(r);
	struct flame_frames ff;
	char *summary = summary_text(r);
	char *resident_note = memory_explained_note(
		&r->resident, r->resident_processes,
		r->stacks->heap.live[AT_PEAK].bytes, r->mapped_peak,
		&r->unseen_malloc);

	flame_frames_build(r, &ff);
	set(data, "title", text(r->profile_count == 1 ? r->profiles[0].file
						      : "memprof-report"));
	set(data, "summary", text(summary));
	if (resident_note)
		set(data, "resident_note", text(resident_note));
	set(data, "measure", json_integer(m == MEASURE_ALLOCATIONS ? MEASURE_ALLOCATED
					  : m == MEASURE_LIVE_AT_TIME ? 3
								      : m));
	if (r->at == AT_TIME) {
		char *title = xasprintf("Live bytes at %s", r->moment);

		set(data, "moment_title", text(title));
		free(title);
	}
	set(data, "frames", frames_json(&ff, &kinds));
	set(data, "kinds", kinds);
	set(data, "stacks", stacks_json(r, &ff, NULL));
	measures_json(data, r);
	for (size_t i = 0; i < r->profile_count; i++)
		append(profiles, profile_json(r, &r->profiles[i]));
	set(data, "profiles", profiles);
	set(data, "sites", sites_json(r));
	if (r->base)
		set(data, "base", base_json(data, r->base, &ff));
	if (r->leaks)
		set(data, "growing", growing_json(r));
	flame_frames_free(&ff);
	free(summary);
	free(resident_note);
	return data;
}

/* The JSON with every '<' escaped. */
static void put_data(FILE *out, const char *json)
{
	for (const char *c = json; *c; c++) {
		if (*c == '<')
			fputs("\\u003c", out);
		else
			fputc(*c, out);
	}
}

static const char page_top[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<meta name=\"viewport\" content=\"width=device-width, "
	"initial-scale=1\">\n"
	"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
	"'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
	"<meta name=\"generator\" content=\"memprof-report " PACKAGE_VERSION
	"\">\n<title>memprof-report</title>\n<style>\n";

static const char page_body[] =
	"</style>\n</head>\n<body>\n"
	"<h1 id=\"title\">memprof-report</h1>\n"
	"<p class=\"summary\" id=\"summary\"></p>\n"
	"<noscript><p>This page draws with JavaScript. memprof-report "
	"without --format prints the top sites as text.</p></noscript>\n"
	"<h2>Live heap over time</h2>\n"
	"<p class=\"legend\">The estimated live heap and its 95 % band; the "
	"dot and its bar are the estimate of the peak and its 95 % interval, "
	"cross-fitted so that the noise does not inflate it (memprof-report(1)"
	"), and so often below the highest point of the band; a shaded level "
	"when no single moment stands out. Dashed lines are markers, "
	"triangles garbage collections. Click a moment to see its flame "
	"graph, or drag across a stretch to see what was allocated in it."
	"</p>\n"
	"<p class=\"legend\" id=\"resident-legend\" hidden>The grey line is "
	"the resident memory of the process, all it holds in RAM as the kernel "
	"counts it: <span id=\"resident-note\"></span></p>\n"
	"<p class=\"legend\" id=\"mapped-legend\" hidden>The dotted line is "
	"the part of the estimate held in anonymous mappings, the rest is the "
	"malloc heap (memprof-report --kind heap or --kind mapped draws one "
	"of them).</p>\n"
	"<svg id=\"chart\" role=\"img\" aria-label=\"Estimated live heap over "
	"time\"></svg>\n"
	"<div class=\"controls\" id=\"growth\" hidden><label><input "
	"type=\"checkbox\" id=\"show-growing\"> show growing sites</label>"
	"<ul class=\"legend\" id=\"growth-legend\"></ul></div>\n"
	"<h2 id=\"flame-title\">Flame graph</h2>\n"
	"<div class=\"controls\">\n"
	"<label>Show <select id=\"measure\">"
	"<option value=\"0\">Live bytes at the peak</option>"
	"<option value=\"1\">Live bytes at the end</option>"
	"<option value=\"2\">Bytes allocated</option>"
	"<option value=\"moment\" disabled>A moment of the chart</option>"
	"<option value=\"stretch\" disabled>A stretch of the chart</option>"
	"</select></label>\n"
	"<input type=\"search\" id=\"search\" placeholder=\"Search functions\" "
	"aria-label=\"Search functions\">\n"
	"<span class=\"status\" id=\"search-status\"></span>\n"
	"<button id=\"reset\" type=\"button\">Reset zoom</button>\n</div>\n"
	"<p class=\"legend\">Callers above, callees below; width is the "
	"estimate. Click a box to zoom and to see its function's callers and "
	"callees beside; the trees hold the same stacks, and the search "
	"opens them at the functions it matches."
	"<span class=\"swatch\" style=\"background:hsl(36,85%,65%)\"></span>"
	"native"
	"<span class=\"swatch\" style=\"background:hsl(210,65%,69%)\"></span>"
	"Python"
	"<span class=\"swatch\" style=\"background:hsl(210,8%,76%)\"></span>"
	"no name"
	"<span class=\"swatch\" style=\"background:#a626a4\"></span>"
	"search match</p>\n"
	"<div class=\"panes\">\n"
	"<div id=\"flame-box\"><canvas id=\"flame\"></canvas></div>\n"
	"<section id=\"trees-box\" aria-label=\"Call trees\">\n"
	"<div class=\"controls\"><label>Tree <select id=\"tree-kind\">"
	"<option value=\"top-down\">top-down, from the callers</option>"
	"<option value=\"bottom-up\">bottom-up, from the sites</option>"
	"</select></label>"
	"<span class=\"status\" id=\"tree-status\"></span></div>\n"
	"<ul class=\"tree\" id=\"tree\" role=\"tree\"></ul>\n"
	"<div id=\"relatives\" hidden><h3 id=\"relatives-title\"></h3>\n"
	"<table id=\"callers\"><thead><tr><th>BYTES</th><th>±95%</th>"
	"<th>SHARE</th><th class=\"site\">CALLED BY</th></tr></thead>"
	"<tbody></tbody></table>\n"
	"<table id=\"callees\"><thead><tr><th>BYTES</th><th>±95%</th>"
	"<th>SHARE</th><th class=\"site\">CALLS</th></tr></thead>"
	"<tbody></tbody></table></div>\n"
	"</section>\n</div>\n"
	"<details><summary>The largest boxes as text</summary>"
	"<ol id=\"largest\"></ol></details>\n"
	"<h2>Top sites</h2>\n"
	"<table id=\"sites\"><thead><tr></tr></thead><tbody></tbody></table>\n"
	"<div id=\"tip\" role=\"tooltip\"></div>\n"
	"<script type=\"application/json\" id=\"data\">";

/* The page of a report, or of a comparison when it has a base. */
int view_html(FILE *out, const struct report *r)
{
	json_t *data = page_data(r);
	char *json = json_dumps(data, JSON_COMPACT | JSON_ESCAPE_SLASH |
					      JSON_REAL_PRECISION(6));

	json_decref(data);
	if (!json)
		out_of_memory();
	fputs(page_top, out);
	fputs(report_html_css, out);
	fputs(page_body, out);
	put_data(out, json);
	fputs("</script>\n<script>\n", out);
	fputs(report_html_js, out);
	fputs("</script>\n</body>\n</html>\n", out);
	free(json);
	return ferror(out) ? -1 : 0;
}
