/* ctl-text.h - text from other users, made safe to show.
 *
 * Contract: ctl_escaped() copies text a process's user chose (an answer,
 * a file name, a command line, a message quoting them) into out for a
 * terminal or a log: printable ASCII and valid UTF-8 characters other
 * than C1 controls pass unchanged; a control character (C0, DEL, C1
 * 0x80-0x9f), a byte that starts no valid UTF-8 character, and the
 * backslash itself are written as \xNN (\\ for the backslash), so that
 * nothing the user wrote can move the cursor, retitle the terminal or
 * pass for a byte it is not.  The result is cut at size, never inside
 * an escape; it returns out.  What a terminal shows as it is, is
 * utf8.h's rule.
 */
#ifndef SPPROF_CTL_TEXT_H
#define SPPROF_CTL_TEXT_H

#include <stddef.h>

/* The worst case: every byte becomes four. */
#define CTL_ESCAPED_SIZE(n) (4 * (n) + 1)

const char *ctl_escaped(const char *text, char *out, size_t size);

#endif /* SPPROF_CTL_TEXT_H */
