/* module.c - spprof._memprof, the thin C layer under spprof.memprof.
 *
 * Contract: one Python function per call of <spprof/memprof.h> that the
 * Python API needs, with plain Python values in and out (ints, strs,
 * tuples, dicts).  A failing call raises OSError carrying the runtime's
 * errno; spprof.memprof turns those into the errors its users see.  The
 * lifecycle rules live in spprof.memprof, not here.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#ifdef __GLIBC__
#include <gnu/lib-names.h>
#endif

#include <spprof/memprof.h>
#include <spprof/memprof-pool.h>

#include "format.h"
#include "small_objects.h"
#include "walker.h"

static PyObject *raise_errno(int err)
{
	errno = err;
	return PyErr_SetFromErrno(PyExc_OSError);
}

/* For calls whose EALREADY is an answer rather than a failure: True when
 * the call changed the state, False when it was already so. */
static PyObject *changed_or_already(int result)
{
	if (result == 0)
		Py_RETURN_TRUE;
	if (errno == EALREADY)
		Py_RETURN_FALSE;
	return raise_errno(errno);
}

static PyObject *none_or_raise(int result)
{
	if (result < 0)
		return raise_errno(errno);
	Py_RETURN_NONE;
}

/* Passes the sampling rate in arg to call, whose result goes to *result;
 * -1 with a Python exception when arg is not a valid rate. */
static int with_rate(PyObject *arg, int (*call)(uint64_t), int *result)
{
	unsigned long long rate = PyLong_AsUnsignedLongLong(arg);

	if (rate == (unsigned long long)-1 && PyErr_Occurred())
		return -1;
	*result = call(rate);
	return 0;
}

struct position_query {
	uintptr_t address;
	int index, found;
};

static int find_module(struct dl_phdr_info *info, size_t size, void *data)
{
	struct position_query *q = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && q->address - lo < ph->p_memsz) {
			q->found = 1;
			return 1;
		}
	}
	q->index++;
	return 0;
}

/* Position in load order of the module holding `address`, or -1. */
static int load_position(const void *address)
{
	struct position_query q = { (uintptr_t)address, 0, 0 };

	dl_iterate_phdr(find_module, &q);
	return q.found ? q.index : -1;
}

/* The C library's own malloc.  (Not dlsym(RTLD_DEFAULT): in an executable
 * built without PIE that takes malloc's address, that answers with the
 * executable's PLT entry.) */
static void *libc_malloc(void)
{
#ifdef LIBC_SO
	void *libc = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD);
	void *found = libc ? dlsym(libc, "malloc") : NULL;

	if (libc)
		dlclose(libc);
	return found;
#else
	return NULL;
#endif
}

PyDoc_STRVAR(interposing_doc,
	     "interposing() -> bool\n\n"
	     "Whether libspprof-alloc serves this process's malloc, that is,\n"
	     "whether the program was started under the runtime (memprof-wrap\n"
	     "or LD_PRELOAD) rather than merely loading it with this module.");

/* The runtime serves malloc when it comes before the C library in the
 * global symbol search order, which for the objects loaded at start-up
 * (the executable, LD_PRELOAD, their dependencies) is their load order;
 * loaded with this module, it comes after. */
static PyObject *py_interposing(PyObject *self, PyObject *unused)
{
	void *libc = libc_malloc();
	int runtime = load_position((const void *)&memprof_init);
	int c_library = load_position(libc ? libc : dlsym(RTLD_DEFAULT,
							 "malloc"));

	(void)self;
	(void)unused;
	return PyBool_FromLong(runtime >= 0 && c_library >= 0 &&
			       runtime <= c_library);
}

PyDoc_STRVAR(init_doc, "init(sampling_rate) -> bool\n\n"
		       "memprof_init(); False when already initialised.");

static PyObject *py_init(PyObject *self, PyObject *arg)
{
	int result;

	(void)self;
	return with_rate(arg, memprof_init, &result) < 0
		       ? NULL
		       : changed_or_already(result);
}

PyDoc_STRVAR(start_doc, "start() -> bool\n\n"
			"memprof_start(); False when already running.");

static PyObject *py_start(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return changed_or_already(memprof_start());
}

PyDoc_STRVAR(stop_doc, "stop()\n\nmemprof_stop().");

static PyObject *py_stop(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return none_or_raise(memprof_stop());
}

PyDoc_STRVAR(shutdown_doc, "shutdown()\n\nmemprof_shutdown().");

static PyObject *py_shutdown(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return none_or_raise(memprof_shutdown());
}

PyDoc_STRVAR(set_sampling_rate_doc,
	     "set_sampling_rate(bytes)\n\nmemprof_set_sampling_rate().");

static PyObject *py_set_sampling_rate(PyObject *self, PyObject *arg)
{
	int result;

	(void)self;
	return with_rate(arg, memprof_set_sampling_rate, &result) < 0
		       ? NULL
		       : none_or_raise(result);
}

PyDoc_STRVAR(attach_walker_doc,
	     "attach_walker()\n\n"
	     "Install the Python frame walker in the runtime, so that samples\n"
	     "taken while a thread holds the GIL (or by the main thread) carry\n"
	     "Python frames.");

static PyObject *py_attach_walker(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return none_or_raise(python_attach_walker());
}

PyDoc_STRVAR(snapshot_doc,
	     "snapshot() -> list\n\n"
	     "The live sampled blocks, as tuples (address, size, sampling_rate,\n"
	     "timestamp_ns, stack_id, thread_id).");

static PyObject *py_snapshot(PyObject *self, PyObject *unused)
{
	memprof_sample *samples;
	size_t count;
	PyObject *list;

	(void)self;
	(void)unused;
	if (memprof_get_snapshot(&samples, &count) < 0)
		return raise_errno(errno);
	list = PyList_New((Py_ssize_t)count);
	for (size_t i = 0; list && i < count; i++) {
		const memprof_sample *s = &samples[i];
		PyObject *item = Py_BuildValue(
			"(KKKKII)", (unsigned long long)s->address,
			(unsigned long long)s->size,
			(unsigned long long)s->sampling_rate,
			(unsigned long long)s->timestamp_ns, s->stack_id,
			s->thread_id);

		if (!item) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, item);
	}
	memprof_free_snapshot(samples);
	return list;
}

PyDoc_STRVAR(resolve_symbols_doc,
	     "resolve_symbols() -> int\n\n"
	     "Name the frames of every stack interned so far (dladdr for\n"
	     "native frames); returns how many stacks were named.");

static PyObject *py_resolve_symbols(PyObject *self, PyObject *unused)
{
	int named = memprof_resolve_symbols();

	(void)self;
	(void)unused;
	if (named < 0)
		return raise_errno(errno);
	return PyLong_FromLong(named);
}

static PyObject *frame_tuple(const memprof_stack *st, uint32_t i)
{
	const char *function = st->functions ? st->functions[i] : NULL;
	int is_python = st->files && st->files[i];

	/* (address, function, file or module, line, is_python): a Python
	 * frame has no address, a native frame has no line. */
	if (is_python)
		return Py_BuildValue("(KzzIO)", 0ull, function, st->files[i],
				     st->lines[i], Py_True);
	return Py_BuildValue("(KzzIO)", (unsigned long long)st->frames[i],
			     function, st->modules ? st->modules[i] : NULL,
			     0u, Py_False);
}

PyDoc_STRVAR(stack_doc,
	     "stack(stack_id) -> tuple\n\n"
	     "The frames of an interned stack, leaf first, as tuples (address,\n"
	     "function, file or module, line, is_python); names are None until\n"
	     "resolve_symbols() has run, or when unknown.");

static PyObject *py_stack(PyObject *self, PyObject *arg)
{
	unsigned long id = PyLong_AsUnsignedLong(arg);
	memprof_stack st;
	PyObject *frames;

	(void)self;
	if (id == (unsigned long)-1 && PyErr_Occurred())
		return NULL;
	if (id > UINT32_MAX || memprof_get_stack((uint32_t)id, &st) < 0)
		return raise_errno(id > UINT32_MAX ? ENOENT : errno);
	frames = PyTuple_New(st.depth);
	for (uint32_t i = 0; frames && i < st.depth; i++) {
		PyObject *frame = frame_tuple(&st, i);

		if (!frame) {
			Py_CLEAR(frames);
			break;
		}
		PyTuple_SET_ITEM(frames, i, frame);
	}
	return frames;
}

static int set_item(PyObject *dict, const char *key, PyObject *value)
{
	int r = value ? PyDict_SetItemString(dict, key, value) : -1;

	Py_XDECREF(value);
	return r;
}

/* A statistic as an int, or a float. */
#define STAT_OBJECT(v) \
	_Generic((v), double: PyFloat_FromDouble, \
		 default: PyLong_FromUnsignedLongLong)(v)

PyDoc_STRVAR(stats_doc,
	     "stats() -> dict\n\n"
	     "memprof_get_stats() as a dict keyed by the memprof_stats fields.");

static PyObject *py_stats(PyObject *self, PyObject *unused)
{
	memprof_stats s;
	PyObject *dict;

	(void)self;
	(void)unused;
	if (memprof_get_stats(&s) < 0)
		return raise_errno(errno);
	dict = PyDict_New();
	if (!dict)
		return NULL;
	/* Every statistic of memprof-stats.def. */
#define MEMPROF_STAT(type, field, key, source, kind, unit, description) \
	if (set_item(dict, #field, STAT_OBJECT(s.field)) < 0)               \
		goto fail;
#include <spprof/memprof-stats.def>
#undef MEMPROF_STAT
	return dict;
fail:
	Py_DECREF(dict);
	return NULL;
}

/* Calls whose ENOTCONN means "no profile is being recorded": False. */
static PyObject *written_or_not(int result)
{
	if (result == 0)
		Py_RETURN_TRUE;
	if (errno == ENOTCONN)
		Py_RETURN_FALSE;
	return raise_errno(errno);
}

PyDoc_STRVAR(marker_doc,
	     "marker(name) -> bool\n\n"
	     "memprof_marker(); False when no profile is being recorded.");

static PyObject *py_marker(PyObject *self, PyObject *arg)
{
	const char *name = PyUnicode_AsUTF8(arg);

	(void)self;
	if (!name)
		return NULL;
	return written_or_not(memprof_marker(name));
}

PyDoc_STRVAR(gc_event_doc,
	     "gc_event(objects, bytes) -> bool\n\n"
	     "memprof_gc_event(); False when no profile is being recorded.");

static PyObject *py_gc_event(PyObject *self, PyObject *args)
{
	unsigned long long objects, bytes;

	(void)self;
	if (!PyArg_ParseTuple(args, "KK:gc_event", &objects, &bytes))
		return NULL;
	return written_or_not(memprof_gc_event(objects, bytes));
}

/* "O&" converters: a non-negative int that fits, or an exception. */
static int to_address(PyObject *arg, void *out)
{
	unsigned long long value = PyLong_AsUnsignedLongLong(arg);

	if (value == (unsigned long long)-1 && PyErr_Occurred())
		return 0;
	if (value > UINTPTR_MAX) {
		PyErr_SetString(PyExc_OverflowError,
				"an address larger than a pointer");
		return 0;
	}
	*(void **)out = (void *)(uintptr_t)value;
	return 1;
}

static int to_size(PyObject *arg, void *out)
{
	size_t value = PyLong_AsSize_t(arg);

	if (value == (size_t)-1 && PyErr_Occurred())
		return 0;
	*(size_t *)out = value;
	return 1;
}

PyDoc_STRVAR(report_alloc_doc,
	     "report_alloc(address, size)\n\n"
	     "A pool of the program's own hands out the block of size bytes\n"
	     "at address (a non-zero int naming the block while it is live):\n"
	     "memprof_report_alloc(3), sampled as malloc's blocks are.");

static PyObject *py_report_alloc(PyObject *self, PyObject *args)
{
	void *block;
	size_t size;

	(void)self;
	if (!PyArg_ParseTuple(args, "O&O&:report_alloc", to_address, &block,
			      to_size, &size))
		return NULL;
	memprof_report_alloc(block, size);
	Py_RETURN_NONE;
}

PyDoc_STRVAR(report_free_doc,
	     "report_free(address)\n\n"
	     "The block reported at address is given back to its pool:\n"
	     "memprof_report_free(3).");

static PyObject *py_report_free(PyObject *self, PyObject *arg)
{
	void *block;

	(void)self;
	if (!to_address(arg, &block))
		return NULL;
	memprof_report_free(block);
	Py_RETURN_NONE;
}

PyDoc_STRVAR(estimate_doc,
	     "estimate(size, sampling_rate) -> (bytes, count)\n\n"
	     "The unbiased estimate one sample stands for: size / p bytes and\n"
	     "1 / p blocks, with p = 1 - exp(-size / sampling_rate).");

static PyObject *py_estimate(PyObject *self, PyObject *args)
{
	unsigned long long size, rate;
	double bytes, count;

	(void)self;
	if (!PyArg_ParseTuple(args, "KK:estimate", &size, &rate))
		return NULL;
	bytes = memprof_estimate_bytes(size, rate, &count);
	return Py_BuildValue("(dd)", bytes, count);
}

PyDoc_STRVAR(estimate_variance_doc,
	     "estimate_variance(size, sampling_rate) -> float\n\n"
	     "The variance one sample adds to a sum of estimated bytes.");

static PyObject *py_estimate_variance(PyObject *self, PyObject *args)
{
	unsigned long long size, rate;

	(void)self;
	if (!PyArg_ParseTuple(args, "KK:estimate_variance", &size, &rate))
		return NULL;
	return PyFloat_FromDouble(memprof_estimate_variance(size, rate));
}

PyDoc_STRVAR(estimate_interval95_doc,
	     "estimate_interval95(variance) -> float\n\n"
	     "Half the width of the 95 % interval of a sum with this variance.");

static PyObject *py_estimate_interval95(PyObject *self, PyObject *arg)
{
	double variance = PyFloat_AsDouble(arg);

	(void)self;
	if (variance == -1.0 && PyErr_Occurred())
		return NULL;
	return PyFloat_FromDouble(memprof_estimate_interval95(variance));
}

PyDoc_STRVAR(walker_refusal_doc,
	     "walker_refusal() -> str or None\n\n"
	     "None when this build can report Python frames for this CPython,\n"
	     "else why it cannot.");

static PyObject *py_walker_refusal(PyObject *self, PyObject *unused)
{
	const char *why = python_walker_refusal();

	(void)self;
	(void)unused;
	if (!why)
		Py_RETURN_NONE;
	return PyUnicode_FromString(why);
}

PyDoc_STRVAR(route_small_objects_doc,
	     "route_small_objects(through_malloc)\n\n"
	     "Allocate Python's objects and its PyMem blocks with malloc (True),\n"
	     "where the runtime sees them, or again with pymalloc (False).\n"
	     "Only for pymalloc without debug hooks.");

static PyObject *py_route_small_objects(PyObject *self, PyObject *flag)
{
	int through_malloc = PyObject_IsTrue(flag);

	(void)self;
	if (through_malloc < 0)
		return NULL;
	small_objects_route(through_malloc);
	Py_RETURN_NONE;
}

#define FUNCTION(name, flags) \
	{ #name, (PyCFunction)py_##name, flags, name##_doc }

static PyMethodDef functions[] = {
	FUNCTION(interposing, METH_NOARGS),
	FUNCTION(init, METH_O),
	FUNCTION(start, METH_NOARGS),
	FUNCTION(stop, METH_NOARGS),
	FUNCTION(shutdown, METH_NOARGS),
	FUNCTION(set_sampling_rate, METH_O),
	FUNCTION(attach_walker, METH_NOARGS),
	FUNCTION(walker_refusal, METH_NOARGS),
	FUNCTION(route_small_objects, METH_O),
	FUNCTION(snapshot, METH_NOARGS),
	FUNCTION(resolve_symbols, METH_NOARGS),
	FUNCTION(stack, METH_O),
	FUNCTION(stats, METH_NOARGS),
	FUNCTION(marker, METH_O),
	FUNCTION(gc_event, METH_VARARGS),
	FUNCTION(report_alloc, METH_VARARGS),
	FUNCTION(report_free, METH_O),
	FUNCTION(estimate, METH_VARARGS),
	FUNCTION(estimate_variance, METH_VARARGS),
	FUNCTION(estimate_interval95, METH_O),
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "spprof._memprof",
	.m_doc = "C layer of spprof.memprof over libspprof-alloc; use "
		 "spprof.memprof instead.",
	.m_size = 0,
	.m_methods = functions,
};

PyMODINIT_FUNC PyInit__memprof(void);

PyMODINIT_FUNC PyInit__memprof(void)
{
	PyObject *m = PyModule_Create(&module);

	if (m && (PyModule_AddIntConstant(m, "DEFAULT_SAMPLING_RATE",
					  MEMPROF_DEFAULT_SAMPLING_RATE) < 0 ||
		  PyModule_AddIntConstant(m, "MAX_STACK_DEPTH",
					  MEMPROF_MAX_STACK_DEPTH) < 0 ||
		  format_add_constants(m) < 0))
		Py_CLEAR(m);
	return m;
}
