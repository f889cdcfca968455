/* report-blocks-json.c - the temporary allocations, the sizes and the
 * threads, for programs (schema in memprof-report(1)): the rows in the
 * order of the text, each column an estimate with its 95 % intervals.
 */
#include "config.h"

#include "report-blocks.h"
#include "report-jansson.h"
#include "report-util.h"
#include "report-view.h"

#include <jansson.h>
#include <math.h>

static json_t *estimate_json(const struct estimate *e)
{
	json_t *o = json_object();

	estimate_members(o, "bytes", "count", e);
	set(o, "samples", json_integer((json_int_t)e->samples));
	return o;
}

static json_t *row_json(const struct block_table *t,
			const struct block_row *row)
{
	json_t *o = json_object();

	switch (t->view) {
	case BLOCKS_TEMPORARY:
		set(o, "site", text(row->label));
		break;
	case BLOCKS_SIZES:
		set(o, "from", whole(ldexp(1.0, (int)row->key)));
		set(o, "to", whole(ldexp(1.0, (int)row->key + 1)));
		break;
	default:
		set(o, "thread", json_integer((json_int_t)row->key));
		set(o, "name", row->name ? text(row->name) : json_null());
		set(o, "label", text(row->label));
		break;
	}
	for (size_t c = 0; c < t->column_count; c++)
		set(o, t->column_keys[c], estimate_json(&row->cells[c]));
	return o;
}

int view_blocks_json(FILE *out, const struct report *r)
{
	const struct block_table *t = r->blocks;
	json_t *root = json_object(), *rows = json_array(),
	       *files = json_array(), *notes = json_array(), *total;
	size_t shown = t->row_count;

	if (!root || !rows || !files || !notes)
		out_of_memory();
	if (t->view != BLOCKS_SIZES && r->top && r->top < shown)
		shown = r->top;
	for (size_t i = 0; i < r->profile_count; i++)
		append(files, text(r->profiles[i].file));
	for (size_t i = 0; i < shown; i++)
		append(rows, row_json(t, &t->rows[i]));
	for (size_t i = 0; i < r->note_count; i++)
		append(notes, text(r->notes[i]));
	set(root, "files", files);
	set(root, "view", json_string(block_view_keys[t->view]));
	if (t->view == BLOCKS_TEMPORARY) {
		set(root, "temporary_within_s",
		    json_real((double)t->options->temporary_us / 1e6));
		set(root, "group_by",
		    json_string(grouping_names[r->grouping]));
	}
	if (t->view == BLOCKS_SIZES) {
		set(root, "site", t->options->site ? text(t->options->site)
						   : json_null());
		set(root, "sites_matched",
		    json_integer((json_int_t)t->sites_matched));
	}
	set(root, "row_count", json_integer((json_int_t)t->row_count));
	set(root, "rows", rows);
	total = json_object();
	for (size_t c = 0; c < t->column_count; c++)
		set(total, t->column_keys[c], estimate_json(&t->total.cells[c]));
	set(root, "total", total);
	set(root, "notes", notes);
	return write_json(out, root);
}
