/* report-frames.c - how memprof-report names a frame (see report-frames.h). */
#include "config.h"

#include "report-frames.h"
#include "report-util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *const grouping_names[3] = { "function", "line", "stack" };

struct frame_namer {
	struct symbolizer *symbolizer;
};

/* The allocators whose frames are never the site of an allocation: the
 * C library's malloc family, C++ operator new, CPython's allocators and
 * pymalloc.  (Frames in the runtime library itself are recognised by
 * their module, see in_runtime().) */
static const char *const allocator_functions[] = {
	"malloc", "calloc", "realloc", "reallocarray", "free",
	"memalign", "posix_memalign", "aligned_alloc", "valloc", "pvalloc",
	"__libc_malloc", "__libc_calloc", "__libc_realloc", "__libc_free",
	"__libc_memalign", "__libc_valloc", "__libc_pvalloc",
	"_int_malloc", "_int_realloc", "_int_memalign", "tcache_init",
	"malloc_hook_ini", "sysmalloc",
	"PyObject_Malloc", "PyObject_Calloc", "PyObject_Realloc",
	"allocate_from_new_pool", "new_arena",
};
static const char *const allocator_prefixes[] = {
	"operator new", "_Znw", "_Zna", /* demangled and mangled */
	"PyMem_", "_PyMem_", "pymalloc_",
};

static bool is_allocator_function(const char *name)
{
	for (size_t i = 0; i < sizeof(allocator_functions) /
				       sizeof(allocator_functions[0]); i++)
		if (strcmp(name, allocator_functions[i]) == 0)
			return true;
	for (size_t i = 0; i < sizeof(allocator_prefixes) /
				       sizeof(allocator_prefixes[0]); i++)
		if (strncmp(name, allocator_prefixes[i],
			    strlen(allocator_prefixes[i])) == 0)
			return true;
	/* _PyObject_Malloc, _PyObject_GC_Alloc, _PyObject_ArenaMalloc... */
	return strncmp(name, "_PyObject_", 10) == 0 &&
	       strcasestr(name + 10, "alloc") != NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool in_runtime(const struct mlyze_module *module)
{
	return strncmp(base_name(module->path), "libspprof-alloc", 15) == 0;
}

struct frame_namer *frame_namer_new(const struct symbolizer_options *options)
{
	struct frame_namer *namer = xcalloc(1, sizeof(*namer));

	namer->symbolizer = symbolizer_new(options);
	if (!namer->symbolizer)
		out_of_memory();
	return namer;
}

void frame_namer_free(struct frame_namer *namer)
{
	if (!namer)
		return;
	symbolizer_free(namer->symbolizer);
	free(namer);
}

static void set_label(struct frame_label *label, char *key, char *text)
{
	label->key = key;
	label->text = text ? text : xstrdup(key);
}

static void python_label(const struct mlyze_frame *frame,
			 enum grouping grouping, struct frame_label *label)
{
	const char *function = frame->function->text, *file = frame->file->text;

	if (grouping == GROUP_BY_LINE) {
		set_label(label, xasprintf("%s:%" PRIu64, file, frame->line),
			  NULL);
		return;
	}
	char *text = xasprintf("%s (%s:%" PRIu64 ")", function, file,
			       frame->line);

	/* By function, lines of one function are one site. */
	if (grouping == GROUP_BY_FUNCTION)
		set_label(label, xasprintf("%s (%s)", function, file), text);
	else
		set_label(label, text, NULL);
}

static void native_label(struct frame_namer *namer,
			 const struct mlyze_frame *frame,
			 enum grouping grouping, struct frame_label *label)
{
	const struct mlyze_module *module = frame->module;
	struct symbol_info symbol = { 0 };
	bool located;

	symbolizer_lookup(namer->symbolizer, module->path, module->build_id,
			  frame->offset, 1, &symbol);
	label->allocator = in_runtime(module) ||
			   (symbol.function &&
			    is_allocator_function(symbol.function));
	if (!symbol.function) {
		set_label(label, xasprintf("%s+0x%" PRIx64, base_name(module->path),
					   frame->offset),
			  NULL);
		return;
	}
	located = symbol.file && symbol.line;
	if (grouping == GROUP_BY_LINE && located)
		set_label(label, xasprintf("%s:%u", symbol.file, symbol.line),
			  NULL);
	else if (grouping == GROUP_BY_STACK && located)
		set_label(label, xasprintf("%s (%s:%u)", symbol.function,
					   symbol.file, symbol.line),
			  NULL);
	else
		set_label(label, xstrdup(symbol.function), NULL);
}

void frame_label(struct frame_namer *namer, const struct mlyze_frame *frame,
		 enum grouping grouping, struct frame_label *label)
{
	label->allocator = false;
	switch (frame->form) {
	case MLYZE_FORM_PYTHON:
		python_label(frame, grouping, label);
		break;
	case MLYZE_FORM_MODULE:
		native_label(namer, frame, grouping, label);
		break;
	default:
		set_label(label, xasprintf("0x%" PRIx64, frame->offset), NULL);
		break;
	}
}

void frame_label_free(struct frame_label *label)
{
	free(label->key);
	free(label->text);
	label->key = label->text = NULL;
}
