/* ctl-summary.c - what a running profile holds so far (see ctl-summary.h). */
#include "config.h"

#include "ctl-summary.h"

#include <stdio.h>

#include "estimator.h"
#include "spprof/mlyze.h"

void ctl_ignore_warning(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
}

void ctl_summary_of(const struct heap_replay *h, struct ctl_summary *out)
{
	const struct estimate *live = &h->total.live[AT_END];

	out->samples = h->total.allocated.samples;
	out->live_bytes = live->bytes;
	out->live_error = estimator_interval95(live->bytes_variance);
	out->allocated_bytes = h->total.allocated.bytes;
}

int ctl_summarise(int fd, const char *name, struct ctl_summary *out,
		  char *why, size_t size)
{
	struct mlyze_options options = { .warn = ctl_ignore_warning };
	mlyze_reader *r = mlyze_open_fd(fd, name, &options);
	struct heap_replay h;
	int rc = -1;

	if (!r) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	if (mlyze_status(r) == MLYZE_OK && heap_replay(r, &h, NULL) == 0) {
		ctl_summary_of(&h, out);
		heap_replay_free(&h);
		rc = 0;
	} else {
		snprintf(why, size, "%s", mlyze_error(r));
	}
	mlyze_close(r);
	return rc;
}
