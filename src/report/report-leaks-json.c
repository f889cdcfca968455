/* report-leaks-json.c - which sites keep growing, for programs (schema in
 * memprof-report(1)): the growing sites, or every site with --all, in the
 * order of the text.
 */
#include "config.h"

#include "estimator.h"
#include "report-jansson.h"
#include "report-util.h"
#include "report-view.h"

#include <jansson.h>

static const char *const axis_keys[AXES] = {
	[PER_SECOND] = "second",
	[PER_MARKER] = "marker",
};

static json_t *growth_json(const struct site_growth *g)
{
	json_t *o = json_object();
	const struct estimate *end = &g->site->heap.live[AT_END];

	set(o, "site", text(g->site->text));
	set(o, "growth", signed_whole(g->trend.slope));
	set(o, "growth_ci95",
	    whole(estimator_interval95(g->trend.slope_variance)));
	set(o, "p_value", json_real(g->p_value));
	set(o, "verdict", json_string(growth_verdict_names[g->verdict]));
	set(o, "live_at_end", whole(end->bytes));
	set(o, "live_at_end_ci95",
	    whole(estimator_interval95(end->bytes_variance)));
	set(o, "samples", json_integer((json_int_t)end->samples));
	return o;
}

int view_leaks_json(FILE *out, const struct report *r)
{
	const struct leaks *l = r->leaks;
	json_t *root = json_object(), *sites = json_array(),
	       *files = json_array(), *notes = json_array();
	size_t rows = r->all ? l->count : l->growing;

	if (!root || !sites || !files || !notes)
		out_of_memory();
	if (r->top && r->top < rows)
		rows = r->top;
	for (size_t i = 0; i < r->profile_count; i++)
		append(files, text(r->profiles[i].file));
	for (size_t i = 0; i < rows; i++)
		append(sites, growth_json(&l->sites[i]));
	for (size_t i = 0; i < r->note_count; i++)
		append(notes, text(r->notes[i]));
	set(root, "files", files);
	set(root, "per", json_string(axis_keys[l->axis]));
	set(root, "group_by", json_string(grouping_names[r->grouping]));
	set(root, "cumulative", json_boolean(r->sites->cumulative));
	set(root, "level", json_real(1 - COMPARE_ALPHA));
	set(root, "correction", json_string("holm"));
	set(root, "sites_ranked", json_integer((json_int_t)l->count));
	set(root, "growing", json_integer((json_int_t)l->growing));
	set(root, "shrinking", json_integer((json_int_t)l->shrinking));
	set(root, "steady",
	    json_integer((json_int_t)(l->count - l->significant)));
	set(root, "sites", sites);
	set(root, "notes", notes);
	return write_json(out, root);
}
