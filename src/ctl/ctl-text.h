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
 * an escape; it returns out.  ctl_utf8_length() is its decoder, for
 * other escapers (Prometheus labels).
 */
#ifndef SPPROF_CTL_TEXT_H
#define SPPROF_CTL_TEXT_H

#include <stddef.h>

/* The worst case: every byte becomes four. */
#define CTL_ESCAPED_SIZE(n) (4 * (n) + 1)

const char *ctl_escaped(const char *text, char *out, size_t size);

/* The length of the UTF-8 character at s (of n bytes, n >= 1), or 0
 * when s starts with none (a stray byte, an overlong form, a
 * surrogate). */
size_t ctl_utf8_length(const unsigned char *s, size_t n);

#endif /* SPPROF_CTL_TEXT_H */
