/* late_binding.h - the runtime's allocator functions for a program that
 * loaded it with dlopen() (memprof-ctl attach).
 *
 * Preloaded, the runtime's malloc family wins symbol lookup.  Loaded
 * late, every object has bound its calls already to the C library, so
 * the runtime rewrites them: in each loaded object but itself, every
 * relocated slot (PLT and GOT: JUMP_SLOT and GLOB_DAT) that names a
 * function the runtime defines (the malloc family, _exit, exec, set*id)
 * gets the runtime's function instead.  Each slot is one aligned word,
 * stored at once, so a thread calling through it meanwhile gets one or
 * the other; a block allocated before the store and freed after reaches
 * the runtime's free(), which passes pointers it did not sample straight
 * to the allocator.  That allocator is the one the slots led to before:
 * a program may allocate with another one than the C library's
 * (jemalloc, tcmalloc, mimalloc... preloaded, linked, or built into the
 * executable and exported), so before rewriting, the runtime reads where
 * the malloc family's slots lead; when all lead into one object other
 * than the C library, the runtime's `real` allocator becomes that
 * object's functions (real_alloc_take_from()).  Slots leading into
 * several allocators cannot be served by one runtime: then nothing is
 * rewritten.  A word of data the loader set to a function of the malloc
 * family (a hook variable: void *(*alloc)(size_t) = malloc;) is the
 * program's to change, as Python's decimal sets libmpdec's to
 * PyMem_Malloc: it says nothing of the allocator, and is rewritten only
 * while it still holds the allocator's function.  Objects loaded later
 * get the same treatment when the program loads them (late_dlopen.h).
 *
 * Contract: late_binding_needed() is 1 when this copy of the runtime is
 * not the one the program's malloc calls reach; late_binding_apply()
 * rewrites the slots, and returns how many, or -1 when it rewrote none
 * (several allocators, one that lacks a function of the family, an
 * architecture it does not know: x86-64 and arm64 only), with
 * late_binding_refusal() saying why.  Both run at load, under the
 * loader's lock, before the caller of dlopen() continues.
 * late_binding_applied() says whether they did, for the label of each
 * recording window (STARTED_BY_ATTACH): the blocks allocated before the
 * load are unknown to every window.
 */
#ifndef SPPROF_LATE_BINDING_H
#define SPPROF_LATE_BINDING_H

#define STARTED_BY_ATTACH "memprof-ctl attach"

int late_binding_needed(void);
int late_binding_apply(void);
int late_binding_applied(void);
/* After late_binding_apply(), rewrites the slots of the objects loaded
 * since (see late_dlopen.h), but for those bound to another allocator
 * than the one the runtime passes calls on to; returns how many.
 * Needs no lock of the loader's but dl_iterate_phdr()'s. */
int late_binding_refresh(void);
/* For a preloaded runtime, after a library was opened with RTLD_DEEPBIND,
 * which binds its calls to the C library's malloc family past the
 * runtime's, so that its free() would get blocks the runtime sampled
 * (from its pool, or carved out of larger ones) and crash the program:
 * rewrites every slot of the malloc family that leads to the C library's
 * function to the runtime's (a library with an allocator of its own
 * keeps it).  How many, or -1 (an architecture it does not know). */
int late_binding_rebind_deep(void);
/* Why late_binding_apply() failed: "the program allocates with A and
 * with B"... */
const char *late_binding_refusal(void);

#endif /* SPPROF_LATE_BINDING_H */
