/* wrap-manifest.c - the list of profiles the runtime writes.
 * See wrap-manifest.h for the contract. */
#include "config.h"

#include "wrap-manifest.h"
#include "wrap-util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The command printed for each profile. */
#define REPORT_COMMAND "memprof-report --top 20"

int wrap_manifest_create(struct wrap_manifest *manifest)
{
	const char *temporary = getenv("TMPDIR");
	int fd;

	if (temporary == NULL || temporary[0] != '/')
		temporary = "/tmp";
	manifest->directory = wrap_format("%s/memprof-wrap.XXXXXX", temporary);
	manifest->path = NULL;
	if (mkdtemp(manifest->directory) == NULL) {
		wrap_error("cannot create a directory in %s: %s", temporary,
			   strerror(errno));
		return 1;
	}
	manifest->path = wrap_format("%s/manifest", manifest->directory);
	fd = open(manifest->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		wrap_error("cannot create %s: %s", manifest->path,
			   strerror(errno));
		wrap_manifest_remove(manifest);
		return 1;
	}
	close(fd);
	return 0;
}

void wrap_manifest_remove(struct wrap_manifest *manifest)
{
	if (manifest->path != NULL)
		unlink(manifest->path);
	rmdir(manifest->directory);
	free(manifest->path);
	free(manifest->directory);
	manifest->path = manifest->directory = NULL;
}

/* One profile: the file it streams to, and its final name once written. */
struct profile {
	char *part;
	char *final;        /* NULL until finalised */
	char *exec_program; /* the image was replaced by exec of this */
	char *stopped;      /* why recording stopped early, or NULL */
	char *unwritten;    /* why the final file could not be written */
	bool exec_failed;   /* ... but that exec failed */
};

struct profile_list {
	struct profile *items;
	size_t count;
};

static struct profile *find_or_add(struct profile_list *list, const char *part)
{
	struct profile *grown;

	for (size_t i = 0; i < list->count; i++)
		if (strcmp(list->items[i].part, part) == 0)
			return &list->items[i];
	grown = realloc(list->items, (list->count + 1) * sizeof *grown);
	if (grown == NULL) {
		wrap_error("out of memory");
		exit(1);
	}
	list->items = grown;
	grown[list->count] = (struct profile){ .part = wrap_format("%s", part) };
	return &grown[list->count++];
}

/* Records what a line "KIND part<TAB>detail" says of a profile. */
static void set_detail(struct profile *profile, char kind, const char *detail)
{
	char **field = kind == 'F'   ? &profile->final
		       : kind == 'X' ? &profile->exec_program
		       : kind == 'E' ? &profile->stopped
		       : kind == 'W' ? &profile->unwritten
				     : NULL;

	if (field != NULL) {
		free(*field);
		*field = wrap_format("%s", detail);
	}
}

/* Lines come whole from single appends; a line without its newline is the
 * unfinished write of a process that died, and is skipped. */
static void read_manifest(FILE *stream, struct profile_list *list)
{
	char *line = NULL;
	size_t size = 0;
	ssize_t length;

	while ((length = getline(&line, &size, stream)) > 0) {
		char *tab;

		if (length < 3 || line[length - 1] != '\n' || line[1] != ' ')
			continue;
		line[length - 1] = '\0';
		if (line[0] == 'P') {
			find_or_add(list, line + 2);
		} else if (line[0] == 'N') {
			find_or_add(list, line + 2)->exec_failed = true;
		} else if ((tab = strchr(line, '\t')) != NULL) {
			*tab = '\0';
			set_detail(find_or_add(list, line + 2), line[0],
				   tab + 1);
		}
	}
	free(line);
}

char *wrap_shell_quote(const char *text)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789%+,-./:=@_";
	size_t quotes = 0;
	char *quoted, *out;

	if (*text != '\0' && text[strspn(text, safe)] == '\0')
		return wrap_format("%s", text);
	for (const char *p = strchr(text, '\''); p; p = strchr(p + 1, '\''))
		quotes++;
	/* Each ' becomes '\'' (close, escaped quote, reopen). */
	quoted = out = wrap_alloc(strlen(text) + 3 * quotes + 3);
	*out++ = '\'';
	for (; *text != '\0'; text++) {
		if (*text == '\'')
			out = stpcpy(out, "'\\'");
		*out++ = *text;
	}
	stpcpy(out, "'");
	return quoted;
}

/* PATH as the user would type it from the current directory CWD. */
static char *shown_path(const char *path, const char *cwd)
{
	size_t length = cwd != NULL ? strlen(cwd) : 0;
	const char *shown = path;
	char *word, *quoted;

	if (length > 1 && strncmp(path, cwd, length) == 0 &&
	    path[length] == '/')
		shown = path + length + 1;
	/* A name starting with '-' would read as an option. */
	word = shown[0] == '-' ? wrap_format("./%s", shown)
	       : wrap_format("%s", shown);
	quoted = wrap_shell_quote(word);
	free(word);
	return quoted;
}

/* What to say after the command that reads PROFILE (newly allocated). */
static char *profile_note(const struct profile *profile,
			  bool descendants_running)
{
	if (profile->final != NULL && profile->exec_program != NULL)
		return wrap_format(profile->exec_failed
					   ? "   # ended at an exec of %s that "
					     "failed; the process went on in "
					     "a new profile"
					   : "   # replaced by exec of %s",
				   profile->exec_program);
	if (profile->final != NULL)
		return wrap_format("%s", "");
	if (profile->stopped != NULL)
		return wrap_format("   # partial: recording stopped (%s)",
				   profile->stopped);
	if (profile->unwritten != NULL)
		return wrap_format("   # not finalised: the final file could "
				   "not be written (%s)",
				   profile->unwritten);
	if (descendants_running)
		return wrap_format("%s", "   # not finalised: its process "
					 "still runs or was killed");
	return wrap_format("%s", "   # partial: its process ended before "
				 "finalising");
}

static void print_profile(const struct profile *profile, const char *cwd,
			  bool descendants_running)
{
	char *shown = shown_path(profile->final != NULL ? profile->final
				 : profile->part, cwd);
	char *note = profile_note(profile, descendants_running);

	fprintf(stderr, "  %s %s%s\n", REPORT_COMMAND, shown, note);
	free(note);
	free(shown);
}

/* A profile not finalised counts only if its part file is there. */
static bool is_listed(const struct profile *profile)
{
	return profile->final != NULL || access(profile->part, F_OK) == 0;
}

void wrap_manifest_report(const struct wrap_manifest *manifest, bool quiet,
			  bool descendants_running)
{
	struct profile_list list = { NULL, 0 };
	FILE *stream = fopen(manifest->path, "re");
	char *cwd = getcwd(NULL, 0);
	size_t listed = 0;

	if (stream != NULL) {
		read_manifest(stream, &list);
		fclose(stream);
	}
	for (size_t i = 0; i < list.count; i++)
		listed += is_listed(&list.items[i]);
	if (listed == 0)
		wrap_error("no profile was written (the command ended before "
			   "any allocation was recorded, or it cleared "
			   "LD_PRELOAD or ran only statically linked programs)");
	else if (!quiet)
		wrap_error("%zu profile%s written; read %s with:", listed,
			   listed == 1 ? "" : "s", listed == 1 ? "it" : "them");
	/* Finalised profiles first, in the order their processes started;
	 * then those never finalised, which matter less. */
	for (int finalised = 1; finalised >= 0 && !quiet; finalised--) {
		for (size_t i = 0; i < list.count; i++) {
			const struct profile *profile = &list.items[i];

			if ((profile->final != NULL) == finalised &&
			    is_listed(profile))
				print_profile(profile, cwd,
					      descendants_running);
		}
	}
	for (size_t i = 0; i < list.count; i++) {
		free(list.items[i].part);
		free(list.items[i].final);
		free(list.items[i].exec_program);
		free(list.items[i].stopped);
		free(list.items[i].unwritten);
	}
	if (!quiet && descendants_running)
		wrap_error("some processes started by the command still run; "
			   "profiles they write later are not listed");
	free(list.items);
	free(cwd);
}
