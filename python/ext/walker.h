/* walker.h - Python frames for the samples of libspprof-alloc.
 *
 * Contract: python_attach_walker() installs a frame walker in the runtime
 * (memprof_set_frame_walker) that reports the calling thread's Python
 * stack, innermost first, as file, function (qualified name) and line.
 * The walker reads CPython's frame chain in place: it creates no object,
 * takes no lock, runs no Python code and never allocates, so the runtime
 * may call it from inside a malloc hook.  It reports nothing (native
 * frames only) unless the interpreter is initialised and not finalising,
 * the walker can read this interpreter's frames (walker_fit.h), and
 * the thread either holds the GIL of the main interpreter or is the main
 * thread (which may have released the GIL around a large allocation).
 *
 * The module also exports memprof_python_attach(), the entry point the
 * runtime calls when SPPROF_PYTHON_WALKER names this module, so that a
 * program started by memprof-wrap gets Python frames without importing
 * anything, and memprof_python_refusal(), which says why it did not.
 */
#ifndef SPPROF_PYTHON_WALKER_H
#define SPPROF_PYTHON_WALKER_H

/* 0, or -1 with errno (ENOTSUP: python_walker_refusal() says why). */
int python_attach_walker(void);

/* NULL when the walker can read the frames of the interpreter it is
 * loaded into, else why not (one line naming both; see walker_fit.h). */
const char *python_walker_refusal(void);

#endif /* SPPROF_PYTHON_WALKER_H */
