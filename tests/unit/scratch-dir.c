/* scratch-dir.c - a directory of its own for the files of a unit test
 * (see scratch-dir.h). */
#include "config.h"

#include "scratch-dir.h"

#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEMPLATE_TAIL "XXXXXX"

void scratch_dir_make(char *dir)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

void scratch_dir_remove(char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
	memcpy(dir + strlen(dir) - strlen(TEMPLATE_TAIL), TEMPLATE_TAIL,
	       strlen(TEMPLATE_TAIL));
}
