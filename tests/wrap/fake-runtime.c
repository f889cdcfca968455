/* fake-runtime.c - stands in for libspprof-alloc in the memprof-wrap tests
 * that are about memprof-wrap itself, not about profiles.
 *
 * It follows only the runtime's file protocol: when loaded it creates
 * "<SPPROF_OUTPUT with %p expanded>.part" and sends "P <part>" to
 * SPPROF_MANIFEST (wrap_channel.h); at a normal exit it renames the part
 * file to its final name and sends "F <part>\t<final>".  It samples nothing, and it does not
 * look for an existing file of the same name.  When FAKE_RUNTIME_LOG is
 * set it also appends its process id there, to show where it was loaded;
 * when FAKE_RUNTIME_INERT is set it writes no profile.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wrap_channel.h"

static char final_path[4096];
static char part_path[4096 + 8];

static void append(const char *file, const char *line)
{
	int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

	if (fd >= 0) {
		if (write(fd, line, strlen(line)) < 0)
			perror(file);
		close(fd);
	}
}

/* Expand %p and %% of PATTERN into final_path. */
static void expand(const char *pattern)
{
	size_t used = 0;

	for (; *pattern != '\0' && used + 24 < sizeof final_path; pattern++) {
		if (pattern[0] == '%' && pattern[1] == 'p') {
			used += (size_t)sprintf(final_path + used, "%ld",
						(long)getpid());
			pattern++;
			continue;
		}
		if (pattern[0] == '%' && pattern[1] == '%')
			pattern++;
		final_path[used++] = *pattern;
	}
	final_path[used] = '\0';
}

static void finalise(void)
{
	const char *manifest = getenv("SPPROF_MANIFEST");
	char line[sizeof part_path + sizeof final_path + 4];

	if (rename(part_path, final_path) != 0 || manifest == NULL)
		return;
	snprintf(line, sizeof line, "F %s\t%s\n", part_path, final_path);
	channel_send(manifest, line, strlen(line), -1);
}

__attribute__((constructor)) static void start(void)
{
	const char *output = getenv("SPPROF_OUTPUT");
	const char *manifest = getenv("SPPROF_MANIFEST");
	const char *log = getenv("FAKE_RUNTIME_LOG");
	char line[sizeof part_path + 4];

	if (log != NULL) {
		snprintf(line, sizeof line, "%ld\n", (long)getpid());
		append(log, line);
	}
	if (output == NULL || manifest == NULL ||
	    getenv("FAKE_RUNTIME_INERT") != NULL)
		return;
	expand(output);
	snprintf(part_path, sizeof part_path, "%s.part", final_path);
	append(part_path, "fake profile\n");
	snprintf(line, sizeof line, "P %s\n", part_path);
	channel_send(manifest, line, strlen(line), -1);
	atexit(finalise);
}
