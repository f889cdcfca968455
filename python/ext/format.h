/* format.h - the .mlyze file layout, as the package's stream reader sees it.
 *
 * Contract: format_add_constants() gives the module EVENT_TYPES (a dict of
 * every type of mlyze-events.def, by name), FIXED_LAYOUTS (the fields of
 * each fixed-layout type, by number: (before, varints, after) as
 * mlyze_fixed_layout() has them), the header's layout (MAGIC, HEADER_SIZE,
 * OFF_START_US, OFF_METADATA_LEN) and the numbers inside payloads
 * (STRINGS_FILES, STRINGS_FUNCTIONS, FRAME_NATIVE) from the codec, so that Python code reading a stream follows the one
 * definition of the format.
 * Returns 0, or -1 with a Python exception set.
 */
#ifndef SPPROF_PYTHON_FORMAT_H
#define SPPROF_PYTHON_FORMAT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

int format_add_constants(PyObject *module);

#endif /* SPPROF_PYTHON_FORMAT_H */
