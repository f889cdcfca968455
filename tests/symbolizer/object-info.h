/* object-info.h - what the dynamic linker knows about a loaded object.
 *
 * Contract: for any address inside a loaded ELF object, its load bias and
 * its GNU build-id, read from the process's own memory through
 * dl_iterate_phdr.  The symbolizer tests compute expected ELF addresses
 * with it, independently of the symbolizer's own ELF reading.
 */
#ifndef SPPROF_TESTS_OBJECT_INFO_H
#define SPPROF_TESTS_OBJECT_INFO_H

#include <stdint.h>

struct object_info {
	const char *path; /* "" for the main program */
	uintptr_t load_bias;
	char build_id[129]; /* lowercase hex, "" when the object has none */
};

/* Returns 0 and fills *info for the object holding `address`, or -1. */
int object_info_find(const void *address, struct object_info *info);

/* `address` as an ELF virtual address of its object, or 0 when unknown. */
uintptr_t object_offset(const void *address);

#endif
