/* walker.c - the CPython frame walker (see walker.h). */
#define PY_SSIZE_T_CLEAN
/* The frame chain is declared only in the internal headers, which need
 * the whole of Python.h in its core flavour. */
#define Py_BUILD_CORE 1
#include <Python.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include <spprof/memprof.h>

#include "walker.h"
#include "walker_fit.h"

/* The versions walker_fit.h names run Python functions on a chain of
 * _PyInterpreterFrame records, read here; a free-threaded build is
 * refused before anything is read. */
#if PY_MAJOR_VERSION == 3 && PY_MINOR_VERSION >= WALKER_FIRST_MINOR && \
	PY_MINOR_VERSION <= WALKER_LAST_MINOR && !defined(Py_GIL_DISABLED)
#define WALKER_SUPPORTED 1
#else
#define WALKER_SUPPORTED 0
#endif

#ifdef Py_GIL_DISABLED
#define BUILT_FREE_THREADED 1
#else
#define BUILT_FREE_THREADED 0
#endif

/* The version of the interpreter this module is loaded into, which the
 * runtime may load it into whatever its version: Py_GetVersion()
 * ("3.13.0 (main, ...)") is in every CPython 3, and needs no
 * initialised interpreter (Py_Version is not in those before 3.11). */
static unsigned long running_version(void)
{
	unsigned major, minor;

	if (sscanf(Py_GetVersion(), "%u.%u", &major, &minor) != 2)
		return 0;
	return (unsigned long)major << 24 | (unsigned long)minor << 16;
}

/* Only free-threaded builds define the function their Py_DECREF calls
 * when a thread drops the last of its local references to an object
 * (3.13t on); the interpreter's symbols are global, so it can be looked
 * up before the interpreter is initialised. */
static int running_free_threaded(void)
{
	return dlsym(RTLD_DEFAULT, "_Py_MergeZeroLocalRefcount") != NULL;
}

const char *python_walker_refusal(void)
{
	/* Written at load or under the GIL, the same text every time. */
	static char why[256];
	struct python_build built = { PY_VERSION_HEX, BUILT_FREE_THREADED };
	struct python_build running = { running_version(),
					running_free_threaded() };

	return walker_refusal(built, running, why, sizeof(why));
}

#if WALKER_SUPPORTED
/* CPython's internal headers are not written for -Wextra (3.14's leave
 * parameters unused). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <internal/pycore_frame.h>
#include <internal/pycore_runtime.h>
#if PY_VERSION_HEX >= 0x030E0000
/* 3.14 moved the frame's functions out of pycore_frame.h. */
#include <internal/pycore_interpframe.h>
#endif
#pragma GCC diagnostic pop

/* The functions whose names change from one version to the next are
 * referred to weakly, so that this module still loads into an interpreter
 * of another version, which lacks them, to say that it cannot read its
 * frames; they are only called once python_walker_refusal() has found the
 * interpreter to be the one this module was built for. */
#if PY_VERSION_HEX >= 0x030D0000
#define current_thread_state PyThreadState_GetUnchecked
#define interpreter_finalizing Py_IsFinalizing
#pragma weak PyThreadState_GetUnchecked
#pragma weak Py_IsFinalizing
#else
#define current_thread_state _PyThreadState_UncheckedGet
#define interpreter_finalizing _Py_IsFinalizing
#pragma weak _PyThreadState_UncheckedGet
#pragma weak _Py_IsFinalizing
#endif

/* Names that are not plain ASCII are encoded to UTF-8 here, and must stay
 * valid until the runtime has copied them, after the walker returns (on
 * the same thread, before the allocation hook returns).  So each buffer
 * has a single writer: the main thread (see walkable_thread_state) has
 * its own; the other threads share one, written only under the GIL.  A
 * buffer holds MEMPROF_MAX_STACK_DEPTH frames of ordinary names; a name
 * that does not fit is cut short. */
#define NAME_BUFFER_SIZE 16384
static char main_thread_names[NAME_BUFFER_SIZE];
static char gil_holder_names[NAME_BUFFER_SIZE];

struct name_space {
	char *next;
	size_t room;
};

/* The calling thread's state, when its frames can be read safely: while
 * the thread holds the GIL of the main interpreter, no other thread runs
 * Python code, so its frames and their code objects stay alive and
 * unchanged.  The main thread is also walked when it has released the
 * GIL (numpy, for one, allocates large zeroed arrays so): its frames can
 * only be popped by itself, they hold references to their code objects,
 * and its thread state is only freed by itself, at the end of
 * finalization, which is why finalization stops the walk.  Other threads
 * that released the GIL are not walked: finalization frees the thread
 * states of daemon threads from under them. */
static PyThreadState *walkable_thread_state(int *is_main)
{
	PyThreadState *mine;

	if (!Py_IsInitialized() || interpreter_finalizing())
		return NULL;
	mine = PyGILState_GetThisThreadState();
	if (!mine)
		return NULL;
	*is_main = PyThread_get_thread_ident() == _PyRuntime.main_thread;
	return *is_main || mine == current_thread_state() ? mine : NULL;
}

static _PyInterpreterFrame *newest_frame(PyThreadState *tstate)
{
#if PY_VERSION_HEX >= 0x030D0000
	return tstate->current_frame;
#else
	return tstate->cframe ? tstate->cframe->current_frame : NULL;
#endif
}

static PyCodeObject *frame_code(_PyInterpreterFrame *frame)
{
#if PY_VERSION_HEX >= 0x030D0000
	/* What a frame runs is a code object or None; since 3.14 it is held
	 * by a tagged reference. */
#if PY_VERSION_HEX >= 0x030E0000
	PyObject *executable = PyStackRef_AsPyObjectBorrow(frame->f_executable);
#else
	PyObject *executable = frame->f_executable;
#endif

	return executable && PyCode_Check(executable)
		       ? (PyCodeObject *)executable
		       : NULL;
#else
	return frame->f_code;
#endif
}

/* Frames still being set up (no line yet), and the C-stack shims of 3.12
 * and later, are not part of the Python stack a user sees (3.14's shims,
 * owned by the interpreter, are among the frames it calls incomplete). */
static int frame_is_visible(_PyInterpreterFrame *frame)
{
#if PY_VERSION_HEX >= 0x030C0000
	if (frame->owner == FRAME_OWNED_BY_CSTACK)
		return 0;
#endif
	return !_PyFrame_IsIncomplete(frame);
}

static size_t encode_code_point(Py_UCS4 c, unsigned char *out)
{
	if (c >= 0xD800 && c <= 0xDFFF)
		c = 0xFFFD; /* lone surrogates (surrogateescape) are not UTF-8 */
	if (c < 0x80) {
		out[0] = (unsigned char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (unsigned char)(0xC0 | c >> 6);
		out[1] = (unsigned char)(0x80 | (c & 0x3F));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (unsigned char)(0xE0 | c >> 12);
		out[1] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
		out[2] = (unsigned char)(0x80 | (c & 0x3F));
		return 3;
	}
	out[0] = (unsigned char)(0xF0 | c >> 18);
	out[1] = (unsigned char)(0x80 | (c >> 12 & 0x3F));
	out[2] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
	out[3] = (unsigned char)(0x80 | (c & 0x3F));
	return 4;
}

static const char *encode_name(PyObject *s, struct name_space *space,
			       size_t *len)
{
	int kind = PyUnicode_KIND(s);
	const void *data = PyUnicode_DATA(s);
	Py_ssize_t n = PyUnicode_GET_LENGTH(s);
	unsigned char *start = (unsigned char *)space->next;
	size_t used = 0;

	for (Py_ssize_t i = 0; i < n && space->room - used >= 4; i++)
		used += encode_code_point(PyUnicode_READ(kind, data, i),
					  start + used);
	space->next += used;
	space->room -= used;
	*len = used;
	return (const char *)start;
}

/* The UTF-8 bytes of a str without creating anything: ASCII strings are
 * their own UTF-8, some others carry a cached encoding, the rest are
 * encoded into `space`.  Anything unexpected gets an empty name, which
 * the runtime replaces by its placeholder. */
static const char *name_bytes(PyObject *s, struct name_space *space,
			      size_t *len)
{
	*len = 0;
	if (!s || !PyUnicode_Check(s))
		return "";
#if PY_VERSION_HEX < 0x030C0000
	if (!PyUnicode_IS_READY(s))
		return "";
#endif
	if (PyUnicode_IS_COMPACT_ASCII(s)) {
		*len = (size_t)PyUnicode_GET_LENGTH(s);
		return PyUnicode_DATA(s);
	}
	if (((PyCompactUnicodeObject *)s)->utf8) {
		*len = (size_t)((PyCompactUnicodeObject *)s)->utf8_length;
		return ((PyCompactUnicodeObject *)s)->utf8;
	}
	return encode_name(s, space, len);
}

static uint32_t frame_line(_PyInterpreterFrame *frame, PyCodeObject *code)
{
	int line = PyCode_Addr2Line(code, _PyInterpreterFrame_LASTI(frame) *
						  (int)sizeof(_Py_CODEUNIT));

	return line > 0 ? (uint32_t)line : 0;
}

static int walk_python_frames(memprof_script_frame *out, int max)
{
	int is_main = 0;
	PyThreadState *tstate = walkable_thread_state(&is_main);
	struct name_space space = {
		is_main ? main_thread_names : gil_holder_names,
		NAME_BUFFER_SIZE,
	};
	int n = 0;

	if (!tstate)
		return 0;
	for (_PyInterpreterFrame *f = newest_frame(tstate); f && n < max;
	     f = f->previous) {
		PyCodeObject *code = frame_code(f);

		if (!code || !frame_is_visible(f))
			continue;
		out[n].file = name_bytes(code->co_filename, &space,
					 &out[n].file_len);
		out[n].function = name_bytes(code->co_qualname, &space,
					     &out[n].function_len);
		out[n].line = frame_line(f, code);
		n++;
	}
	return n;
}

int python_attach_walker(void)
{
	/* The runtime may load this module into any Python process, but the
	 * frame layout is only known for the build it was made for. */
	if (python_walker_refusal()) {
		errno = ENOTSUP;
		return -1;
	}
	/* Every native frame inside the interpreter's code (the executable
	 * or libpython) is replaced by the Python frames. */
	return memprof_set_frame_walker(walk_python_frames,
					(const void *)&PyEval_EvalCode);
}

#else /* !WALKER_SUPPORTED: python_walker_refusal() always says why */

int python_attach_walker(void)
{
	errno = ENOTSUP;
	return -1;
}

#endif

/* Called by the runtime when SPPROF_PYTHON_WALKER names this module: at
 * load time, before the interpreter has initialised, so it must not use
 * any Python API. */
__attribute__((visibility("default"))) int memprof_python_attach(void);

int memprof_python_attach(void)
{
	return python_attach_walker();
}

/* Called by the runtime when memprof_python_attach() failed, to say why
 * (or NULL: the walker was not refused, the runtime's errno says more). */
__attribute__((visibility("default"))) const char *
memprof_python_refusal(void);

const char *memprof_python_refusal(void)
{
	return python_walker_refusal();
}
