/* symbolizer-debugfile.c - finding the separate debug file of a module.
 *
 * Contract: see symbolizer-internal.h.  The layout is the one distributions
 * and debuggers share: <root>/.build-id/xx/rest.debug, and for
 * .gnu_debuglink the module's directory, its .debug/ subdirectory and
 * <root>/<module's directory>/, where the roots are the caller's debug
 * directories, then /usr/lib/debug (<sysroot>/usr/lib/debug when there is
 * a sysroot: never this system's files for another system's modules).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer-internal.h"

#define SYSTEM_DEBUG_ROOT "/usr/lib/debug"

/* The i-th debug root in search order (malloc'd), or NULL past the end.
 * With a sysroot, the profile's modules are another system's: this
 * system's debug files are never theirs, so /usr/lib/debug is searched
 * under the sysroot only. */
static char *debug_root(const struct debug_search *search, size_t i)
{
	char *root;

	if (i < search->n_debug_dirs)
		return strdup(search->debug_dirs[i]);
	if (i > search->n_debug_dirs)
		return NULL;
	if (search->sysroot == NULL)
		return strdup(SYSTEM_DEBUG_ROOT);
	return asprintf(&root, "%s" SYSTEM_DEBUG_ROOT, search->sysroot) < 0
		       ? NULL
		       : root;
}

/* Open `path` if it is the debug file with build-id `build_id_hex`: a stale
 * link in a .build-id tree must not lend foreign symbols. */
static int open_if_build_id_matches(struct elf_file *out, const char *path,
				    const char *build_id_hex)
{
	char found[BUILD_ID_HEX_SIZE];
	const char *problem;

	if (elf_file_open(out, path, &problem) != 0)
		return -1;
	if (elf_file_build_id(out, found, sizeof found) == 0 &&
	    strcmp(found, build_id_hex) == 0)
		return 0;
	elf_file_close(out);
	return -1;
}

int debug_file_by_build_id(const struct debug_search *search,
			   const char *build_id_hex, struct elf_file *out)
{
	char *root, *path;

	for (size_t i = 0; (root = debug_root(search, i)) != NULL; i++) {
		int found = -1;

		if (asprintf(&path, "%s/.build-id/%.2s/%s.debug", root,
			     build_id_hex, build_id_hex + 2) >= 0) {
			found = open_if_build_id_matches(out, path,
							 build_id_hex);
			free(path);
		}
		free(root);
		if (found == 0)
			return 0;
	}
	return -1;
}

/* Length of the directory part of `path` (without the final '/'). */
static int directory_length(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash == NULL ? -1 : (int)(slash - path);
}

/* The i-th place .gnu_debuglink's `name` may be at (malloc'd), or NULL
 * past the end. */
static char *debuglink_candidate(const struct debug_search *search,
				 const char *disk_path,
				 const char *module_path, const char *name,
				 size_t i)
{
	int disk_dir = directory_length(disk_path);
	int module_dir = directory_length(module_path);
	char *candidate = NULL, *root;
	int n;

	if (i < 2) {
		if (disk_dir < 0)
			n = asprintf(&candidate, "%s%s", i == 0 ? "" : ".debug/",
				     name);
		else
			n = asprintf(&candidate, "%.*s/%s%s", disk_dir,
				     disk_path, i == 0 ? "" : ".debug/", name);
		return n < 0 ? NULL : candidate;
	}
	root = debug_root(search, i - 2);
	if (root == NULL)
		return NULL;
	n = asprintf(&candidate, "%s/%.*s/%s", root,
		     module_dir < 0 ? 0 : module_dir, module_path, name);
	free(root);
	return n < 0 ? NULL : candidate;
}

/* 0 when `candidate` is the debug file; remembers in *rejected the first
 * candidate that exists but whose CRC differs. */
static int open_if_crc_matches(struct elf_file *out, const char *candidate,
			       const char *module_path_on_disk, uint32_t crc,
			       char **rejected)
{
	const char *problem;
	uint32_t found;

	if (strcmp(candidate, module_path_on_disk) == 0 ||
	    elf_file_open(out, candidate, &problem) != 0)
		return -1;
	if (elf_file_crc32(out, &found) == 0 && found == crc)
		return 0;
	elf_file_close(out);
	if (*rejected == NULL)
		*rejected = strdup(candidate);
	return -1;
}

int debug_file_by_debuglink(const struct debug_search *search,
			    const struct elf_file *module,
			    const char *module_path, struct elf_file *out,
			    char **rejected)
{
	const char *name;
	char *candidate;
	uint32_t crc;

	/* A name with a directory in it could point anywhere. */
	if (elf_file_debuglink(module, &name, &crc) != 0 ||
	    strchr(name, '/') != NULL)
		return -1;
	for (size_t i = 0; (candidate = debuglink_candidate(
				    search, module->path, module_path, name,
				    i)) != NULL;
	     i++) {
		int found = open_if_crc_matches(out, candidate, module->path,
						crc, rejected);

		free(candidate);
		if (found == 0)
			return 0;
	}
	return -1;
}
