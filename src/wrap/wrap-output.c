/* wrap-output.c - where the profiles go.
 * See wrap-output.h for the contract. */
#include "config.h"

#include "wrap-output.h"
#include "wrap-util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Double every % so that the runtime reads TEXT literally. */
static char *escape_percent(const char *text)
{
	char *escaped = wrap_alloc(2 * strlen(text) + 1);
	char *out = escaped;

	for (; *text != '\0'; text++) {
		*out++ = *text;
		if (*text == '%')
			*out++ = '%';
	}
	*out = '\0';
	return escaped;
}

char *wrap_default_output(const char *command)
{
	const char *slash = strrchr(command, '/');
	char *base = escape_percent(slash != NULL ? slash + 1 : command);
	char *name = wrap_format("%s.%%p.mlyze", base);

	free(base);
	return name;
}

const char *wrap_expand_host(const char *pattern, const char *host,
			     char **expanded)
{
	char *escaped_host = escape_percent(host);
	size_t hosts = 0;
	char *out;

	for (const char *p = strchr(pattern, '%'); p; p = strchr(p + 2, '%')) {
		if (p[1] == 'h')
			hosts++;
		else if (p[1] != 'p' && p[1] != '%') {
			free(escaped_host);
			return p[1] == '\0' ? "a lone % ends it (write %% for a %)"
					    : "unknown % sequence (use %p, %h or %%)";
		}
	}
	out = *expanded = wrap_alloc(strlen(pattern) +
				     hosts * strlen(escaped_host) + 1);
	for (; *pattern != '\0'; pattern++) {
		if (pattern[0] != '%') {
			*out++ = *pattern;
		} else if (pattern[1] == 'h') {
			out = stpcpy(out, escaped_host);
			pattern++;
		} else { /* %p or %%, left for the runtime */
			*out++ = *pattern++;
			*out++ = *pattern;
		}
	}
	*out = '\0';
	free(escaped_host);
	return NULL;
}

char *wrap_literal_path(const char *pattern, size_t length)
{
	char *path = wrap_alloc(length + 1);
	char *out = path;

	for (size_t i = 0; i < length; i++) {
		/* A checked pattern has only %p and %% left. */
		if (pattern[i] == '%') {
			i++;
			if (pattern[i] == 'p') {
				free(path);
				return NULL;
			}
		}
		*out++ = pattern[i];
	}
	*out = '\0';
	return path;
}

/* Does the expanded -o argument name a directory to put the default name in? */
static bool names_directory(const char *target)
{
	size_t length = strlen(target);
	char *path = wrap_literal_path(target, length);
	struct stat status;
	bool directory = target[length - 1] == '/' ||
			 (path != NULL && stat(path, &status) == 0 &&
			  S_ISDIR(status.st_mode));

	free(path);
	return directory;
}

/* Descendants may change directory before they start: anchor the pattern
 * to the directory memprof-wrap was started in. */
static char *make_absolute(char *target)
{
	char *cwd, *escaped_cwd, *absolute;

	if (target[0] == '/' || (cwd = getcwd(NULL, 0)) == NULL)
		return target;
	escaped_cwd = escape_percent(strcmp(cwd, "/") == 0 ? "" : cwd);
	absolute = wrap_format("%s/%s", escaped_cwd, target);
	free(escaped_cwd);
	free(cwd);
	free(target);
	return absolute;
}

static int check_directory(const char *pattern)
{
	const char *slash = strrchr(pattern, '/');
	char *directory = wrap_literal_path(pattern, slash == pattern
							     ? 1 : (size_t)(slash - pattern));
	struct stat status;
	int problem = 0;

	if (directory == NULL) {
		wrap_error("invalid output name '%s': %%p may only appear in "
			   "the file name", pattern);
		return 2;
	}
	if (stat(directory, &status) != 0)
		problem = errno;
	else if (!S_ISDIR(status.st_mode))
		problem = ENOTDIR;
	else if (faccessat(AT_FDCWD, directory, W_OK | X_OK, AT_EACCESS) != 0)
		problem = errno;
	if (problem != 0)
		wrap_error("output directory %s: %s", directory,
			   strerror(problem));
	free(directory);
	return problem != 0 ? 1 : 0;
}

static void note_existing_profile(const char *pattern)
{
	char *path = wrap_literal_path(pattern, strlen(pattern));

	if (path != NULL && access(path, F_OK) == 0)
		wrap_error("%s exists and is kept; the new profile gets the "
			   "next free numbered name", path);
	free(path);
}

/* The -o argument with %h expanded, and with the default name added when
 * it names a directory; NULL after saying what is wrong with it. */
static char *output_from_argument(const char *output, const char *command)
{
	char host[HOST_NAME_MAX + 1] = "localhost";
	char *expanded, *default_name, *inside;
	const char *problem;
	size_t length;

	if (gethostname(host, sizeof host) != 0)
		host[sizeof host - 1] = '\0';
	problem = *output == '\0' ? "empty file name"
		  : wrap_expand_host(output, host, &expanded);
	if (problem != NULL) {
		wrap_error("invalid output name '%s': %s", output, problem);
		return NULL;
	}
	if (!names_directory(expanded))
		return expanded;
	length = strlen(expanded);
	default_name = wrap_default_output(command);
	inside = wrap_format("%s%s%s", expanded,
			     expanded[length - 1] == '/' ? "" : "/",
			     default_name);
	free(default_name);
	free(expanded);
	return inside;
}

int wrap_output_pattern(const char *output, const char *command, bool quiet,
			char **pattern)
{
	char *target = output == NULL ? wrap_default_output(command)
		       : output_from_argument(output, command);
	int result;

	if (target == NULL)
		return 2;
	target = make_absolute(target);
	/* The runtime ignores a longer SPPROF_OUTPUT. */
	if (strlen(target) >= PATH_MAX) {
		wrap_error("invalid output name '%s': longer than %d bytes",
			   target, PATH_MAX - 1);
		free(target);
		return 2;
	}
	result = check_directory(target);
	if (result != 0) {
		free(target);
		return result;
	}
	if (!quiet)
		note_existing_profile(target);
	*pattern = target;
	return 0;
}
