/* report-frames.c - what memprof-report knows of a frame (see
 * report-frames.h). */
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
 * pymalloc, and the Python binding's report of a pool's block
 * (spprof.memprof.report_alloc), whose site is the Python line.  (Frames in the runtime library itself are recognised by
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
	"py_report_alloc", NULL
};
static const char *const allocator_prefixes[] = {
	"operator new", "_Znw", "_Zna", /* demangled and mangled */
	"PyMem_", "_PyMem_", "pymalloc_", NULL
};

bool function_listed(const char *name, const char *const names[],
		     const char *const prefixes[])
{
	for (size_t i = 0; names[i]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	for (size_t i = 0; prefixes[i]; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

static bool is_allocator_function(const char *name)
{
	if (function_listed(name, allocator_functions, allocator_prefixes))
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

static bool in_runtime(const char *module_path)
{
	return strncmp(base_name(module_path), "libspprof-alloc", 15) == 0;
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

static char *copy_or_null(const char *text)
{
	return text ? xstrdup(text) : NULL;
}

/* Code of the C++ standard library's headers (libstdc++'s
 * /usr/include/c++/12/bits/..., libc++'s /usr/include/c++/v1/...). */
static bool in_cxx_headers(const char *file)
{
	return file && strstr(file, "/include/c++/") != NULL;
}

static void native_frame(const struct mlyze_symbol *symbol, bool in_runtime,
			 bool readable, size_t module_index, uint64_t address,
			 struct report_frame *out)
{
	*out = (struct report_frame){
		.kind = FRAME_NATIVE,
		.module = module_index,
		.address = address,
		.function = copy_or_null(symbol->function),
		.inlined = symbol->inlined,
		.library_inline = symbol->inlined &&
				  in_cxx_headers(symbol->file),
		.module_unreadable = !readable,
	};
	if (symbol->function && symbol->file && symbol->line) {
		out->file = xstrdup(symbol->file);
		out->line = symbol->line;
	}
	out->allocator = in_runtime || (symbol->function &&
					is_allocator_function(symbol->function));
}

int frame_binary_symbols(struct frame_namer *namer,
			 const struct mlyze_module *module, uint64_t offset,
			 struct mlyze_symbol out[FRAME_CHAIN_MAX])
{
	struct symbol_info symbols[FRAME_CHAIN_MAX];
	int n = symbolizer_lookup_inlined(namer->symbolizer, module->path,
					  module->build_id, offset, 1,
					  symbols, FRAME_CHAIN_MAX);

	if (!symbolizer_module_readable(namer->symbolizer, module->path,
					module->build_id) && n < 1)
		return -1;
	for (int i = 0; i < n; i++)
		out[i] = (struct mlyze_symbol){
			.function = symbols[i].function,
			.file = symbols[i].file,
			.line = symbols[i].line,
			.inlined = symbols[i].inlined,
		};
	return n < 1 ? 0 : n;
}

static size_t resolve_native(struct frame_namer *namer,
			     const mlyze_reader *reader,
			     const struct mlyze_frame *frame,
			     size_t module_index,
			     struct report_frame out[FRAME_CHAIN_MAX])
{
	const struct mlyze_module *module = frame->module;
	struct mlyze_symbol symbols[FRAME_CHAIN_MAX];
	const struct mlyze_symbol *own;
	int n = mlyze_find_symbols(reader, module, frame->offset, &own);
	bool readable = true;

	if (n >= 0)
		memcpy(symbols, own, (size_t)n * sizeof(*own));
	else
		n = frame_binary_symbols(namer, module, frame->offset, symbols);
	if (n < 1) {
		readable = n == 0;
		symbols[0] = (struct mlyze_symbol){ 0 };
		n = 1;
	}
	for (int i = 0; i < n; i++)
		native_frame(&symbols[i], in_runtime(module->path), readable,
			     module_index, frame->offset, &out[i]);
	return (size_t)n;
}

size_t frame_resolve(struct frame_namer *namer, const mlyze_reader *reader,
		     const struct mlyze_frame *frame, size_t module_index,
		     struct report_frame out[FRAME_CHAIN_MAX])
{
	memset(out, 0, sizeof(*out));
	out->address = frame->offset;
	switch (frame->form) {
	case MLYZE_FORM_PYTHON:
		out->kind = FRAME_PYTHON;
		out->function = xstrdup(frame->function->text);
		out->file = xstrdup(frame->file->text);
		out->line = frame->line;
		return 1;
	case MLYZE_FORM_MODULE:
		return resolve_native(namer, reader, frame, module_index, out);
	default:
		out->kind = FRAME_ADDRESS;
		return 1;
	}
}

void report_frame_free(struct report_frame *frame)
{
	free(frame->function);
	free(frame->file);
	frame->function = frame->file = NULL;
}

bool frame_is_named(const struct report_frame *frame)
{
	return frame->function != NULL;
}

/* "libfoo.so+0x1234" or "0x1234": a frame without a function. */
static char *address_name(const struct report_frame *frame,
			  const struct report_module *modules)
{
	struct strbuf name = { 0 };

	if (frame->kind == FRAME_NATIVE)
		sb_add(&name, base_name(modules[frame->module].path));
	sb_add(&name, frame->kind == FRAME_NATIVE ? "+0x" : "0x");
	sb_add_uint(&name, frame->address, 16);
	return sb_take(&name);
}

/* "function (file:line)" */
static char *located_name(const struct report_frame *frame)
{
	return xasprintf("%s (%s:%" PRIu64 ")", frame->function, frame->file,
			 frame->line);
}

char *frame_display_name(const struct report_frame *frame,
			 const struct report_module *modules)
{
	if (!frame->function)
		return address_name(frame, modules);
	if (frame->kind == FRAME_PYTHON)
		return xasprintf("%s (%s)", frame->function, frame->file);
	return xstrdup(frame->function);
}

static void set_label(struct frame_label *label, char *key, char *text)
{
	label->key = key;
	label->text = text ? text : xstrdup(key);
}

static void python_label(const struct report_frame *frame,
			 enum grouping grouping, struct frame_label *label)
{
	if (grouping == GROUP_BY_LINE)
		set_label(label, xasprintf("%s:%" PRIu64, frame->file,
					   frame->line),
			  NULL);
	/* By function, lines of one function are one site. */
	else if (grouping == GROUP_BY_FUNCTION)
		set_label(label, xasprintf("%s (%s)", frame->function,
					   frame->file),
			  located_name(frame));
	else
		set_label(label, located_name(frame), NULL);
}

/* "function (file:line)", marked when inlined: a line of a stack. */
static char *stack_name(const struct report_frame *frame)
{
	char *located = frame->file ? located_name(frame)
				    : xstrdup(frame->function);
	char *marked;

	if (!frame->inlined)
		return located;
	marked = xasprintf("%s (inlined)", located);
	free(located);
	return marked;
}

static void native_label(const struct report_frame *frame,
			 enum grouping grouping, struct frame_label *label)
{
	if (grouping == GROUP_BY_LINE && frame->file)
		set_label(label, xasprintf("%s:%" PRIu64, frame->file,
					   frame->line),
			  NULL);
	else if (grouping == GROUP_BY_STACK)
		set_label(label, stack_name(frame), NULL);
	else
		set_label(label, xstrdup(frame->function), NULL);
}

void frame_label(const struct report_frame *frame,
		 const struct report_module *modules, enum grouping grouping,
		 struct frame_label *label)
{
	if (!frame->function)
		set_label(label, address_name(frame, modules), NULL);
	else if (frame->kind == FRAME_PYTHON)
		python_label(frame, grouping, label);
	else
		native_label(frame, grouping, label);
}

void frame_label_free(struct frame_label *label)
{
	free(label->key);
	free(label->text);
	label->key = label->text = NULL;
}
