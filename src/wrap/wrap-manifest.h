/* wrap-manifest.h - the list of profiles the runtime writes.
 *
 * Contract: wrap_manifest_create() makes a private directory holding an
 * empty manifest, whose path goes to the runtime in SPPROF_MANIFEST.  Each
 * profiled process appends "P <part path>\n" when it starts streaming and
 * "F <part path>\t<final path>\n" once it has finalised; "X <part>\t<program>"
 * when an exec replaced its image ("N <part>" when that exec failed), "E <part>\t<reason>" when recording
 * stopped early (lib/profile_files.h).
 * wrap_manifest_report() reads it and lists on stderr every profile with
 * the memprof-report command that reads it, marking those never finalised;
 * wrap_manifest_remove() deletes the manifest and its directory.
 */
#ifndef SPPROF_WRAP_MANIFEST_H
#define SPPROF_WRAP_MANIFEST_H

#include <stdbool.h>

struct wrap_manifest {
	char *directory;
	char *path;
};

/* 0 on success; otherwise print the problem and return 1. */
int wrap_manifest_create(struct wrap_manifest *manifest);

/* QUIET keeps only the warning that no profile was written.
 * DESCENDANTS_RUNNING: some processes of the command have not ended, so a
 * profile not finalised may still be in the making. */
void wrap_manifest_report(const struct wrap_manifest *manifest, bool quiet,
			  bool descendants_running);

void wrap_manifest_remove(struct wrap_manifest *manifest);

/* TEXT as one word for a POSIX shell (newly allocated). */
char *wrap_shell_quote(const char *text);

#endif
