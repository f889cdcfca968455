/* symbolizer-lines.c - source file and line of an address, from DWARF.
 *
 * Contract: see symbolizer-internal.h.  The symbol table names the function
 * a frame executes in, even when the compiler inlined other functions into
 * it; the line table names the innermost inlined source line.  To keep the
 * function, file and line of a frame consistent, an address inside inlined
 * code is reported at the call site of the outermost inlined call, which is
 * a line of the function itself.
 *
 * Two sorted range indexes make lookups binary searches:
 *  - address -> compilation unit, built when the DWARF is opened from the
 *    units' own ranges (.debug_aranges is optional: Clang omits it, and
 *    libdw's dwarf_addrdie finds nothing without it);
 *  - per unit, address -> outermost inlined call, built on the unit's first
 *    lookup (walking the unit's DIE tree on every lookup costs tens of
 *    microseconds, far more in large C++ units).
 * The chain of inlined functions at an address (source_lines_inlined) is
 * asked for only where the call-site index says there is one, so plain
 * code never pays for libdw's walk of the unit's scopes.
 */
#include <config.h>

#include <dwarf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer-internal.h"

/* An address range of a unit (in the unit index) or of an outermost
 * inlined call (in a unit's call-site index). */
struct code_range {
	struct address_range range;
	size_t unit;
	const char *file;
	unsigned line;
};

struct range_index {
	struct code_range *ranges; /* sorted by start once complete */
	size_t count;
	size_t capacity;
};

struct unit {
	Dwarf_Off die;
	bool call_sites_collected;
	struct range_index call_sites;
};

struct source_lines {
	Dwarf *dwarf;
	struct unit *units;
	size_t n_units;
	size_t units_capacity;
	struct range_index unit_ranges;
	/* Names of inlined functions handed out (demangled copies). */
	char **names;
	size_t n_names, names_capacity;
};

static int grow(void **array, size_t *capacity, size_t count, size_t size)
{
	size_t n = *capacity != 0 ? *capacity * 2 : 16;
	void *grown;

	if (count < *capacity)
		return 0;
	grown = realloc(*array, n * size);
	if (grown == NULL)
		return -1;
	*array = grown;
	*capacity = n;
	return 0;
}

/* Adds every address range of `die` (low/high pc or DW_AT_ranges). */
static int range_index_add_die(struct range_index *index, Dwarf_Die *die,
			       struct code_range what)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t offset = 0;

	while ((offset = dwarf_ranges(die, offset, &base, &start, &end)) > 0) {
		/* Code the linker discarded keeps ranges at address 0. */
		if (start == 0 || start >= end)
			continue;
		if (grow((void **)&index->ranges, &index->capacity,
			 index->count, sizeof *index->ranges) != 0)
			return -1;
		what.range.start = start;
		what.range.end = end;
		index->ranges[index->count++] = what;
	}
	return 0;
}

static void range_index_sort(struct range_index *index)
{
	if (index->count > 0)
		qsort(index->ranges, index->count, sizeof *index->ranges,
		      address_range_compare);
}

static const struct code_range *
range_index_find(const struct range_index *index, uint64_t address)
{
	return address_range_find(index->ranges, index->count,
				  sizeof *index->ranges, address);
}

static int add_unit(struct source_lines *lines, Dwarf_Die *cudie)
{
	struct code_range what = { .unit = lines->n_units };

	if (grow((void **)&lines->units, &lines->units_capacity,
		 lines->n_units, sizeof *lines->units) != 0)
		return -1;
	lines->units[lines->n_units++] = (struct unit){
		.die = dwarf_dieoffset(cudie)
	};
	return range_index_add_die(&lines->unit_ranges, cudie, what);
}

struct source_lines *source_lines_open(Elf *elf)
{
	struct source_lines *lines;
	Dwarf *dwarf = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;

	if (dwarf == NULL)
		return NULL;
	lines = calloc(1, sizeof *lines);
	if (lines == NULL) {
		dwarf_end(dwarf);
		return NULL;
	}
	lines->dwarf = dwarf;
	while (dwarf_get_units(dwarf, cu, &cu, NULL, NULL, &cudie, NULL) == 0)
		if (add_unit(lines, &cudie) != 0)
			break; /* out of memory: keep the units found so far */
	range_index_sort(&lines->unit_ranges);
	return lines;
}

void source_lines_close(struct source_lines *lines)
{
	if (lines == NULL)
		return;
	for (size_t i = 0; i < lines->n_units; i++)
		free(lines->units[i].call_sites.ranges);
	free(lines->units);
	free(lines->unit_ranges.ranges);
	for (size_t i = 0; i < lines->n_names; i++)
		free(lines->names[i]);
	free(lines->names);
	dwarf_end(lines->dwarf);
	free(lines);
}

/* Where the inlined subroutine `inlined` was called from. */
static int call_site(Dwarf_Files *files, size_t n_files, Dwarf_Die *inlined,
		     struct code_range *site)
{
	Dwarf_Attribute attr;
	Dwarf_Word file_index, line_number;

	if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attr),
			    &file_index) != 0 ||
	    dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attr),
			    &line_number) != 0 ||
	    line_number == 0 || line_number > UINT32_MAX ||
	    file_index >= n_files)
		return -1;
	site->file = dwarf_filesrc(files, file_index, NULL, NULL);
	site->line = (unsigned)line_number;
	return site->file != NULL ? 0 : -1;
}

/* Collect the inlined calls below `parent` that are not themselves inside
 * an inlined call. */
static int collect_outermost(struct range_index *sites, Dwarf_Files *files,
			     size_t n_files, Dwarf_Die *parent)
{
	Dwarf_Die child;
	int more = dwarf_child(parent, &child) == 0;

	for (; more; more = dwarf_siblingof(&child, &child) == 0) {
		struct code_range site;
		int failed = 0;

		if (dwarf_tag(&child) != DW_TAG_inlined_subroutine)
			failed = dwarf_haschildren(&child) > 0 &&
				 collect_outermost(sites, files, n_files,
						   &child) != 0;
		else if (call_site(files, n_files, &child, &site) == 0)
			failed = range_index_add_die(sites, &child, site) != 0;
		if (failed)
			return -1;
	}
	return 0;
}

static void collect_call_sites(struct unit *u, Dwarf_Die *cudie)
{
	Dwarf_Files *files;
	size_t n_files;

	u->call_sites_collected = true;
	/* Damaged or incomplete: lookups use the line table alone. */
	if (dwarf_getsrcfiles(cudie, &files, &n_files) != 0 ||
	    collect_outermost(&u->call_sites, files, n_files, cudie) != 0)
		u->call_sites.count = 0;
	range_index_sort(&u->call_sites);
}

/* The unit holding `address` (its call sites collected) in *cudie. */
static struct unit *unit_at(struct source_lines *lines, uint64_t address,
			    Dwarf_Die *cudie)
{
	const struct code_range *in_unit;
	struct unit *u;

	in_unit = range_index_find(&lines->unit_ranges, address);
	if (in_unit == NULL)
		return NULL;
	u = &lines->units[in_unit->unit];
	if (dwarf_offdie(lines->dwarf, u->die, cudie) == NULL)
		return NULL;
	if (!u->call_sites_collected)
		collect_call_sites(u, cudie);
	return u;
}

/* The line table's line for `address`. */
static int line_of(Dwarf_Die *cudie, uint64_t address, const char **file,
		   unsigned *line)
{
	Dwarf_Line *row = dwarf_getsrc_die(cudie, address);
	int number;

	if (row == NULL || dwarf_lineno(row, &number) != 0 || number <= 0)
		return -1;
	*file = dwarf_linesrc(row, NULL, NULL);
	*line = (unsigned)number;
	return *file != NULL ? 0 : -1;
}

int source_lines_find(struct source_lines *lines, uint64_t address,
		      const char **file, unsigned *line)
{
	const struct code_range *site;
	Dwarf_Die cudie;
	struct unit *u = unit_at(lines, address, &cudie);

	if (u == NULL)
		return -1;
	site = range_index_find(&u->call_sites, address);
	if (site != NULL) {
		*file = site->file;
		*line = site->line;
		return 0;
	}
	return line_of(&cudie, address, file, line);
}

/* The readable name of the function `inlined` is an instance of (its
 * linkage name demangled, which says the class and template arguments,
 * else its plain name), kept in `lines`; NULL when it has none. */
static const char *inlined_name(struct source_lines *lines, Dwarf_Die *inlined)
{
	Dwarf_Attribute attr;
	const char *linkage, *name;
	char *copy;

	linkage = dwarf_formstring(
		dwarf_attr_integrate(inlined, DW_AT_linkage_name, &attr));
	if (linkage == NULL)
		linkage = dwarf_formstring(dwarf_attr_integrate(
			inlined, DW_AT_MIPS_linkage_name, &attr));
	name = dwarf_formstring(dwarf_attr_integrate(inlined, DW_AT_name,
						     &attr));
	if (linkage == NULL && name == NULL)
		return NULL;
	copy = linkage != NULL ? readable_name(linkage) : NULL;
	if (copy == NULL)
		copy = strdup(linkage != NULL ? linkage : name);
	if (copy == NULL ||
	    grow((void **)&lines->names, &lines->names_capacity,
		 lines->n_names, sizeof *lines->names) != 0) {
		free(copy);
		return NULL;
	}
	lines->names[lines->n_names++] = copy;
	return copy;
}

/* Fills out[] from the scopes at an address, innermost first, starting
 * at the location (file, line) of the innermost. */
static size_t chain_of_scopes(struct source_lines *lines, Dwarf_Die *cudie,
			      Dwarf_Die *scopes, int n_scopes,
			      struct inlined_function where,
			      struct inlined_function *out, size_t max)
{
	Dwarf_Files *files;
	size_t n_files, count = 0;

	if (dwarf_getsrcfiles(cudie, &files, &n_files) != 0)
		return 0;
	for (int i = 0; i < n_scopes && count < max; i++) {
		struct code_range site;
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue; /* a lexical block */
		where.function = inlined_name(lines, &scopes[i]);
		if (where.function == NULL)
			break;
		out[count++] = where;
		if (call_site(files, n_files, &scopes[i], &site) != 0)
			site = (struct code_range){ .file = NULL, .line = 0 };
		where.file = site.file;
		where.line = site.line;
	}
	return count;
}

/* The innermost inlined call at `address` and every scope that holds it
 * in the unit's tree, innermost first, in *scopes (malloc'd); their number,
 * <= 0 when there is none.  (dwarf_getscopes follows an inlined call into
 * its abstract definition, not out to its caller.) */
static int scopes_of_innermost_call(Dwarf_Die *cudie, uint64_t address,
				    Dwarf_Die **scopes)
{
	Dwarf_Die *at_address = NULL;
	int n = dwarf_getscopes(cudie, address, &at_address), found = -1;

	for (int i = 0; i < n && found < 0; i++)
		if (dwarf_tag(&at_address[i]) == DW_TAG_inlined_subroutine)
			found = i;
	n = found >= 0 ? dwarf_getscopes_die(&at_address[found], scopes) : -1;
	free(at_address);
	return n;
}

size_t source_lines_inlined(struct source_lines *lines, uint64_t address,
			    struct inlined_function *out, size_t max)
{
	struct inlined_function innermost = { NULL, NULL, 0 };
	Dwarf_Die cudie, *scopes = NULL;
	struct unit *u = unit_at(lines, address, &cudie);
	int n_scopes;
	size_t count;

	if (u == NULL || range_index_find(&u->call_sites, address) == NULL)
		return 0;
	n_scopes = scopes_of_innermost_call(&cudie, address, &scopes);
	if (n_scopes <= 0)
		return 0;
	if (line_of(&cudie, address, &innermost.file, &innermost.line) != 0)
		innermost = (struct inlined_function){ NULL, NULL, 0 };
	count = chain_of_scopes(lines, &cudie, scopes, n_scopes, innermost,
				out, max);
	free(scopes);
	return count;
}
