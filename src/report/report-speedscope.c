/* report-speedscope.c - a file for speedscope (www.speedscope.app), in its
 * published file format (file-format-schema.json).
 *
 * Four "sampled" profiles of the same stacks, one per measure: live bytes
 * at the peak, live bytes at the end, bytes allocated and allocations;
 * speedscope opens the one the report's measure names.  Each stack is one
 * sample, from the root to the site, weighed by its estimate.  Frames are
 * one per function, as in the folded stacks, so that the lines of a
 * function make one box.
 */
#include "config.h"

#include "report-index.h"
#include "report-jansson.h"
#include "report-util.h"
#include "report-view.h"

#include <math.h>
#include <stdlib.h>

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

/* The shared frames, one per name; *by_frame maps the report's frames. */
static json_t *shared_frames(const struct report *r, size_t **by_frame)
{
	const struct stack_table *t = r->stacks;
	char **names = report_frame_names(r);
	json_t *frames = json_array();
	struct text_index index;

	text_index_init(&index);
	*by_frame = xcalloc(t->frame_count + 2, sizeof(**by_frame));
	for (size_t i = 0; i < t->frame_count; i++) {
		bool added;
		json_t *frame;

		(*by_frame)[i] = text_index_intern(&index, names[i], &added);
		if (!added)
			continue;
		frame = json_object();
		set(frame, "name", text(names[i]));
		if (t->frames[i].file)
			set(frame, "file", text(t->frames[i].file));
		append(frames, frame);
	}
	/* The stacks without frames get theirs after the others. */
	for (int damaged = 0; damaged < 2; damaged++) {
		struct report_stack none = { .damaged = damaged };
		json_t *frame = json_object();

		set(frame, "name", json_string(stack_placeholder(&none)));
		(*by_frame)[t->frame_count + (size_t)damaged] =
			json_array_size(frames);
		append(frames, frame);
	}
	text_index_free(&index);
	report_frame_names_free(r, names);
	return frames;
}

/* A stack from the root to the site. */
static json_t *sample(const struct stack_table *t,
		      const struct report_stack *s, const size_t *by_frame)
{
	json_t *frames = json_array();
	size_t first = stack_first_shown(t, s);

	if (stack_placeholder(s))
		append(frames, json_integer((json_int_t)by_frame[
			t->frame_count + (s->damaged ? 1 : 0)]));
	for (size_t k = s->depth; k-- > first;)
		append(frames, json_integer((json_int_t)by_frame[s->frames[k]]));
	return frames;
}

static json_t *profile(const struct report *r, enum measure m,
		       const size_t *by_frame)
{
	const struct stack_table *t = r->stacks;
	json_t *p = json_object(), *samples = json_array(),
	       *weights = json_array();
	double total = 0;

	for (size_t i = 0; i < t->stack_count; i++) {
		double value = stack_value(&t->stacks[i], m);

		if (!(value > 0))
			continue;
		append(samples, sample(t, &t->stacks[i], by_frame));
		append(weights, whole(value));
		total += value;
	}
	set(p, "type", json_string("sampled"));
	set(p, "name", json_string(measure_titles[m]));
	set(p, "unit", json_string(m == MEASURE_ALLOCATIONS ? "none" : "bytes"));
	set(p, "startValue", json_integer(0));
	set(p, "endValue", whole(total));
	set(p, "samples", samples);
	set(p, "weights", weights);
	return p;
}

int view_speedscope(FILE *out, const struct report *r)
{
	json_t *root = json_object(), *shared = json_object(),
	       *profiles = json_array();
	size_t *by_frame;
	int rc;

	set(root, "$schema", json_string(SPEEDSCOPE_SCHEMA));
	set(shared, "frames", shared_frames(r, &by_frame));
	set(root, "shared", shared);
	for (int m = 0; m < MEASURES; m++)
		append(profiles, profile(r, (enum measure)m, by_frame));
	set(root, "profiles", profiles);
	set(root, "name", text(r->profile_count == 1 ? r->profiles[0].file
						      : "memprof-report"));
	set(root, "activeProfileIndex", json_integer(report_measure(r)));
	set(root, "exporter", json_string("memprof-report " PACKAGE_VERSION));
	rc = json_dumpf(root, out, JSON_COMPACT | JSON_PRESERVE_ORDER |
					   JSON_REAL_PRECISION(17));
	json_decref(root);
	free(by_frame);
	if (rc == 0 && fputc('\n', out) == EOF)
		rc = -1;
	return rc;
}
