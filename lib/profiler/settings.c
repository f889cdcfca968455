/* settings.c - SPPROF_* environment settings (see settings.h). */
#include "config.h"

#include "settings.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <spprof/memprof.h>

#include "estimator.h"
#include "heap_map.h"
#include "stack_table.h"
#include "wrap_channel.h"

/* memprof-wrap's socket, where messages go instead of stderr. */
static char message_channel[PATH_MAX];

void runtime_message(const char *fmt, ...)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "libspprof-alloc: ");
	va_list ap;

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* Under memprof-wrap the person who runs it reads them, never the
	 * program's log; should it have ended, nobody does.  Where the line
	 * cannot go (no descriptor left for the socket: the very trouble
	 * being told, often), stderr is better than silence. */
	if (message_channel[0]) {
		char tagged[sizeof(line) + 2] = "M ";
		int err;

		memcpy(tagged + 2, line, (size_t)n);
		err = channel_send(message_channel, tagged, (size_t)n + 2, -1);
		if (err == 0 || err == ECONNREFUSED)
			return;
	}
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* stderr is gone; there is nobody left to tell */
	}
}

const char *error_text(int err)
{
	const char *text = strerrordesc_np(err);

	return text ? text : "unknown error";
}

/* Parses a positive decimal integer no larger than max. */
static int parse_count(const char *name, const char *text, uint64_t max,
		       uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' || v == 0 ||
	    v > max) {
		runtime_message("%s=%s is not a whole number from 1 to %llu; "
				"ignoring it",
				name, text, (unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

/* SPPROF_MAX_SIZE: bytes, or 0 for no limit; a limit too small to hold
 * a checkpoint and some events is raised to the smallest one taken. */
static uint64_t parse_max_size(const char *text)
{
	uint64_t n;

	if (!strcmp(text, "0"))
		return 0;
	if (parse_count("SPPROF_MAX_SIZE", text, UINT64_C(1) << 50, &n) < 0)
		return PROFILE_MAX_SIZE_DEFAULT;
	if (n < PROFILE_MAX_SIZE_MIN) {
		runtime_message("SPPROF_MAX_SIZE=%s is below the smallest "
				"limit, %llu bytes; using that",
				text, (unsigned long long)PROFILE_MAX_SIZE_MIN);
		return PROFILE_MAX_SIZE_MIN;
	}
	return n;
}

static void copy_setting(const char *name, char *dest, size_t size)
{
	const char *v = secure_getenv(name);

	dest[0] = '\0';
	if (!v)
		return;
	if (strlen(v) >= size) {
		runtime_message("%s is longer than %zu bytes; ignoring it",
				name, size - 1);
		return;
	}
	strcpy(dest, v);
}

static enum unwind_method parse_unwind(const char *text)
{
	if (!strcmp(text, "fp"))
		return UNWIND_FP;
	if (!strcmp(text, "dwarf"))
		return UNWIND_DWARF;
	if (strcmp(text, "auto"))
		runtime_message("SPPROF_UNWIND=%s is not fp, dwarf or auto; "
				"using auto",
				text);
	return UNWIND_AUTO;
}

void settings_read(struct runtime_config *c)
{
	const char *v;
	uint64_t n;

	c->sampling_rate = MEMPROF_DEFAULT_SAMPLING_RATE;
	c->stack_table_max = STACK_TABLE_MAX_DEFAULT;
	c->max_size = PROFILE_MAX_SIZE_DEFAULT;
	c->heap_map_capacity = HEAP_MAP_DEFAULT_MAX_CAPACITY;
	c->follow_fork = 1;
	c->dormant = 0;
	c->root_pid = 0;
	c->unwind = UNWIND_AUTO;
	c->seed = 0;
	/* First, so that the messages below find their way. */
	copy_setting("SPPROF_MANIFEST", c->manifest, sizeof(c->manifest));
	if (channel_is_wrap(c->manifest))
		memcpy(message_channel, c->manifest, sizeof(message_channel));
	if ((v = secure_getenv("SPPROF_SAMPLING_RATE")) &&
	    parse_count("SPPROF_SAMPLING_RATE", v, ESTIMATOR_MAX_SAMPLING_RATE, &n) == 0)
		c->sampling_rate = n;
	if ((v = secure_getenv("SPPROF_STACK_TABLE_MAX")) &&
	    parse_count("SPPROF_STACK_TABLE_MAX", v, 1u << 24, &n) == 0)
		c->stack_table_max = (uint32_t)n;
	if ((v = secure_getenv("SPPROF_MAX_SIZE")))
		c->max_size = parse_max_size(v);
	if ((v = secure_getenv("SPPROF_HEAP_MAP_CAPACITY")) &&
	    parse_count("SPPROF_HEAP_MAP_CAPACITY", v, 1u << 26, &n) == 0) {
		c->heap_map_capacity = 1024;
		while (c->heap_map_capacity < n)
			c->heap_map_capacity *= 2;
	}
	if ((v = secure_getenv("SPPROF_FOLLOW_FORK"))) {
		if (!strcmp(v, "0") || !strcmp(v, "1"))
			c->follow_fork = v[0] == '1';
		else
			runtime_message("SPPROF_FOLLOW_FORK=%s is not 0 or 1; "
					"ignoring it", v);
	}
	if ((v = secure_getenv("SPPROF_DORMANT")))
		c->dormant = !strcmp(v, "1");
	if ((v = secure_getenv("SPPROF_ROOT_PID")) &&
	    parse_count("SPPROF_ROOT_PID", v, 1u << 30, &n) == 0)
		c->root_pid = (long)n;
	if ((v = secure_getenv("SPPROF_UNWIND")))
		c->unwind = parse_unwind(v);
	if ((v = secure_getenv("SPPROF_SEED")))
		(void)parse_count("SPPROF_SEED", v, UINT64_MAX, &c->seed);
	copy_setting("SPPROF_OUTPUT", c->output, sizeof(c->output));
	copy_setting("SPPROF_PYTHON_WALKER", c->python_walker,
		     sizeof(c->python_walker));
}
