/* modules.h - the map of loaded ELF modules, for raw native frames.
 *
 * Contract: an append-only list of the modules (executable, shared
 * libraries, vDSO) seen in this process: the address range of their
 * PT_LOAD segments, load bias, GNU build-id and path.  A module's id is its
 * position in the list and never changes.  modules_refresh() adds modules
 * loaded since the last call (dl_iterate_phdr); it takes the dynamic
 * linker's lock, so it must never be called while the runtime holds a lock
 * that a sampled allocation or free may wait for, and it gives up after
 * a short wait for a refresh under way on another thread.  Memory comes
 * from mmap.
 */
#ifndef SPPROF_MODULES_H
#define SPPROF_MODULES_H

#include <stddef.h>
#include <stdint.h>

#define MODULE_BUILD_ID_MAX 64

struct module {
	uintptr_t start, end; /* [start, end) covers every PT_LOAD segment */
	uintptr_t load_bias;
	uint8_t build_id[MODULE_BUILD_ID_MAX];
	uint32_t build_id_len;
	const char *path;
};

int modules_init(void);
void modules_refresh(void);
/* In the child after fork(): a refresh another thread had under way is
 * forgotten. */
void modules_after_fork(void);
uint32_t modules_count(void);
const struct module *modules_get(uint32_t id);

/* The id of the newest module covering address, or -1. */
long modules_find(uintptr_t address);

#endif /* SPPROF_MODULES_H */
