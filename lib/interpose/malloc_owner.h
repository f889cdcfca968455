/* malloc_owner.h - whose malloc the program's calls reach.
 *
 * Preloaded, the runtime's malloc family is meant to come first in symbol
 * lookup.  It does not when the executable defines malloc itself (as
 * chromium does, exporting PartitionAlloc's), or a library preloaded
 * before the runtime does (LD_PRELOAD=libjemalloc.so:libspprof-alloc.so):
 * the executable, then the preloaded objects in their order, come first,
 * and the first definition binds the calls of every object.  The
 * runtime then sees none of the program's allocations, and a profile
 * without samples would read as a program that does not allocate.
 *
 * Contract: malloc_owner_check() runs once, when the preloaded runtime is
 * loaded (a runtime loaded late rewrites the program's slots instead,
 * late_binding.h): it walks the loaded objects in lookup order up to the
 * runtime, looks up malloc and free in each one's dynamic symbol table,
 * and keeps the path of the first object that defines one.
 * malloc_owner_other() gives that path, or NULL when the runtime's
 * functions come first.  Nothing allocates.
 */
#ifndef SPPROF_MALLOC_OWNER_H
#define SPPROF_MALLOC_OWNER_H

void malloc_owner_check(void);
const char *malloc_owner_other(void);

#endif /* SPPROF_MALLOC_OWNER_H */
