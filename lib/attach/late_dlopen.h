/* late_dlopen.h - the dlopen() of a program the runtime was loaded into
 * late (memprof-ctl attach).
 *
 * Objects a program loads after the attach are bound to the allocator
 * like the others were, and would keep it: their allocations unsampled,
 * and their free() handing a block the runtime sampled (from its own
 * pool, or carved out of a larger one) to the allocator, which would
 * crash the program.  So the late runtime rewrites the program's dlopen()
 * slots too (late_binding.h) to late_dlopen(), which loads the object as
 * the program's own call would have, then rewrites the slots of every
 * object loaded since (late_binding_refresh()) before the caller gets the
 * handle, and so before any of the new object's functions but its
 * constructors runs.
 *
 * "As the program's own call would have": dlopen() of a name without a
 * '/' searches the run paths (DT_RPATH, DT_RUNPATH) of the object that
 * calls it, which the C library finds by the caller's return address, so
 * a plain call from the runtime would search the runtime's.
 * late_dlopen() returns an object already loaded under that name; else
 * tries the name in each directory of the caller's search path
 * (dlinfo(RTLD_DI_SERINFO)) before the system's, which are its run paths
 * and LD_LIBRARY_PATH in the loader's order; else leaves the name to
 * dlopen() (its cache and the system's directories).  A file name with a $ORIGIN in it is
 * expanded for the runtime's directory, not the caller's; a caller in a
 * namespace of dlmopen() gets the base namespace.
 *
 * Contract: the same arguments, result and dlerror() as dlopen().  Not
 * exported: only the rewritten slots lead to it, so a preloaded runtime
 * leaves dlopen() alone.
 */
#ifndef SPPROF_LATE_DLOPEN_H
#define SPPROF_LATE_DLOPEN_H

void *late_dlopen(const char *file, int mode);

/* dlopen() as called from the code at `caller` (a return address), by
 * the search described above, without rewriting any slot; for the
 * dlopen() a preloaded runtime exports (interpose_dlopen.c). */
void *dlopen_for(const void *caller, const char *file, int mode);

#endif /* SPPROF_LATE_DLOPEN_H */
