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
 * the other; a block allocated by the C library before the store and
 * freed after reaches the runtime's free(), which passes pointers it
 * did not sample straight to the C library.  Objects loaded later keep
 * the C library's functions (their blocks are not sampled).
 *
 * Contract: late_binding_needed() is 1 when this copy of the runtime is
 * not the one the program's malloc calls reach; late_binding_apply()
 * rewrites the slots, and returns how many, or -1 on an architecture it
 * does not know (x86-64 and arm64 only).  Both run at load, under the
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

#endif /* SPPROF_LATE_BINDING_H */
