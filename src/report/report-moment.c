/* report-moment.c - moments named by time or marker (see
 * report-moment.h).
 */
#include "config.h"

#include "report-moment.h"
#include "report-util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A text that starts like a number is a time, and must be one: "1O s"
 * is a mistake, not a marker. */
static bool looks_like_time(const char *text)
{
	return (text[0] >= '0' && text[0] <= '9') || text[0] == '.' ||
	       text[0] == '-' || text[0] == '+';
}

int moment_parse(struct moment_spec *spec, const char *option,
		 const char *text, char *why, size_t size)
{
	char *end;
	double seconds;

	*spec = (struct moment_spec){ .option = option, .text = text };
	if (!*text) {
		snprintf(why, size, "%s: empty moment (give seconds, as "
			 "12.5s, or a marker's name)", option);
		return -1;
	}
	if (!looks_like_time(text)) {
		spec->kind = MOMENT_MARKER;
		spec->marker = text;
		return 0;
	}
	errno = 0;
	seconds = strtod(text, &end);
	if (*end == 's')
		end++;
	if (errno || end == text || *end || !isfinite(seconds) ||
	    seconds < 0) {
		snprintf(why, size, "%s %s: not a time in seconds from the "
			 "start (as 12.5s), nor a marker's name", option, text);
		return -1;
	}
	spec->kind = MOMENT_SECONDS;
	spec->seconds = seconds;
	return 0;
}

void moment_track_start(struct moment_track *t, const struct moment_spec *spec,
			enum moment_passing passing, uint64_t start_us)
{
	*t = (struct moment_track){ .spec = spec, .passing = passing };
	if (spec && spec->kind == MOMENT_SECONDS)
		t->time_us = start_us + (uint64_t)llround(spec->seconds * 1e6);
}

bool moment_passes_before(struct moment_track *t,
			  const struct mlyze_event *ev)
{
	if (!t->spec || t->passed || t->spec->kind != MOMENT_SECONDS)
		return false;
	if (t->passing == PASSED_AFTER ? ev->time_us <= t->time_us
				       : ev->time_us < t->time_us)
		return false;
	t->passed = true;
	t->passed_us = t->passing == PASSED_AFTER ? t->time_us : ev->time_us;
	return true;
}

bool moment_passes_marker(struct moment_track *t,
			  const struct mlyze_event *ev)
{
	if (!t->spec || t->passed || t->spec->kind != MOMENT_MARKER ||
	    !ev->marker.name || strcmp(ev->marker.name->text,
				       t->spec->marker) != 0)
		return false;
	t->passed = true;
	t->passed_us = ev->time_us;
	return true;
}

int moment_check(const struct moment_spec *spec,
		 const struct moment_bounds *b, char *why, size_t size)
{
	if (spec->kind == MOMENT_NONE)
		return 0;
	if (spec->kind == MOMENT_MARKER && !b->passed) {
		snprintf(why, size, "%s %s: %s has no marker '%s'%s",
			 spec->option, spec->text, b->file, spec->marker,
			 b->kept_from_s > 0 ? " in the events its size limit "
					      "kept" : "");
		return -1;
	}
	if (spec->kind == MOMENT_SECONDS &&
	    spec->seconds > b->duration_s + 5e-7) {
		snprintf(why, size, "%s %s: the profile %s spans 0 to %.1f s",
			 spec->option, spec->text, b->file, b->duration_s);
		return -1;
	}
	if (b->kept_from_s > 0 && spec->kind == MOMENT_SECONDS &&
	    spec->seconds < b->kept_from_s) {
		snprintf(why, size, "%s %s: the size limit of %s discarded "
			 "its events before %.3f s; its checkpoints keep the "
			 "live heap's total there, not who allocated it: "
			 "choose a moment from %.3f s on", spec->option,
			 spec->text, b->file, b->kept_from_s, b->kept_from_s);
		return -1;
	}
	return 0;
}

char *moment_label(const struct moment_spec *spec)
{
	if (spec->kind == MOMENT_MARKER)
		return xasprintf("marker %s", spec->marker);
	return xasprintf("%g s", spec->seconds);
}
