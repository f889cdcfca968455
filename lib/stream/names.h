/* names.h - interned names for script frames and markers.
 *
 * Contract: two tables, files and functions, each mapping a byte string
 * to a small id that never changes (ids count up from 0 in each table).
 * Interning runs on the sampling slow path under a short spin lock (the
 * re-entrancy guard keeps a thread from ever waiting on itself) and never
 * allocates: names live in an mmap'd arena.  Names are stored with a
 * terminating NUL; an empty or overlong name is replaced by a placeholder.
 */
#ifndef SPPROF_NAMES_H
#define SPPROF_NAMES_H

#include <stddef.h>
#include <stdint.h>

enum string_table { STRINGS_FILES = 0, STRINGS_FUNCTIONS = 1 };

#define STRING_ID_NONE UINT32_MAX
#define STRINGS_MAX (1u << 20) /* per table; ids fit in 20 bits */

int strings_init(void);

/* The id of this name, or STRING_ID_NONE when the table is full. */
uint32_t strings_intern(enum string_table table, const char *name,
			size_t len);

uint32_t strings_count(enum string_table table);
const char *strings_get(enum string_table table, uint32_t id);

/* In the child after fork(): the lock is not held across fork() (a
 * thread that waits for it may hold a lock fork() takes), so the child
 * frees it for the thread that held it, which the child lacks. */
void strings_after_fork(void);

#endif /* SPPROF_NAMES_H */
