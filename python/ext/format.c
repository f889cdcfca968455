/* format.c - the .mlyze file layout for Python (see format.h). */
#include "format.h"

#include "mlyze-codec.h"

static const struct {
	const char *name;
	long number;
} event_types[] = {
#define MLYZE_EVENT_TYPE(NAME, name, NUMBER, LAYOUT, DESCRIPTION) \
	{ #NAME, NUMBER },
#include <spprof/mlyze-events.def>
#undef MLYZE_EVENT_TYPE
};

#define N_EVENT_TYPES (sizeof(event_types) / sizeof(event_types[0]))

/* Gives the module `value` (a new reference, or NULL after an error) under
 * `name`; -1 when it cannot, with the value dropped. */
static int add_object(PyObject *module, const char *name, PyObject *value)
{
	if (value && PyModule_AddObject(module, name, value) == 0)
		return 0;
	Py_XDECREF(value);
	return -1;
}

/* Sets dict[key] to value, both new references (or NULL after an error),
 * which it drops. */
static int set_item(PyObject *dict, PyObject *key, PyObject *value)
{
	int rc = key && value ? PyDict_SetItem(dict, key, value) : -1;

	Py_XDECREF(key);
	Py_XDECREF(value);
	return rc;
}

/* Every type's number, by name. */
static PyObject *event_numbers(void)
{
	PyObject *numbers = PyDict_New();

	for (size_t i = 0; numbers && i < N_EVENT_TYPES; i++)
		if (set_item(numbers, PyUnicode_FromString(event_types[i].name),
			     PyLong_FromLong(event_types[i].number)) < 0)
			Py_CLEAR(numbers);
	return numbers;
}

/* (before, varints, after) of every fixed-layout type, by number, as
 * mlyze_fixed_layout() gives them to the C readers. */
static PyObject *fixed_layouts(void)
{
	PyObject *layouts = PyDict_New();

	for (size_t i = 0; layouts && i < N_EVENT_TYPES; i++) {
		long number = event_types[i].number;
		struct mlyze_fixed_layout layout =
			mlyze_fixed_layout((unsigned)number);

		if (number < MLYZE_FIRST_SIZED_EVENT &&
		    set_item(layouts, PyLong_FromLong(number),
			     Py_BuildValue("(iii)", layout.before,
					   layout.varints, layout.after)) < 0)
			Py_CLEAR(layouts);
	}
	return layouts;
}

int format_add_constants(PyObject *module)
{
	if (add_object(module, "MAGIC", PyBytes_FromString(MLYZE_MAGIC)) < 0 ||
	    add_object(module, "EVENT_TYPES", event_numbers()) < 0 ||
	    add_object(module, "FIXED_LAYOUTS", fixed_layouts()) < 0)
		return -1;
	if (PyModule_AddIntConstant(module, "HEADER_SIZE", MLYZE_HEADER_SIZE) < 0 ||
	    PyModule_AddIntConstant(module, "OFF_START_US", MLYZE_OFF_START_US) < 0 ||
	    PyModule_AddIntConstant(module, "OFF_METADATA_LEN",
				    MLYZE_OFF_METADATA_LEN) < 0 ||
	    PyModule_AddIntConstant(module, "STRINGS_FILES",
				    MLYZE_STRINGS_FILES) < 0 ||
	    PyModule_AddIntConstant(module, "STRINGS_FUNCTIONS",
				    MLYZE_STRINGS_FUNCTIONS) < 0 ||
	    PyModule_AddIntConstant(module, "FRAME_NATIVE",
				    MLYZE_FRAME_NATIVE) < 0)
		return -1;
	return 0;
}
