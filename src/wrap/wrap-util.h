/* wrap-util.h - messages and string building shared by memprof-wrap.
 *
 * Contract: every message goes to stderr, prefixed with the program name.
 * The string builders never return NULL: memprof-wrap is a short-lived
 * command, so running out of memory ends it with status 1 and a message.
 */
#ifndef SPPROF_WRAP_UTIL_H
#define SPPROF_WRAP_UTIL_H

#include <stddef.h>

#define WRAP_PROGRAM "memprof-wrap"

/* Print "memprof-wrap: <message>\n" on stderr. */
void wrap_error(const char *format, ...)
	__attribute__((format(printf, 1, 2)));

/* Return SIZE bytes of newly allocated memory. */
void *wrap_alloc(size_t size);

/* Return a newly allocated string built like printf. */
char *wrap_format(const char *format, ...)
	__attribute__((format(printf, 1, 2)));

#endif
