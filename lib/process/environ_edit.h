/* environ_edit.h - changes to the environment that allocate nothing.
 *
 * Contract: the runtime changes its process's environment once, at load
 * (before main()), for the programs it executes.  setenv() would take a
 * block from the program's heap for it, so that the program would start
 * with a heap it does not have bare.  environ_put(entry) makes entry
 * ("NAME=value", which the caller keeps for the life of the process) the
 * value of NAME: it takes the place of the first NAME entry, or is added
 * to a copy of the table, one entry longer, in the runtime's own memory
 * (the C library copies such a table when the program adds a variable,
 * and never frees it).  environ_remove(name) drops every NAME entry.
 * Neither takes the C library's environment lock: called only while the
 * process is at load, as setenv() would be.  environ_put returns 0, or
 * -1 when no memory could be had.
 */
#ifndef SPPROF_ENVIRON_EDIT_H
#define SPPROF_ENVIRON_EDIT_H

int environ_put(const char *entry);
void environ_remove(const char *name);

#endif /* SPPROF_ENVIRON_EDIT_H */
