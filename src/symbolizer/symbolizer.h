/* symbolizer.h - offline symbolization of native frames.
 *
 * Contract: turns (module path, recorded GNU build-id, ELF virtual address)
 * into function name, source file and line, the way a distribution lays out
 * debug information: symbols from .symtab (of the separate debug file when
 * there is one, found by build-id or .gnu_debuglink) then .dynsym; file:line
 * from DWARF.  Each module is opened once per symbolizer and its symbols are
 * kept sorted for binary search, so a report can resolve many thousands of
 * frames cheaply.  Damaged or missing files never crash the caller: lookups
 * in them fail and the problem is reported once through the warn callback.
 * A symbolizer is not thread-safe; use one per thread.
 */
#ifndef SPPROF_SYMBOLIZER_H
#define SPPROF_SYMBOLIZER_H

#include <stddef.h>
#include <stdint.h>

struct symbolizer;

struct symbolizer_options {
	/* Prefix for module paths (profiles from another machine), or NULL.
	 * Nothing outside it is read for the profile's modules but the
	 * debug_dirs: a module missing there stays unsymbolized. */
	const char *sysroot;
	/* Extra dirs searched before /usr/lib/debug, may be NULL. */
	const char *const *debug_dirs;
	size_t n_debug_dirs;
	/* Called once per problem per module; NULL = stderr. */
	void (*warn)(void *ctx, const char *message);
	void *warn_ctx;
};

struct symbol_info {
	const char *function; /* demangled; NULL when unknown */
	const char *file;     /* source file when debug info has it, else NULL */
	unsigned line;        /* 0 when unknown */
	int inlined;          /* 1: inlined into the function after it */
};

/* Returns NULL and sets errno on failure.  The options are copied. */
struct symbolizer *symbolizer_new(const struct symbolizer_options *opts);

void symbolizer_free(struct symbolizer *s);

/* Resolve `offset` (an ELF virtual address: runtime address minus the
 * module's load bias) inside the module at `path` whose recorded GNU build-id
 * is `build_id_hex` (may be NULL).  `is_return_address` != 0 for every frame
 * but the leaf: offset-1 is looked up so that a call at the very end of a
 * function resolves to the caller.  When the address lies in code inlined
 * into the function, file and line name the call site in that function, so
 * the three fields always describe the same function.
 * Returns 0 and fills *out (strings owned by the symbolizer, valid until
 * symbolizer_free); returns -1 when nothing is known (module missing or
 * unreadable, no symbol covers the address). */
int symbolizer_lookup(struct symbolizer *s, const char *path,
		      const char *build_id_hex, uint64_t offset,
		      int is_return_address, struct symbol_info *out);

/* The same frame as the compiler's inlining made it: several functions,
 * innermost first.  Fills at most `max` (>= 1) entries of `out` and returns
 * their number: first each function inlined at the address (inlined = 1),
 * the innermost at its own line, each other at the line where it calls the
 * one before; last what symbolizer_lookup gives, the function that holds
 * them (when `max` is too small, the outermost inlined ones are left out).
 * Returns -1 when nothing is known. */
int symbolizer_lookup_inlined(struct symbolizer *s, const char *path,
			      const char *build_id_hex, uint64_t offset,
			      int is_return_address, struct symbol_info *out,
			      size_t max);

/* 1 when the file of the module at `path` (under the sysroot) could be
 * read, 0 when not (a warning said why). */
int symbolizer_module_readable(struct symbolizer *s, const char *path,
			       const char *build_id_hex);

#endif
