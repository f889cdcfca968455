/* ctl-entry.h - a registry entry as read from its file, checked.
 *
 * Contract: ctl_entry_parse() takes the bytes of a registry entry file
 * (control_page.h), which the process's user writes and may have forged,
 * and accepts them only when they are a whole page of this version for
 * process `pid` (the entry's name): the magic and version, the pid, a
 * known state, every text field ended by a NUL inside its array, the
 * stream's name absolute (or empty).  It copies the page into *out, or
 * says in why what is wrong.  It makes no system call, so that it can be
 * fed any bytes of any length (tests/fuzz/fuzz-registry-entry.c).
 * Whether the file, the directory and the process belong to one user is
 * checked around it, in ctl-registry.c.
 */
#ifndef SPPROF_CTL_ENTRY_H
#define SPPROF_CTL_ENTRY_H

#include <stddef.h>

#include "control_page.h"

/* 0, or -1 with why set. */
int ctl_entry_parse(const void *bytes, size_t size, long pid,
		    struct control_page *out, char *why, size_t why_size);

/* A text field of a page, which another process may be writing: copied
 * into out up to its first NUL or the end of the field, whichever comes
 * first. */
void ctl_entry_text(const char *field, size_t field_size, char *out,
		    size_t size);

#endif /* SPPROF_CTL_ENTRY_H */
