/* report-frames.h - how memprof-report names a frame.
 *
 * Contract: turns a frame of a profile into the text a report shows, for
 * the chosen grouping, symbolizing native frames offline (unknown symbols
 * show as module+0xoffset), and says whether the frame belongs to an
 * allocator, so that the site of an allocation is the first frame that
 * does not.  The list of allocator functions lives here and only here.
 */
#ifndef SPPROF_REPORT_FRAMES_H
#define SPPROF_REPORT_FRAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "spprof/mlyze.h"
#include "symbolizer.h"

enum grouping {
	GROUP_BY_FUNCTION,
	GROUP_BY_LINE,
	GROUP_BY_STACK,
};

/* "function", "line", "stack", by enum grouping. */
extern const char *const grouping_names[3];

struct frame_namer;

struct frame_namer *frame_namer_new(const struct symbolizer_options *options);
void frame_namer_free(struct frame_namer *namer);

/* The name of a frame.  Sites with the same key are merged; the text is
 * what the report shows, and may say more than the key (a Python line
 * within a function).  Both strings belong to the caller. */
struct frame_label {
	char *key;
	char *text;
	bool allocator;
};

void frame_label(struct frame_namer *namer, const struct mlyze_frame *frame,
		 enum grouping grouping, struct frame_label *label);
void frame_label_free(struct frame_label *label);

#endif /* SPPROF_REPORT_FRAMES_H */
