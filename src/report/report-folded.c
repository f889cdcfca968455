/* report-folded.c - folded stacks, the input of flamegraph.pl and inferno.
 *
 * One line per stack: its frames from the outermost to the site, joined
 * by ';', a space and the report's measure (estimated live bytes at the
 * chosen moment by default; --sort allocated or count for the others) as
 * a whole number.  Allocator frames at the leaf are left out, and so are
 * stacks that hold nothing by the measure; stacks that read the same (the
 * lines of one function) are one line.  A ';' in a name would start a new
 * frame, and a line break a new stack: they become ':' and ' '.
 */
#include "config.h"

#include "report-index.h"
#include "report-util.h"
#include "report-view.h"

#include <stdlib.h>

static void add_name(struct strbuf *sb, const char *name)
{
	char *copy = xstrdup(name);

	for (char *c = copy; *c; c++)
		if (*c == ';')
			*c = ':';
		else if (*c == '\n' || *c == '\r')
			*c = ' ';
	sb_add(sb, copy);
	free(copy);
}

/* "root;caller;site" */
static char *folded_stack(const struct report *r, const struct flame_frames *ff,
			  const struct report_stack *s, size_t *ids)
{
	struct strbuf sb = { 0 };
	size_t n = flame_stack(r, ff, s, ids);

	for (size_t k = 0; k < n; k++) {
		if (k)
			sb_add(&sb, ";");
		add_name(&sb, ff->names[ids[k]]);
	}
	return sb_take(&sb);
}

int view_folded(FILE *out, const struct report *r)
{
	const struct stack_table *t = r->stacks;
	double *values = xcalloc(t->stack_count, sizeof(*values));
	size_t *ids = NULL, capacity = 0;
	struct flame_frames ff;
	struct text_index lines;

	flame_frames_build(r, &ff);
	text_index_init(&lines);
	for (size_t i = 0; i < t->stack_count; i++) {
		double value = stack_measure(r, &t->stacks[i]);
		char *line;
		bool added;

		if (!(value > 0))
			continue;
		ids = xgrow(ids, &capacity, t->stacks[i].depth + 1,
			    sizeof(*ids));
		line = folded_stack(r, &ff, &t->stacks[i], ids);
		values[text_index_intern(&lines, line, &added)] += value;
		free(line);
	}
	for (size_t i = 0; i < lines.count; i++)
		fprintf(out, "%s %.0f\n", lines.texts[i], values[i]);
	text_index_free(&lines);
	flame_frames_free(&ff);
	free(values);
	free(ids);
	return ferror(out) ? -1 : 0;
}
