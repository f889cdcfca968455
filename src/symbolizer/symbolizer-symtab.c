/* symbolizer-symtab.c - the sorted table of a module's function symbols.
 *
 * Contract: see symbolizer-internal.h.  Symbols of type FUNC (and GNU
 * IFUNC, whose value is the resolver's code) are collected from .symtab and
 * .dynsym, sorted by address and reduced to one name per address, so a
 * lookup is one binary search.  A symbol of size 0 covers the addresses up
 * to the next symbol (or the end of its section).
 *
 * Demangling uses __cxa_demangle from libstdc++: it is the reference
 * implementation of the Itanium C++ ABI mangling that GCC and Clang emit,
 * libstdc++ is installed wherever a C++ program runs, and the alternative
 * (libiberty) is shipped by Debian only as a static archive.
 */
#include <config.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer-internal.h"

char *__cxa_demangle(const char *mangled, char *buffer, size_t *length,
		     int *status);

/* Among aliases of one address, prefer the name a programmer would write,
 * in this order: from .symtab rather than .dynsym; sized rather than a bare
 * label; not a compatibility version ("cfree@GLIBC_2.2.5"); fewer leading
 * underscores ("calloc" over "__libc_calloc"); global, weak, then local.
 * The criteria are packed most significant first, so lower wins. */
static uint16_t alias_rank(const GElf_Sym *sym, const char *name,
			   int from_dynsym)
{
	const char *at = strchr(name, '@');
	unsigned binding = GELF_ST_BIND(sym->st_info);
	unsigned binding_rank = binding == STB_GLOBAL || binding == STB_GNU_UNIQUE
					? 0
				: binding == STB_WEAK ? 1
						      : 2;
	size_t underscores = strspn(name, "_");

	return (uint16_t)((from_dynsym != 0) << 8 | (sym->st_size == 0) << 7 |
			  (at != NULL && at[1] != '@') << 6 |
			  (underscores < 15 ? underscores : 15) << 2 |
			  binding_rank);
}

/* End of the section holding `sym`, the bound of a size-0 symbol. */
static uint64_t section_end(Elf *elf, const GElf_Sym *sym)
{
	Elf_Scn *scn = sym->st_shndx < SHN_LORESERVE
			       ? elf_getscn(elf, sym->st_shndx)
			       : NULL;
	GElf_Shdr shdr;

	if (scn == NULL || gelf_getshdr(scn, &shdr) == NULL ||
	    shdr.sh_addr + shdr.sh_size <= sym->st_value)
		return sym->st_value + 1;
	return shdr.sh_addr + shdr.sh_size;
}

static bool is_function(const GElf_Sym *sym)
{
	unsigned type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       sym->st_shndx != SHN_UNDEF && sym->st_value != 0 &&
	       sym->st_value + sym->st_size >= sym->st_value;
}

static int add_section(struct function_table *t, Elf *elf, Elf_Scn *scn,
		       const GElf_Shdr *shdr, int from_dynsym)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t entry_size = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	size_t n, i;
	struct function_symbol *grown;

	if (data == NULL || data->d_buf == NULL || entry_size == 0)
		return 0;
	n = data->d_size / entry_size;
	if (n == 0)
		return 0;
	grown = realloc(t->symbols, (t->count + n) * sizeof *grown);
	if (grown == NULL)
		return -1;
	t->symbols = grown;
	for (i = 1; i < n; i++) {
		struct function_symbol *f = &t->symbols[t->count];
		GElf_Sym sym;
		const char *name;

		if (gelf_getsym(data, (int)i, &sym) == NULL || !is_function(&sym))
			continue;
		name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		if (name == NULL || name[0] == '\0')
			continue;
		f->range.start = sym.st_value;
		f->range.end = sym.st_size != 0 ? sym.st_value + sym.st_size
						: section_end(elf, &sym);
		f->name = name;
		f->display = NULL;
		f->unsized = sym.st_size == 0;
		f->rank = alias_rank(&sym, name, from_dynsym);
		t->count++;
	}
	return 0;
}

int function_table_add(struct function_table *t, const struct elf_file *f,
		       int with_dynsym)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &shdr) == NULL)
			continue;
		if (shdr.sh_type == SHT_SYMTAB &&
		    add_section(t, f->elf, scn, &shdr, 0) != 0)
			return -1;
		if (shdr.sh_type == SHT_DYNSYM && with_dynsym &&
		    add_section(t, f->elf, scn, &shdr, 1) != 0)
			return -1;
	}
	return 0;
}

int address_range_compare(const void *pa, const void *pb)
{
	const struct address_range *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

void *address_range_find(const void *array, size_t count, size_t size,
			 uint64_t address)
{
	const char *bytes = array;
	const struct address_range *found;
	size_t low = 0, high = count;

	/* Find the first element starting after `address`... */
	while (low < high) {
		size_t mid = low + (high - low) / 2;
		const struct address_range *r = (const void *)(bytes + mid * size);

		if (r->start <= address)
			low = mid + 1;
		else
			high = mid;
	}
	/* ...so the one before it is the only candidate. */
	if (low == 0)
		return NULL;
	found = (const void *)(bytes + (low - 1) * size);
	return address < found->end ? (void *)found : NULL;
}

/* By address, then best alias first; the name decides last so the choice
 * does not depend on the order of the symbol tables. */
static int compare_symbols(const void *pa, const void *pb)
{
	const struct function_symbol *a = pa, *b = pb;
	int by_address = address_range_compare(pa, pb);

	if (by_address != 0)
		return by_address;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return strcmp(a->name, b->name);
}

void function_table_finish(struct function_table *t)
{
	size_t kept = 0;

	if (t->count == 0)
		return;
	qsort(t->symbols, t->count, sizeof *t->symbols, compare_symbols);
	for (size_t i = 0; i < t->count; i++)
		if (kept == 0 || t->symbols[kept - 1].range.start !=
					 t->symbols[i].range.start)
			t->symbols[kept++] = t->symbols[i];
	t->count = kept;
	for (size_t i = 0; i + 1 < t->count; i++) {
		struct function_symbol *f = &t->symbols[i];

		if (f->unsized && f->range.end > t->symbols[i + 1].range.start)
			f->range.end = t->symbols[i + 1].range.start;
	}
}

struct function_symbol *function_table_find(const struct function_table *t,
					    uint64_t address)
{
	return address_range_find(t->symbols, t->count, sizeof *t->symbols,
				  address);
}

char *readable_name(const char *name)
{
	const char *at = strchr(name, '@');
	char *bare = at != NULL ? strndup(name, (size_t)(at - name)) : NULL;
	const char *mangled = bare != NULL ? bare : name;
	char *demangled = NULL;
	int status = -1;

	if (strncmp(mangled, "_Z", 2) == 0)
		demangled = __cxa_demangle(mangled, NULL, NULL, &status);
	if (status == 0 && demangled != NULL) {
		free(bare);
		return demangled;
	}
	free(demangled);
	return bare;
}

const char *function_symbol_display(struct function_symbol *sym)
{
	if (sym->display == NULL) {
		char *readable = readable_name(sym->name);

		sym->display = readable != NULL ? readable : sym->name;
	}
	return sym->display;
}

void function_table_free(struct function_table *t)
{
	for (size_t i = 0; i < t->count; i++)
		if (t->symbols[i].display != t->symbols[i].name)
			free((char *)t->symbols[i].display);
	free(t->symbols);
	t->symbols = NULL;
	t->count = 0;
}
