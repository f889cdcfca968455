/* code_map.h - where the machine code of the loaded objects lies.
 *
 * Contract: code_map_return_kind() tells whether an address can be a
 * return address: whether it lies in an executable PT_LOAD segment of an
 * object loaded in this process (past the segment's first byte, up to and
 * including its end, since a call may be a segment's last instruction),
 * and whether that object keeps frame pointers.
 * The stack walk records only such addresses, so a stray value found
 * where a return address should be ends the walk instead of entering the
 * profile.
 *
 * The common case is a lock-free binary search in a sorted array of the
 * segments.  An address not found there makes the caller check, on a cold
 * path, whether objects were loaded or unloaded since the array was built
 * (the dynamic linker's counters, read through dl_iterate_phdr, which
 * takes the linker's lock but never waits for the runtime) and rebuild the
 * array if so.  Where the C library has _dl_find_object, an address in no
 * loaded object, or in one whose code the array already has, is turned
 * down without that lock.  An unloaded object's code stays in the array
 * until the next rebuild: an object loaded at its place meanwhile is
 * taken for it (its kind too), and otherwise only a stray value could
 * point there.
 * One thread rebuilds at a time; another thread's lookup of an address
 * that is not yet in the array meanwhile answers no.  Never allocates: the
 * array is mapped on first use.
 */
#ifndef SPPROF_CODE_MAP_H
#define SPPROF_CODE_MAP_H

#include <stdint.h>

enum code_kind {
	NOT_CODE,
	CODE_WITHOUT_FRAME_POINTERS,
	CODE_WITH_FRAME_POINTERS, /* see keeps_frame_pointers.h */
};

/* What a return address points into; NOT_CODE when it cannot be one. */
enum code_kind code_map_return_kind(uintptr_t address);

struct code_info {
	enum code_kind kind;
	uintptr_t eh_frame_hdr; /* the object's .eh_frame_hdr, or 0 */
};

/* The same, with where the object's unwind tables are. */
struct code_info code_map_lookup(uintptr_t address);

/* Changes whenever the array is rebuilt: what was learnt of an address
 * under another generation may be of an object since unloaded. */
uint32_t code_map_generation(void);

/* The executable segment of the object containing `code`: 0 and
 * [*lo, *hi) set, or -1 when no loaded object contains it.  Asks the
 * dynamic linker (dl_iterate_phdr) every time: for start-up, not for the
 * sampled path. */
int code_range_of(const void *code, uintptr_t *lo, uintptr_t *hi);

/* In a child after fork(): a rebuild that another thread of the parent
 * had under way is abandoned, and the next miss rebuilds. */
void code_map_after_fork(void);

#endif /* SPPROF_CODE_MAP_H */
