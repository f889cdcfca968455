/* report-blocks-text.c - the temporary allocations, the sizes and the
 * threads, for people: a table of estimates with their 95 % intervals,
 * and under each site the lifetimes of its blocks as shares.
 */
#include "config.h"

#include "estimator.h"
#include "report-blocks.h"
#include "report-util.h"
#include "report-view.h"

#include <string.h>

/* "10 ms", "1 s", "250 us". */
static void format_duration(char out[32], uint64_t us)
{
	if (us && us % 1000000 == 0)
		snprintf(out, 32, "%g s", (double)us / 1e6);
	else if (us && us % 1000 == 0)
		snprintf(out, 32, "%g ms", (double)us / 1e3);
	else
		snprintf(out, 32, "%llu us", (unsigned long long)us);
}

static void title_line(FILE *out, const struct report *r,
		       const struct block_table *t, size_t rows)
{
	char within[32];

	switch (t->view) {
	case BLOCKS_TEMPORARY:
		format_duration(within, t->options->temporary_us);
		fprintf(out, "Temporary allocations: blocks freed within %s "
			     "of their birth; top %zu of %zu sites by %s, "
			     "grouped by %s\n",
			within, rows, t->row_count,
			t->options->by_bytes ? "bytes" : "count",
			grouping_names[r->grouping]);
		break;
	case BLOCKS_SIZES:
		fprintf(out, "Allocations by size");
		if (t->options->site)
			fprintf(out, " of the %zu site%s whose name holds "
				     "\"%s\"",
				t->sites_matched,
				t->sites_matched == 1 ? "" : "s",
				t->options->site);
		fputc('\n', out);
		break;
	default:
		fprintf(out, "Allocations by thread; top %zu of %zu threads\n",
			rows, t->row_count);
		break;
	}
	fputs("(estimates of all the blocks from the sampled ones, each with "
	      "its 95 % interval)\n\n",
	      out);
}

static void header(FILE *out, const struct block_table *t)
{
	/* "±" takes two bytes and one column. */
	for (size_t c = 0; c < t->numeric_columns; c++)
		fprintf(out, "%11s %9s %11s %12s  ", t->columns[c], "±95%",
			"BYTES", "±95%");
	fprintf(out, "%s\n", t->row_title);
}

static void estimate_cells(FILE *out, const struct estimate *e)
{
	char count[32], count_ci[32], bytes[32], bytes_ci[32];

	format_count(count, e->count);
	format_count(count_ci, estimator_interval95(e->count_variance));
	format_size(bytes, e->bytes);
	format_size(bytes_ci, estimator_interval95(e->bytes_variance));
	fprintf(out, "%11s %8s %11s %11s  ", count, count_ci, bytes,
		bytes_ci);
}

/* The columns past the numeric ones, as shares of their sum (the
 * lifetimes of a site's blocks). */
static void spread_line(FILE *out, const struct block_table *t,
			const struct block_row *row)
{
	double sum = 0;
	const char *separator = "";

	for (size_t c = t->numeric_columns; c < t->column_count; c++)
		sum += row->cells[c].count;
	if (t->numeric_columns == t->column_count || !(sum > 0))
		return;
	fprintf(out, "%13slifetimes, the share in each span:", "");
	for (size_t c = t->numeric_columns; c < t->column_count; c++) {
		if (row->cells[c].samples == 0)
			continue;
		fprintf(out, "%s %s %.0f %%", separator, t->columns[c],
			100 * row->cells[c].count / sum);
		separator = ",";
	}
	fputc('\n', out);
}

static void row_line(FILE *out, const struct block_table *t,
		     const struct block_row *row)
{
	for (size_t c = 0; c < t->numeric_columns; c++)
		estimate_cells(out, &row->cells[c]);
	fprintf(out, "%s\n", row->label);
	spread_line(out, t, row);
}

int view_blocks_text(FILE *out, const struct report *r)
{
	const struct block_table *t = r->blocks;
	size_t rows = t->row_count;

	/* The size classes are few and in order: all are shown. */
	if (t->view != BLOCKS_SIZES && r->top && r->top < rows)
		rows = r->top;
	title_line(out, r, t, rows);
	header(out, t);
	for (size_t i = 0; i < rows; i++)
		row_line(out, t, &t->rows[i]);
	row_line(out, t, &(struct block_row){
				 .label = (char *)"(all)",
				 .cells = t->total.cells });
	if (r->note_count)
		fputs("\nNotes\n", out);
	for (size_t i = 0; i < r->note_count; i++)
		fprintf(out, "  %s\n", r->notes[i]);
	return 0;
}
