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

/* Why a stream could not be read, for report_hooks.failed. */
static void keep_why(void *ctx, const char *name, const mlyze_reader *r)
{
	struct ctl_reading *reading = ctx;

	(void)name;
	snprintf(reading->why, reading->size, "%s", mlyze_error(r));
}

/* Its summary, for report_hooks.replayed. */
static void keep_summary(void *ctx, const char *name, const mlyze_reader *r,
			 struct heap_replay *h)
{
	struct ctl_reading *reading = ctx;

	(void)name;
	(void)r;
	ctl_summary_of(h, reading->summary);
}

struct report_request ctl_stream_request(struct ctl_reading *reading,
					 enum report_step until)
{
	return (struct report_request){
		.files = &reading->name,
		.fds = &reading->fd,
		.count = 1,
		.reading = { .warn = ctl_ignore_warning },
		.until = until,
		.hooks = { .ctx = reading, .failed = keep_why,
			   .replayed = keep_summary },
	};
}

int ctl_summarise(int fd, const char *name, struct ctl_summary *out,
		  char *why, size_t size)
{
	struct ctl_reading reading = { fd, name, out, why, size };
	struct report_request request = ctl_stream_request(&reading,
							   REPORT_REPLAY);
	struct report_result result;
	int rc;

	report_engine_run(&request, &result);
	rc = result.read ? 0 : -1;
	report_result_free(&result);
	return rc;
}
