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

#include "report-jansson.h"
#include "report-util.h"
#include "report-view.h"

#include <math.h>
#include <stdlib.h>

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

static json_t *shared_frames(const struct flame_frames *ff)
{
	json_t *frames = json_array();

	for (size_t i = 0; i < ff->count; i++) {
		json_t *frame = json_object();

		set(frame, "name", text(ff->names[i]));
		if (ff->files[i])
			set(frame, "file", text(ff->files[i]));
		append(frames, frame);
	}
	return frames;
}

/* A stack from the root to the site. */
static json_t *sample(const struct report *r, const struct flame_frames *ff,
		      const struct report_stack *s, size_t *ids)
{
	json_t *frames = json_array();
	size_t n = flame_stack(r, ff, s, ids);

	for (size_t k = 0; k < n; k++)
		append(frames, json_integer((json_int_t)ids[k]));
	return frames;
}

static json_t *profile(const struct report *r, enum measure m,
		       const struct flame_frames *ff)
{
	const struct stack_table *t = r->stacks;
	json_t *p = json_object(), *samples = json_array(),
	       *weights = json_array();
	size_t *ids = NULL, capacity = 0;
	double total = 0;

	for (size_t i = 0; i < t->stack_count; i++) {
		double value = stack_value(&t->stacks[i], m);

		if (!(value > 0))
			continue;
		ids = xgrow(ids, &capacity, t->stacks[i].depth + 1,
			    sizeof(*ids));
		append(samples, sample(r, ff, &t->stacks[i], ids));
		append(weights, whole(value));
		total += value;
	}
	free(ids);
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
	struct flame_frames ff;
	int rc;

	flame_frames_build(r, &ff);
	set(root, "$schema", json_string(SPEEDSCOPE_SCHEMA));
	set(shared, "frames", shared_frames(&ff));
	set(root, "shared", shared);
	for (size_t m = 0; m < report_measures(r); m++)
		append(profiles, profile(r, (enum measure)m, &ff));
	set(root, "profiles", profiles);
	set(root, "name", text(r->profile_count == 1 ? r->profiles[0].file
						      : "memprof-report"));
	set(root, "activeProfileIndex", json_integer(report_measure(r)));
	set(root, "exporter", json_string("memprof-report " PACKAGE_VERSION));
	rc = json_dumpf(root, out, JSON_COMPACT | JSON_PRESERVE_ORDER |
					   JSON_REAL_PRECISION(17));
	json_decref(root);
	flame_frames_free(&ff);
	if (rc == 0 && fputc('\n', out) == EOF)
		rc = -1;
	return rc;
}
