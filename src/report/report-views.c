/* report-views.c - the table of views, and what they share (see
 * report-view.h).  A new format is one file and one row here.
 */
#include "config.h"

#include "report-index.h"
#include "report-util.h"
#include "report-view.h"

#include <stdlib.h>
#include <string.h>

static const struct view views[] = {
	{ "text", NULL, view_text, 0, view_compare_text,
	  view_leaks_text, false, true, view_blocks_text, false },
	{ "json", ".json", view_json, 0, view_compare_json,
	  view_leaks_json, false, false, view_blocks_json, false },
	{ "folded", ".folded", view_folded, 0, NULL, NULL, false, false,
	  NULL, false },
	{ "speedscope", ".speedscope.json", view_speedscope, 0, NULL, NULL,
	  false, false, NULL, false },
	{ "pprof", ".pb.gz", view_pprof, 0, view_compare_pprof, NULL,
	  false, false, NULL, true },
	/* The page shows every stack at up to 24 moments of the chart, and
	 * the growing sites over time. */
	{ "html", ".html", view_html, 24, view_html, NULL, true, false,
	  NULL, false },
};

#define VIEW_COUNT (sizeof(views) / sizeof(views[0]))

const struct view *view_named(const char *name)
{
	for (size_t i = 0; i < VIEW_COUNT; i++)
		if (strcmp(views[i].name, name) == 0)
			return &views[i];
	return NULL;
}

static bool ends_with(const char *text, const char *suffix)
{
	size_t n = strlen(text), k = strlen(suffix);

	return n > k && strcmp(text + n - k, suffix) == 0;
}

const struct view *view_for_file(const char *path)
{
	const struct view *best = NULL;

	for (size_t i = 0; i < VIEW_COUNT; i++)
		if (views[i].suffix && ends_with(path, views[i].suffix) &&
		    (!best || strlen(views[i].suffix) > strlen(best->suffix)))
			best = &views[i];
	return best;
}

size_t view_count(void)
{
	return VIEW_COUNT;
}

const struct view *view_at(size_t index)
{
	return &views[index];
}

/* A new flame frame named `name` (taken over). */
static size_t add_flame_frame(struct flame_frames *ff, size_t *capacity,
			      char *name, const char *file,
			      enum frame_kind kind)
{
	size_t i = ff->count++;

	if (ff->count > *capacity) {
		*capacity = ff->count * 2;
		ff->names = xrealloc(ff->names, *capacity, sizeof(*ff->names));
		ff->files = xrealloc(ff->files, *capacity, sizeof(*ff->files));
		ff->kinds = xrealloc(ff->kinds, *capacity, sizeof(*ff->kinds));
	}
	ff->names[i] = name;
	ff->files[i] = file;
	ff->kinds[i] = kind;
	return i;
}

void flame_frames_build(const struct report *report, struct flame_frames *ff)
{
	const struct stack_table *t = report->stacks;
	struct text_index seen;
	size_t capacity = 0;
	struct report_stack none = { 0 }, damaged = { .damaged = true };

	memset(ff, 0, sizeof(*ff));
	text_index_init(&seen);
	ff->by_frame = xcalloc(t->frame_count, sizeof(*ff->by_frame));
	for (size_t i = 0; i < t->frame_count; i++) {
		const struct report_frame *f = &t->frames[i];
		char *name = frame_display_name(f, t->modules);
		bool added;
		size_t k = text_index_intern(&seen, name, &added);

		if (added)
			add_flame_frame(ff, &capacity, name, f->file,
					f->function ? f->kind : FRAME_ADDRESS);
		else
			free(name);
		ff->by_frame[i] = k;
	}
	ff->no_stack = add_flame_frame(ff, &capacity,
				       xstrdup(stack_placeholder(&none)), NULL,
				       FRAME_ADDRESS);
	ff->damaged_stack = add_flame_frame(
		ff, &capacity, xstrdup(stack_placeholder(&damaged)), NULL,
		FRAME_ADDRESS);
	text_index_free(&seen);
}

void flame_frames_free(struct flame_frames *ff)
{
	for (size_t i = 0; i < ff->count; i++)
		free(ff->names[i]);
	free(ff->names);
	free(ff->files);
	free(ff->kinds);
	free(ff->by_frame);
	memset(ff, 0, sizeof(*ff));
}

size_t flame_stack(const struct report *report, const struct flame_frames *ff,
		   const struct report_stack *stack, size_t *ids)
{
	const struct stack_table *t = report->stacks;
	size_t n = 0, first = stack_first_shown(t, stack);

	if (stack_placeholder(stack))
		ids[n++] = stack->damaged ? ff->damaged_stack : ff->no_stack;
	for (size_t k = stack->depth; k-- > first;)
		ids[n++] = ff->by_frame[stack->frames[k]];
	return n;
}
