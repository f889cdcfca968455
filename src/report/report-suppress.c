/* report-suppress.c - leak suppressions (see report-suppress.h). */
#include "config.h"

#include "report-suppress.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimator.h"
#include "report-util.h"

#define LINE_MAX_BYTES 4096
#define KIND "leak:"

/* The line without its comment and the white space around it. */
static char *trimmed(char *line)
{
	char *end;

	line[strcspn(line, "#\r\n")] = '\0';
	line += strspn(line, " \t");
	end = line + strlen(line);
	while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return line;
}

static int add_rule(struct suppressions *s, const char *line, size_t number,
		    char *why, size_t size)
{
	const char *pattern = line + strlen(KIND);

	if (strncmp(line, KIND, strlen(KIND)) != 0)
		return snprintf(why, size, "%s:%zu: only leak: suppressions "
				"apply to a heap profile, not '%.60s'",
				s->file, number, line), -1;
	if (*pattern == '\0')
		return snprintf(why, size, "%s:%zu: leak: with no pattern",
				s->file, number), -1;
	s->rules = xrealloc(s->rules, s->count + 1, sizeof(*s->rules));
	s->rules[s->count++] = (struct suppression){ .pattern =
							     xstrdup(pattern) };
	return 0;
}

int suppressions_load(struct suppressions *s, const char *file, char *why,
		      size_t size)
{
	char line[LINE_MAX_BYTES];
	size_t number = 0;
	FILE *in = fopen(file, "r");
	int rc = 0;

	*s = (struct suppressions){ .file = file };
	if (!in)
		return snprintf(why, size, "%s: %s", file, strerror(errno)), -1;
	while (rc == 0 && fgets(line, sizeof(line), in)) {
		char *text;

		number++;
		if (!strchr(line, '\n') && !feof(in)) {
			snprintf(why, size, "%s:%zu: line longer than %d bytes",
				 file, number, LINE_MAX_BYTES - 2);
			rc = -1;
		} else if (*(text = trimmed(line))) {
			rc = add_rule(s, text, number, why, size);
		}
	}
	if (rc == 0 && ferror(in)) {
		snprintf(why, size, "%s: %s", file, strerror(errno));
		rc = -1;
	}
	fclose(in);
	if (rc < 0)
		suppressions_free(s);
	return rc;
}

void suppressions_free(struct suppressions *s)
{
	for (size_t i = 0; i < s->count; i++)
		free(s->rules[i].pattern);
	free(s->rules);
	s->rules = NULL;
	s->count = 0;
}

/* The pattern p (up to p_end) against text from its start; '*' any run. */
static bool matches_here(const char *p, const char *p_end, const char *text,
			 bool to_the_end)
{
	for (; p < p_end; p++, text++) {
		if (*p == '*') {
			for (const char *t = text;; t++) {
				if (matches_here(p + 1, p_end, t, to_the_end))
					return true;
				if (*t == '\0')
					return false;
			}
		}
		if (*text == '\0' || *text != *p)
			return false;
	}
	return !to_the_end || *text == '\0';
}

int suppression_matches(const char *pattern, const char *text)
{
	size_t n = strlen(pattern);
	bool at_start = n > 0 && pattern[0] == '^';
	bool at_end = n > (size_t)at_start && pattern[n - 1] == '$';
	const char *p = pattern + at_start, *p_end = pattern + n - at_end;

	if (at_start)
		return matches_here(p, p_end, text, at_end);
	for (const char *t = text;; t++) {
		if (matches_here(p, p_end, t, at_end))
			return 1;
		if (*t == '\0')
			return 0;
	}
}

/* The first rule that matches a frame of the stack, or NULL. */
static struct suppression *rule_for(struct suppressions *s,
				    const struct stack_table *table,
				    const struct report_stack *stack)
{
	for (size_t i = 0; i < s->count; i++)
		for (size_t k = 0; k < stack->depth; k++) {
			const struct report_frame *f =
				&table->frames[stack->frames[k]];
			const char *texts[] = {
				f->function, f->file,
				f->kind == FRAME_NATIVE
					? table->modules[f->module].path
					: NULL,
			};

			for (size_t t = 0; t < sizeof(texts) / sizeof(*texts);
			     t++)
				if (texts[t] && suppression_matches(
							s->rules[i].pattern,
							texts[t]))
					return &s->rules[i];
		}
	return NULL;
}

static void estimate_subtract(struct estimate *from, const struct estimate *e)
{
	from->samples -= e->samples;
	from->bytes -= e->bytes;
	from->bytes_variance -= e->bytes_variance;
	from->count -= e->count;
	from->count_variance -= e->count_variance;
}

static void heap_subtract(struct heap_estimates *from,
			  const struct heap_estimates *h)
{
	estimate_subtract(&from->allocated, &h->allocated);
	for (int m = 0; m < MOMENTS; m++)
		estimate_subtract(&from->live[m], &h->live[m]);
	for (int a = 0; a < AXES; a++) {
		from->growth[a].slope -= h->growth[a].slope;
		from->growth[a].slope_variance -= h->growth[a].slope_variance;
	}
}

void suppress_stacks(struct suppressions *s, struct stack_table *table)
{
	/* The counts are of this table's stacks (a comparison has two). */
	for (size_t i = 0; i < s->count; i++) {
		s->rules[i].stacks = 0;
		s->rules[i].live = (struct estimate){ 0 };
	}
	for (size_t i = 0; i < table->stack_count; i++) {
		struct report_stack *stack = &table->stacks[i];
		struct suppression *rule = rule_for(s, table, stack);

		if (!rule)
			continue;
		rule->stacks++;
		estimate_add(&rule->live, &stack->heap.live[AT_END]);
		heap_subtract(&table->heap, &stack->heap);
		stack->heap = (struct heap_estimates){ 0 };
	}
}

char *suppressions_note(const struct suppressions *s)
{
	struct strbuf sb = { 0 };
	size_t used = 0;

	sb_printf(&sb, "Suppressed by %s:", s->file);
	for (size_t i = 0; i < s->count; i++) {
		const struct suppression *r = &s->rules[i];
		char bytes[32], interval[32];

		if (r->stacks == 0)
			continue;
		format_size(bytes, r->live.bytes);
		format_size(interval, estimator_interval95(r->live.bytes_variance));
		sb_printf(&sb, "%s leak:%s (%zu stack%s, %s \xc2\xb1 %s live "
			  "at the end)", used++ ? "," : "", r->pattern,
			  r->stacks, r->stacks == 1 ? "" : "s", bytes, interval);
	}
	if (used == 0)
		sb_printf(&sb, " nothing (no stack matched its %zu pattern%s).",
			  s->count, s->count == 1 ? "" : "s");
	else if (used < s->count)
		sb_printf(&sb, "; %zu pattern%s matched nothing.",
			  s->count - used, s->count - used == 1 ? "" : "s");
	else
		sb_add(&sb, ".");
	return sb_take(&sb);
}
