/* report-moment.h - a moment of a profile as a user names it: seconds
 * since its start ("12.5s", "12.5") or its first marker of a name.
 *
 * Contract: memprof-report's --at TIME, --from and --to parse into a
 * struct moment_spec (moment_parse); the replay (report-heap.c) follows
 * each spec through the events with moment_follow, which says when the
 * profile passes it; afterwards moment_check says, in plain words, why a
 * spec names no moment of the profile: a time beyond its span, a marker
 * it does not have, or a moment before the events that a profile with a
 * size limit kept (its checkpoints keep the live heap's total there, not
 * its stacks).
 */
#ifndef SPPROF_REPORT_MOMENT_H
#define SPPROF_REPORT_MOMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spprof/mlyze.h"

enum moment_kind {
	MOMENT_NONE,    /* not given */
	MOMENT_SECONDS, /* seconds since the start of the profile */
	MOMENT_MARKER,  /* the first marker of this name */
};

struct moment_spec {
	enum moment_kind kind;
	double seconds;
	const char *marker;
	const char *option; /* "--at", "--from", "--to": for messages */
	const char *text;   /* as given */
};

/* How a spec is passed: an --at moment is the state after every event at
 * its time (passed by the first event after it); a bound of a stretch
 * counts the blocks born from it on (passed by the first event at it). */
enum moment_passing { PASSED_AFTER, PASSED_AT };

/* Where the replay is with a spec. */
struct moment_track {
	const struct moment_spec *spec; /* NULL: none */
	enum moment_passing passing;
	uint64_t time_us;  /* of a spec in seconds */
	bool passed;
	uint64_t passed_us; /* when it was passed */
};

/* TEXT as a moment of `option`: a number of seconds with an optional
 * 's', or else a marker's name.  Returns 0, or -1 with the reason in why
 * (a negative or unreadable time). */
int moment_parse(struct moment_spec *spec, const char *option,
		 const char *text, char *why, size_t size);

/* Starts following `spec` (may be NULL) in a profile starting at
 * start_us. */
void moment_track_start(struct moment_track *t, const struct moment_spec *spec,
			enum moment_passing passing, uint64_t start_us);
/* Before the replay of ev: whether ev passes a spec in seconds now
 * (it is then marked passed). */
bool moment_passes_before(struct moment_track *t,
			  const struct mlyze_event *ev);
/* After the replay of a MARKER ev: whether it passes a spec naming it. */
bool moment_passes_marker(struct moment_track *t,
			  const struct mlyze_event *ev);

/* The facts of a profile a spec is checked against. */
struct moment_bounds {
	const char *file;
	double duration_s;
	double kept_from_s; /* events kept from then on; 0 when all */
	bool passed;        /* the replay passed the spec */
};

/* Returns 0 when the spec names a moment of the profile the replay could
 * see, else -1 with the reason in why ("--at 99s: the profile spans 0 to
 * 42.1 s"). */
int moment_check(const struct moment_spec *spec,
		 const struct moment_bounds *bounds, char *why, size_t size);

/* "12.5 s" or "marker load": how the reports name the moment (to free). */
char *moment_label(const struct moment_spec *spec);

#endif /* SPPROF_REPORT_MOMENT_H */
