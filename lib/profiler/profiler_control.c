/* profiler_control.c - what the profiler does on a request of memprof-ctl
 * (see control.h): start and stop recording windows, take snapshots.
 * These run on the slow path of an allocation, or in the handler of the
 * control signal on a thread it interrupted outside the runtime
 * (control_signal.h), under the re-entrancy guard, on whichever thread
 * found the request. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <spprof/memprof.h>

#include "control.h"
#include "late_binding.h"
#include "profiler_state.h"
#include "writer.h"

#define STARTED_BY_REQUEST "memprof-ctl start"

static int report_status(const char *argument, char *answer, size_t size)
{
	(void)argument;
	snprintf(answer, size, "%s", writer_recording() ? "recording"
							: "dormant");
	return 0;
}

/* The first window of a runtime that has never recorded sets it up; later
 * ones start a new profile. */
static int start_window(const char *pattern, char *answer, size_t size)
{
	struct runtime_config *s = &prof.settings;
	int err;

	if (writer_recording()) {
		snprintf(answer, size, "already recording");
		return EALREADY;
	}
	if (!pattern[0])
		pattern = s->output;
	if (!pattern[0]) {
		snprintf(answer, size, "no profile name given");
		return EINVAL;
	}
	if (!writer_enabled()) {
		if (strlen(pattern) >= sizeof(s->output))
			return ENAMETOOLONG;
		memmove(s->output, pattern, strlen(pattern) + 1);
		if ((memprof_init(s->sampling_rate) < 0 && errno != EALREADY) ||
		    writer_configure(s, &prof.stacks, &prof.heap,
				     &prof.in_place, s->sampling_rate, 0) < 0)
			return errno;
	}
	err = writer_restart(pattern, late_binding_applied() ? STARTED_BY_ATTACH
							    : STARTED_BY_REQUEST);
	if (err)
		return err;
	if (memprof_start() < 0 && errno != EALREADY)
		return errno;
	control_set_state(CONTROL_RECORDING);
	return writer_begin(answer, size);
}

/* 1 when recording; else 0 with the answer that says so. */
static int recording(char *answer, size_t size)
{
	if (writer_recording())
		return 1;
	snprintf(answer, size, "not recording (memprof-ctl start begins)");
	return 0;
}

static int stop_window(const char *argument, char *answer, size_t size)
{
	memprof_stats stats;

	(void)argument;
	if (!recording(answer, size))
		return ENOTCONN;
	memprof_stop();
	memprof_get_stats(&stats);
	control_set_state(CONTROL_DORMANT);
	return writer_finish_window(&stats, "stop", answer, size);
}

static int take_snapshot(const char *argument, char *answer, size_t size)
{
	memprof_stats stats;

	(void)argument;
	if (!recording(answer, size))
		return ENOTCONN;
	memprof_get_stats(&stats);
	return writer_snapshot(&stats, answer, size);
}

/* The requests, by their number in enum control_request. */
static int (*const handlers[])(const char *argument, char *answer,
			       size_t size) = {
	[CONTROL_STATUS] = report_status,
	[CONTROL_START] = start_window,
	[CONTROL_STOP] = stop_window,
	[CONTROL_SNAPSHOT] = take_snapshot,
};

int profiler_control(enum control_request request, const char *argument,
		     char *answer, size_t size)
{
	int saved_errno, err;

	if ((size_t)request >= ARRAY_SIZE(handlers) || !handlers[request])
		return EINVAL;
	saved_errno = enter_runtime();
	err = handlers[request](argument, answer, size);
	leave_runtime(saved_errno);
	return err;
}
