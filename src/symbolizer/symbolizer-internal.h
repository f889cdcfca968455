/* symbolizer-internal.h - the pieces symbolizer.c assembles.
 *
 * Contract: declarations shared by the symbolizer's source files only.
 *   symbolizer-elf.c       opening ELF files safely; build-id and debuglink
 *   symbolizer-debugfile.c finding the separate debug file of a module
 *   symbolizer-debuginfod.c fetching it from debuginfod servers
 *   symbolizer-symtab.c    sorted function-symbol table, demangling,
 *                          search in sorted address ranges
 *   symbolizer-lines.c     source file and line from DWARF
 * Every function here reports problems by return value and never prints;
 * symbolizer.c turns them into one warning per module.
 */
#ifndef SPPROF_SYMBOLIZER_INTERNAL_H
#define SPPROF_SYMBOLIZER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <gelf.h>

/* An ELF file mapped read-only.  `elf` is NULL when the file is not open. */
struct elf_file {
	char *path;
	Elf *elf;
};

/* Open `path` as an ELF file (the descriptor is closed again once the file
 * is mapped, so thousands of modules never exhaust descriptors).
 * Returns 0, or -1 with *problem set to a static description (strerror
 * text, libelf's message or what is wrong with the file). */
int elf_file_open(struct elf_file *f, const char *path, const char **problem);
void elf_file_close(struct elf_file *f);

/* Room for the hex form of any build-id this symbolizer handles (64 bytes;
 * linkers write 16 or 20). */
#define BUILD_ID_HEX_SIZE 129

/* The GNU build-id note as lowercase hex in buf (size >= 2*len+1).
 * Returns 0, or -1 when the file has none or it does not fit. */
int elf_file_build_id(const struct elf_file *f, char *buf, size_t size);

/* The file name and CRC recorded in .gnu_debuglink.  Returns 0, or -1 when
 * the section is absent or malformed.  *name points into the file. */
int elf_file_debuglink(const struct elf_file *f, const char **name,
		       uint32_t *crc);

/* Whether the file carries its own DWARF (.debug_info). */
bool elf_file_has_debug_info(const struct elf_file *f);

/* CRC-32 of the whole file, as .gnu_debuglink records it.  Returns 0, or
 * -1 when the file's bytes are not available. */
int elf_file_crc32(const struct elf_file *f, uint32_t *crc);

/* Where separate debug files are looked for. */
struct debug_search {
	const char *sysroot; /* NULL or without trailing '/' */
	const char *const *debug_dirs;
	size_t n_debug_dirs;
};

/* Open the debug file named by build-id `build_id_hex` under each debug
 * directory's .build-id/ tree.  Returns 0 with *out open, or -1. */
int debug_file_by_build_id(const struct debug_search *search,
			   const char *build_id_hex, struct elf_file *out);

/* Open the debug file that `module` (recorded at `module_path`, a path
 * without sysroot) names in .gnu_debuglink, checking its CRC.  Returns 0
 * with *out open, or -1; *rejected is set (malloc'd) to the first candidate
 * that existed but whose CRC differed, else left NULL. */
int debug_file_by_debuglink(const struct debug_search *search,
			    const struct elf_file *module,
			    const char *module_path, struct elf_file *out,
			    char **rejected);

/* Fetch the debug file of build-id `build_id_hex` from the servers that
 * DEBUGINFOD_URLS names, through libdebuginfod and its cache, starting
 * the client in *client on first use.  Returns 0 with *out open, or -1:
 * no servers named, none has the file, or (*problem set) something went
 * wrong that is worth a warning.  Without libdebuginfod, always -1. */
int debug_file_by_debuginfod(void **client, const char *build_id_hex,
			     struct elf_file *out, const char **problem);
void debuginfod_client_free(void *client);

/* [start, end): the first member of the elements of every sorted array
 * below, so that one binary search serves them all. */
struct address_range {
	uint64_t start;
	uint64_t end; /* exclusive */
};

/* Orders by start (a qsort comparator on such elements). */
int address_range_compare(const void *a, const void *b);

/* In `array` (`count` elements of `size` bytes, each beginning with a
 * struct address_range, sorted by start), the element whose range holds
 * `address`, or NULL. */
void *address_range_find(const void *array, size_t count, size_t size,
			 uint64_t address);

struct function_symbol {
	struct address_range range;
	const char *name;     /* in an ELF string table */
	const char *display;  /* readable name, computed on first use */
	uint16_t rank;        /* lower wins among aliases */
	unsigned char unsized; /* size 0 in the ELF file: `end` is a guess */
};

struct function_table {
	struct function_symbol *symbols;
	size_t count;
};

/* Add the function symbols of `f`: its .symtab and, when `with_dynsym`, its
 * .dynsym (which ranks below any .symtab).  Returns 0, -1 when out of
 * memory. */
int function_table_add(struct function_table *t, const struct elf_file *f,
		       int with_dynsym);
/* Sort, keep one name per address and close the gaps of size-0 symbols. */
void function_table_finish(struct function_table *t);
/* The symbol covering `address`, or NULL. */
struct function_symbol *function_table_find(const struct function_table *t,
					    uint64_t address);
/* The name without its symbol version ("fopen@@GLIBC_2.2.5"), demangled
 * when it is a C++ name; malloc'd, or NULL when `name` serves as is. */
char *readable_name(const char *name);
/* The name to show for `sym`: without symbol version, demangled. */
const char *function_symbol_display(struct function_symbol *sym);
void function_table_free(struct function_table *t);

/* A module's DWARF, with what lookups learned about its units. */
struct source_lines;

/* NULL when `elf` has no usable DWARF. */
struct source_lines *source_lines_open(Elf *elf);
void source_lines_close(struct source_lines *lines);

/* Source location of `address`, as seen from the function that holds it
 * (the call site when the address is in inlined code).  Returns 0 and
 * fills *file (owned by `lines`) and *line, or -1. */
int source_lines_find(struct source_lines *lines, uint64_t address,
		      const char **file, unsigned *line);

/* A function the compiler inlined, at a line of its own source. */
struct inlined_function {
	const char *function; /* owned by the source_lines */
	const char *file;     /* NULL when unknown */
	unsigned line;        /* 0 when unknown */
};

/* The functions inlined at `address`, innermost first: the innermost at
 * the line the line table gives, each other at the line where it calls the
 * one before.  The function that holds them is not among them: it is the
 * symbol table's, at the line source_lines_find gives.  Fills at most
 * `max` entries (the innermost ones) and returns their number, 0 when the
 * address is not in inlined code. */
size_t source_lines_inlined(struct source_lines *lines, uint64_t address,
			    struct inlined_function *out, size_t max);

#endif
