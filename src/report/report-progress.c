/* report-progress.c - progress of a long report on stderr (see
 * report-progress.h). */
#include "config.h"

#include "report-progress.h"

#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define QUIET_SECONDS 0.5
#define REDRAW_SECONDS 0.1

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_start(struct progress *p, const char *file)
{
	struct stat st;

	p->enabled = isatty(STDERR_FILENO);
	p->shown = false;
	p->file = file;
	p->size = stat(file, &st) == 0 && S_ISREG(st.st_mode)
			  ? (uint64_t)st.st_size
			  : 0;
	p->started = p->drawn = now();
}

void progress_tick(void *ctx, const mlyze_reader *reader)
{
	struct progress *p = ctx;
	double t;

	if (!p->enabled)
		return;
	t = now();
	if (t - p->started < QUIET_SECONDS || t - p->drawn < REDRAW_SECONDS)
		return;
	p->drawn = t;
	p->shown = true;
	if (p->size)
		fprintf(stderr, "\rmemprof-report: reading %s: %3.0f %%",
			p->file,
			100.0 * (double)mlyze_position(reader) / (double)p->size);
	else
		fprintf(stderr, "\rmemprof-report: reading %s: %.0f MiB",
			p->file, (double)mlyze_position(reader) / 1048576.0);
	fflush(stderr);
}

void progress_done(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}
