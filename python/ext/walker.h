/* walker.h - Python frames for the samples of libspprof-alloc.
 *
 * Contract: python_attach_walker() installs a frame walker in the runtime
 * (memprof_set_frame_walker) that reports the calling thread's Python
 * stack, innermost first, as file, function (qualified name) and line.
 * The walker reads CPython's frame chain in place: it creates no object,
 * takes no lock, runs no Python code and never allocates, so the runtime
 * may call it from inside a malloc hook.  It reports nothing (native
 * frames only) unless the interpreter is initialised and not finalising,
 * this CPython version is one whose frame layout the walker knows, and
 * the thread either holds the GIL of the main interpreter or is the main
 * thread (which may have released the GIL around a large allocation).
 *
 * The module also exports memprof_python_attach(), the entry point the
 * runtime calls when SPPROF_PYTHON_WALKER names this module, so that a
 * program started by memprof-wrap gets Python frames without importing
 * anything.
 */
#ifndef SPPROF_PYTHON_WALKER_H
#define SPPROF_PYTHON_WALKER_H

/* 0, or -1 with errno (ENOTSUP: this CPython version is not supported). */
int python_attach_walker(void);

/* Whether this build knows the frame layout of the CPython it targets. */
int python_walker_supported(void);

#endif /* SPPROF_PYTHON_WALKER_H */
