/* loaded_objects.h - the objects the dynamic linker has loaded.
 *
 * Contract: the runtime's one way to walk the loaded objects (the
 * program, its libraries, the vDSO) and their program headers.
 * loaded_objects_each() and loaded_objects_counts() take the dynamic
 * linker's lock (through dl_iterate_phdr), which a thread of the program
 * may hold while it allocates: never call them while holding a lock that
 * a sampled allocation or free may wait for.  object_next_segment() only
 * reads the headers it is given.  Nothing allocates.
 */
#ifndef SPPROF_LOADED_OBJECTS_H
#define SPPROF_LOADED_OBJECTS_H

#include <link.h>
#include <stdint.h>

/* Calls visit for each loaded object, in the order symbol lookup searches
 * them, until it returns non-zero; returns that value, or 0.  The main
 * program's name is "". */
typedef int loaded_object_visit(const struct dl_phdr_info *object,
				void *data);
int loaded_objects_each(loaded_object_visit *visit, void *data);

/* 1 and how many objects the dynamic linker has loaded and unloaded so
 * far, or 0 when it does not count them (before glibc 2.4). */
int loaded_objects_counts(unsigned long long *adds, unsigned long long *subs);

/* A segment of a loaded object, where it lies in this process. */
struct object_segment {
	uintptr_t start;
	uintptr_t end;      /* start + its size in memory */
	uintptr_t file_end; /* start + its size in the file */
	uint32_t flags;     /* PF_X, PF_W, PF_R */
};

/* The object's next segment of program-header type `type` (PT_LOAD,
 * PT_NOTE, ...) from header *next on: 1, *segment set and *next moved past
 * it, or 0 when there is none.  Start with *next = 0. */
int object_next_segment(const struct dl_phdr_info *object, uint32_t type,
			int *next, struct object_segment *segment);

/* The object's dynamic section, or NULL when it has none. */
const ElfW(Dyn) *object_dynamic_section(const struct dl_phdr_info *object);

/* The address an entry of the dynamic section gives (DT_SYMTAB...):
 * absolute once the loader has adjusted it (glibc does so on most
 * architectures), else relative to the object's base. */
uintptr_t object_dynamic_address(ElfW(Addr) value, uintptr_t base);

#endif /* SPPROF_LOADED_OBJECTS_H */
