/* ctl-summary.c - what a running profile holds so far (see ctl-summary.h). */
#include "config.h"

#include "ctl-summary.h"

#include <math.h>
#include <stdio.h>

#include "report-heap.h"
#include "spprof/mlyze.h"

/* A streamed file is unfinished by nature: its warnings say nothing. */
static void ignore_warning(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
}

int ctl_summarise(const char *profile, struct ctl_summary *out, char *why,
		  size_t size)
{
	struct mlyze_options options = { .warn = ignore_warning };
	mlyze_reader *r = mlyze_open(profile, &options);
	struct heap_replay h;
	int rc = -1;

	if (!r) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	if (mlyze_status(r) == MLYZE_OK && heap_replay(r, &h, NULL) == 0) {
		const struct estimate *live = &h.total.live[AT_END];

		out->samples = h.total.allocated.samples;
		out->live_bytes = live->bytes;
		out->live_error = 1.96 * sqrt(live->bytes_variance);
		heap_replay_free(&h);
		rc = 0;
	} else {
		snprintf(why, size, "%s", mlyze_error(r));
	}
	mlyze_close(r);
	return rc;
}
