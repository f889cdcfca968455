/* small_objects.h - Python's small objects through malloc, for a while.
 *
 * A process started with PYTHONMALLOC=malloc (memprof-wrap
 * --python-allocators=malloc, the plugin, the spprof-mem kernel) has its
 * every object allocated by malloc, where the runtime samples it.  One
 * started normally serves objects of 512 bytes or less from pymalloc's
 * arenas, which CPython maps itself: the runtime never sees them.
 *
 * Contract: small_objects_route(1) makes the object and memory domains
 * (PyObject_Malloc, PyMem_Malloc) allocate with malloc from then on, and
 * small_objects_route(0) gives them back their allocator; both with the
 * GIL held, which every call into those domains holds too.  Blocks keep
 * being freed and resized by the allocator there was before, since
 * pymalloc hands a block it did not carve out to PyMem_RawFree and
 * PyMem_RawRealloc, that is, to free() and realloc(): so blocks of
 * either origin may be freed whichever allocator is installed.  Only for
 * pymalloc itself: the caller checks that no debug hooks are installed
 * (they expect their own header on every block).
 */
#ifndef SPPROF_PY_SMALL_OBJECTS_H
#define SPPROF_PY_SMALL_OBJECTS_H

void small_objects_route(int through_malloc);

#endif /* SPPROF_PY_SMALL_OBJECTS_H */
