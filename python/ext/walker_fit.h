/* walker_fit.h - whether the Python frame walker may read the frames of
 * the interpreter it runs in.
 *
 * Contract: the walker reads CPython's frame records in place, and their
 * layout changes from one minor version to the next, so it reads only
 * those of the very CPython it was built for, and only of the versions
 * whose layout it knows (3.11 to 3.14).  A free-threaded build (3.13t,
 * 3.14t: Py_GIL_DISABLED) lays its objects out differently and has no GIL
 * to keep other threads off the objects the walker reads: it is never
 * read, whether the walker was built for it or for the ordinary build of
 * the same version.  walker_refusal() decides from plain numbers, so that
 * it can be tested without any interpreter.
 */
#ifndef SPPROF_PYTHON_WALKER_FIT_H
#define SPPROF_PYTHON_WALKER_FIT_H

#include <stddef.h>

/* The minor versions of CPython 3 whose frame records the walker knows. */
#define WALKER_FIRST_MINOR 11
#define WALKER_LAST_MINOR 14

struct python_build {
	unsigned long version; /* as PY_VERSION_HEX: 0x030D00F0 is 3.13.0 */
	int free_threaded;     /* built with Py_GIL_DISABLED */
};

/* NULL when a walker built for `built` may read the frames of `running`;
 * else the reason it may not, one line written into why[size] (and
 * returned), naming both interpreters. */
const char *walker_refusal(struct python_build built,
			   struct python_build running, char *why,
			   size_t size);

#endif /* SPPROF_PYTHON_WALKER_FIT_H */
