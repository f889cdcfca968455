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

/* Print "memprof-wrap: <message>\n" on stderr, as wrap_show() does. */
void wrap_error(const char *format, ...)
	__attribute__((format(printf, 1, 2)));

/* Print PREFIX, TEXT and a newline on stderr in one write, with every
 * byte of TEXT a terminal would take for a command escaped as wrap_escape()
 * does: a line can hold what other programs sent (paths, messages). */
void wrap_show(const char *prefix, const char *text);

/* TEXT (newly allocated) with "\xNN" in place of each byte of a C0
 * control but the tab, DEL, a C1 control (0x80-0x9f, or encoded in
 * UTF-8), a character that reorders text (bidirectional controls), and
 * each byte that is not part of valid UTF-8. */
char *wrap_escape(const char *text);

/* Return SIZE bytes of newly allocated memory. */
void *wrap_alloc(size_t size);

/* Return a newly allocated string built like printf. */
char *wrap_format(const char *format, ...)
	__attribute__((format(printf, 1, 2)));

#endif
