/* tool_files.c - the runtime and the Python walker, as the tools find them
 * (see tool_files.h). */
#include "config.h"

#include "tool_files.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The top of the build tree whose src/PROGRAM this process is, in top
 * (PATH_MAX); 0, or -1 when it runs from elsewhere. */
static int build_tree_top(const char *program, char *top)
{
	const char *const places[] = { "/src/", "/src/.libs/",
				       "/src/.libs/lt-" };
	char *self = realpath("/proc/self/exe", NULL);
	size_t length = self ? strlen(self) : 0;
	char suffix[PATH_MAX];
	int found = -1;

	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]) && found;
	     i++) {
		size_t n = (size_t)snprintf(suffix, sizeof(suffix), "%s%s",
					    places[i], program);

		if (n < sizeof(suffix) && length > n && length < PATH_MAX &&
		    strcmp(self + length - n, suffix) == 0) {
			snprintf(top, PATH_MAX, "%.*s", (int)(length - n), self);
			found = 0;
		}
	}
	free(self);
	return found;
}

const char *tool_file(const char *program, const char *relative,
		      const char *installed, char *path)
{
	char top[PATH_MAX];

	if (relative[0] && build_tree_top(program, top) == 0 &&
	    (size_t)snprintf(path, PATH_MAX, "%s/%s", top, relative) <
		    PATH_MAX &&
	    access(path, R_OK) == 0)
		return path;
	return installed[0] && access(installed, R_OK) == 0 ? installed : NULL;
}
