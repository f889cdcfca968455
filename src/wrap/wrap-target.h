/* wrap-target.h - what COMMAND really is, checked before it runs.
 *
 * Contract: wrap_resolve_command() finds COMMAND the way execvp() does (a
 * PATH search unless the name holds a slash).  wrap_check_target() makes sure
 * the runtime can be preloaded into what will run: a dynamically linked ELF
 * program of the runtime's architecture, or a #! script (or a plain shell
 * script) whose interpreter is one.  Both print the problem themselves and
 * return the status to exit with (127 not found, 126 cannot be executed,
 * 1 cannot be profiled); 0 means go on.
 */
#ifndef SPPROF_WRAP_TARGET_H
#define SPPROF_WRAP_TARGET_H

/* On success store the path to execute in *PATH (newly allocated). */
int wrap_resolve_command(const char *command, char **path);

int wrap_check_target(const char *path, const char *runtime);

#endif
