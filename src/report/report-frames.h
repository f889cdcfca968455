/* report-frames.h - what memprof-report knows of a frame.
 *
 * Contract: turns a frame of a profile into a struct report_frame,
 * symbolizing native frames offline (function, source file and line when
 * the module and its debug information can be found), and says whether the
 * frame belongs to an allocator, so that the site of an allocation is
 * never an allocator.  The list of allocator functions lives here and only
 * here.  Also names frames for the report's groupings.
 */
#ifndef SPPROF_REPORT_FRAMES_H
#define SPPROF_REPORT_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spprof/mlyze.h"
#include "symbolizer.h"

enum grouping {
	GROUP_BY_FUNCTION,
	GROUP_BY_LINE,
	GROUP_BY_STACK,
};

/* "function", "line", "stack", by enum grouping. */
extern const char *const grouping_names[3];

enum frame_kind {
	FRAME_NATIVE,  /* code in a module */
	FRAME_PYTHON,  /* interpreted code */
	FRAME_ADDRESS, /* native code outside every known module */
};

/* A module as the first profile that used it mapped it. */
struct report_module {
	char *path;
	char *build_id; /* lower-case hex; NULL when unknown */
	uint64_t start, end, load_bias;
};

struct report_frame {
	enum frame_kind kind;
	char *function; /* NULL when unknown (a stripped module) */
	char *file;     /* NULL when unknown */
	uint64_t line;  /* 0 when unknown */
	size_t module;  /* native: index in the report's modules */
	uint64_t address; /* native: ELF virtual address in the module;
			   * address: the absolute address */
	bool allocator;
	/* Its function hands allocations on to the allocator: no site
	 * unless --keep-wrappers (see report-wrappers.h). */
	bool wrapper;
	/* Why it is a wrapper, or why not though it only hands allocations
	 * on (enum wrapper_reason of report-wrappers.h), and from how many
	 * sampled callers (at most WRAPPER_CALLERS). */
	uint8_t wrapper_reason, wrapper_callers;
	bool inlined;   /* native: inlined into the next frame of the stack */
	/* Inlined from the C++ standard library's headers (std::vector's
	 * allocation plumbing...): shown in a stack, never a site. */
	bool library_inline;
	/* native: its module's file could not be read (a warning said so),
	 * so that no name was to be had. */
	bool module_unreadable;
};

struct frame_namer;

struct frame_namer *frame_namer_new(const struct symbolizer_options *options);
void frame_namer_free(struct frame_namer *namer);

/* Most frames one frame of a profile becomes: a native one is one frame
 * per function the compiler inlined at its address, and the function that
 * holds them. */
#define FRAME_CHAIN_MAX 32

_Static_assert(FRAME_CHAIN_MAX == MLYZE_SYMBOL_CHAIN_MAX,
	       "a profile carries every function the symbolizer gives");

/* What the frame of `reader`'s profile is: fills out[0..n), innermost
 * first, and returns n (>= 1).  A native frame is named by the symbols
 * the profile carries when it carries them for the frame (see
 * mlyze_find_symbols), else by its module's binary.  Their strings
 * belong to the caller (report_frame_free).  `module_index` is the index
 * the caller gave the frame's module. */
size_t frame_resolve(struct frame_namer *namer, const mlyze_reader *reader,
		     const struct mlyze_frame *frame, size_t module_index,
		     struct report_frame out[FRAME_CHAIN_MAX]);
/* The functions the binary of `module` gives at `offset` (an ELF virtual
 * address, of a frame that is a return address), innermost first, into
 * out: how many (>= 1); 0 when the module's file was read and no function
 * covers the address; -1 when it could not be read (a warning said why).
 * The strings belong to the namer. */
int frame_binary_symbols(struct frame_namer *namer,
			 const struct mlyze_module *module, uint64_t offset,
			 struct mlyze_symbol out[FRAME_CHAIN_MAX]);
void report_frame_free(struct report_frame *frame);

/* The name of a frame for a group of frames.  Sites with the same key are
 * merged; the text is what the report shows, and may say more than the
 * key (a Python line within a function).  Both strings belong to the
 * caller.  `modules` gives the names of unknown native functions
 * ("libfoo.so+0x1234"). */
struct frame_label {
	char *key;
	char *text;
};

void frame_label(const struct report_frame *frame,
		 const struct report_module *modules, enum grouping grouping,
		 struct frame_label *label);
void frame_label_free(struct frame_label *label);

/* "build_index", "render (/srv/app.py)" for Python, "libfoo.so+0x1234"
 * when the function is unknown, "0x1234" outside every module: the name a
 * flame graph shows, one per function (the lines of a function are one
 * box).  Belongs to the caller. */
char *frame_display_name(const struct report_frame *frame,
			 const struct report_module *modules);
/* Whether the function `name` is one of `names` or starts with one of
 * `prefixes` (both NULL-terminated). */
bool function_listed(const char *name, const char *const names[],
		     const char *const prefixes[]);
/* Whether the frame has a name of code (a function), not only an address. */
bool frame_is_named(const struct report_frame *frame);

#endif /* SPPROF_REPORT_FRAMES_H */
