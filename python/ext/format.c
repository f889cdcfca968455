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

static int add_event_types(PyObject *module)
{
	PyObject *types = PyDict_New();

	if (!types)
		return -1;
	for (size_t i = 0; i < sizeof(event_types) / sizeof(event_types[0]);
	     i++) {
		PyObject *number = PyLong_FromLong(event_types[i].number);

		if (!number ||
		    PyDict_SetItemString(types, event_types[i].name, number) < 0) {
			Py_XDECREF(number);
			Py_DECREF(types);
			return -1;
		}
		Py_DECREF(number);
	}
	if (PyModule_AddObject(module, "EVENT_TYPES", types) < 0) {
		Py_DECREF(types);
		return -1;
	}
	return 0;
}

int format_add_constants(PyObject *module)
{
	PyObject *magic = PyBytes_FromString(MLYZE_MAGIC);

	if (!magic)
		return -1;
	if (PyModule_AddObject(module, "MAGIC", magic) < 0) {
		Py_DECREF(magic);
		return -1;
	}
	if (PyModule_AddIntConstant(module, "HEADER_SIZE", MLYZE_HEADER_SIZE) < 0 ||
	    PyModule_AddIntConstant(module, "OFF_START_US", MLYZE_OFF_START_US) < 0 ||
	    PyModule_AddIntConstant(module, "OFF_METADATA_LEN",
				    MLYZE_OFF_METADATA_LEN) < 0)
		return -1;
	return add_event_types(module);
}
