/* walker_fit.c - whether the Python frame walker may read the frames of
 * the interpreter it runs in (see walker_fit.h). */
#include <stdio.h>

#include "walker_fit.h"

static unsigned major_of(struct python_build b)
{
	return (unsigned)(b.version >> 24 & 0xFF);
}

static unsigned minor_of(struct python_build b)
{
	return (unsigned)(b.version >> 16 & 0xFF);
}

static int same_interpreter(struct python_build a, struct python_build b)
{
	return major_of(a) == major_of(b) && minor_of(a) == minor_of(b) &&
	       !a.free_threaded == !b.free_threaded;
}

/* "CPython 3.13" or "free-threaded CPython 3.13t" into name[size]. */
static const char *describe(struct python_build b, char *name, size_t size)
{
	snprintf(name, size, "%sCPython %u.%u%s",
		 b.free_threaded ? "free-threaded " : "", major_of(b),
		 minor_of(b), b.free_threaded ? "t" : "");
	return name;
}

const char *walker_refusal(struct python_build built,
			   struct python_build running, char *why, size_t size)
{
	char built_name[48], running_name[48];

	describe(built, built_name, sizeof(built_name));
	describe(running, running_name, sizeof(running_name));
	if (!same_interpreter(built, running))
		snprintf(why, size,
			 "the frame walker was built for %s and cannot read "
			 "the frames of %s",
			 built_name, running_name);
	else if (running.free_threaded)
		snprintf(why, size,
			 "%s is not supported by the frame walker (only "
			 "builds with the GIL are)",
			 running_name);
	else if (major_of(running) != 3 ||
		 minor_of(running) < WALKER_FIRST_MINOR ||
		 minor_of(running) > WALKER_LAST_MINOR)
		snprintf(why, size,
			 "%s is not supported by the frame walker (it knows "
			 "CPython 3.%d to 3.%d)",
			 running_name, WALKER_FIRST_MINOR, WALKER_LAST_MINOR);
	else
		return NULL;
	return why;
}
