/* report-compare-json.c - what changed between two sets of profiles, for
 * programs (schema in memprof-report(1)): every site compared with a
 * significant change, or every site with --all, in the order of the text.
 */
#include "config.h"

#include "estimator.h"
#include "report-jansson.h"
#include "report-util.h"
#include "report-view.h"

#include <jansson.h>

static const char *const measure_keys[MEASURES] = {
	[MEASURE_LIVE_AT_PEAK] = "live_at_peak",
	[MEASURE_LIVE_AT_END] = "live_at_end",
	[MEASURE_ALLOCATED] = "allocated_bytes",
	[MEASURE_ALLOCATIONS] = "allocations",
	[MEASURE_LIVE_AT_TIME] = "live_at_moment",
};

static json_t *files_json(const struct report *r)
{
	json_t *array = json_array();

	for (size_t i = 0; array && i < r->profile_count; i++)
		append(array, text(r->profiles[i].file));
	return array;
}

/* The caveats of both sides, the base's first. */
static json_t *notes_json(const struct report *r)
{
	json_t *array = json_array();
	const struct report *sides[] = { r->base, r };

	for (size_t s = 0; array && s < 2; s++)
		for (size_t i = 0; i < sides[s]->note_count; i++)
			append(array, text(sides[s]->notes[i]));
	return array;
}

static json_t *change_json(const struct site_change *c, bool with_site)
{
	json_t *o = json_object();

	if (with_site)
		set(o, "site", text(c->text));
	set(o, "base", whole(c->base));
	set(o, "base_ci95", whole(estimator_interval95(c->base_variance)));
	set(o, "new", whole(c->now));
	set(o, "new_ci95", whole(estimator_interval95(c->now_variance)));
	set(o, "change", signed_whole(c->change));
	set(o, "change_ci95",
	    whole(estimator_interval95(c->change_variance)));
	set(o, "p_value", json_real(c->p_value));
	set(o, "verdict", json_string(c->verdict == VERDICT_NONE
					      ? "none"
					      : verdict_names[c->verdict]));
	return o;
}

int view_compare_json(FILE *out, const struct report *r)
{
	const struct comparison *c = r->comparison;
	json_t *root = json_object(), *sites = json_array();
	size_t rows = r->all ? c->count : c->significant;

	if (!root || !sites)
		out_of_memory();
	if (r->top && r->top < rows)
		rows = r->top;
	for (size_t i = 0; i < rows; i++)
		append(sites, change_json(&c->changes[i], true));
	set(root, "measure", json_string(measure_keys[report_measure(r)]));
	set(root, "group_by", json_string(grouping_names[r->grouping]));
	set(root, "cumulative", json_boolean(r->sites->cumulative));
	set(root, "base_files", files_json(r->base));
	set(root, "new_files", files_json(r));
	set(root, "level", json_real(1 - COMPARE_ALPHA));
	set(root, "correction", json_string("holm"));
	set(root, "sites_compared", json_integer((json_int_t)c->count));
	set(root, "significant", json_integer((json_int_t)c->significant));
	set(root, "grown", json_integer((json_int_t)c->grown));
	set(root, "shrunk", json_integer((json_int_t)c->shrunk));
	set(root, "within_noise",
	    json_integer((json_int_t)(c->count - c->significant)));
	set(root, "total", change_json(&c->total, false));
	set(root, "sites", sites);
	set(root, "notes", notes_json(r));
	return write_json(out, root);
}
