/* tool_files.h - the runtime and the Python walker, as the tools find them.
 *
 * Contract: tool_file() stores in path (PATH_MAX bytes) and returns
 * <top_builddir>/relative when this process is the build tree's
 * src/PROGRAM (or the binary libtool keeps behind it, src/.libs/PROGRAM
 * or src/.libs/lt-PROGRAM) and that file is readable there, so that the
 * build works before installation; else it returns `installed` when that
 * is readable; else NULL.  An empty `relative` or `installed` is never
 * taken.  SPPROF_RUNTIME, which names another runtime, is the caller's to
 * honour first.
 */
#ifndef SPPROF_TOOL_FILES_H
#define SPPROF_TOOL_FILES_H

/* The runtime's file name, and where the build tree makes it. */
#define TOOL_FILES_RUNTIME "libspprof-alloc.so.0"
#define TOOL_FILES_RUNTIME_BUILT "lib/.libs/" TOOL_FILES_RUNTIME

const char *tool_file(const char *program, const char *relative,
		      const char *installed, char *path);

#endif /* SPPROF_TOOL_FILES_H */
