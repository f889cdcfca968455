/* malloc_owner.c - whose malloc the program's calls reach (see
 * malloc_owner.h).
 *
 * Why the symbol tables and not dlsym(RTLD_DEFAULT, "malloc"): in an
 * executable built without -fPIE that takes malloc's address, that is the
 * executable's own PLT entry, whoever it leads to.  An object's dynamic
 * symbol table says what it defines; its hash table (GNU, or the older
 * System V one) finds a name without walking the table, whose length the
 * dynamic section does not give.
 */
#include "config.h"

#include "malloc_owner.h"

#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "loaded_objects.h"

/* The functions whose definition decides where the program's blocks go. */
static const char *const family[] = { "malloc", "free" };

static char other[PATH_MAX];

/* What an object's dynamic section says of its symbols. */
struct symbol_tables {
	const ElfW(Sym) *symbols;
	const char *strings;
	const uint32_t *gnu_hash, *sysv_hash;
};

static uint32_t gnu_hash_of(const char *name)
{
	uint32_t h = 5381;

	for (; *name; name++)
		h = h * 33 + (uint8_t)*name;
	return h;
}

static uint32_t sysv_hash_of(const char *name)
{
	uint32_t h = 0;

	for (; *name; name++) {
		uint32_t high;

		h = (h << 4) + (uint8_t)*name;
		high = h & 0xf0000000;
		h ^= high >> 24;
		h &= ~high;
	}
	return h;
}

/* The index of the symbol `name` in a GNU hash table, or 0: buckets of
 * indexes into the symbols (those from `first` on are hashed), each
 * chain of hashes ending with its lowest bit set. */
static size_t gnu_find(const struct symbol_tables *t, const char *name)
{
	const uint32_t *h = t->gnu_hash;
	uint32_t buckets = h[0], first = h[1], bloom_words = h[2];
	const uint32_t *bucket =
		(const uint32_t *)((const ElfW(Addr) *)(h + 4) + bloom_words);
	const uint32_t *chain = bucket + buckets;
	uint32_t hash = gnu_hash_of(name);

	if (buckets == 0)
		return 0;
	for (uint32_t i = bucket[hash % buckets]; i >= first && i != 0; i++) {
		uint32_t other_hash = chain[i - first];

		if ((other_hash | 1) == (hash | 1) &&
		    !strcmp(t->strings + t->symbols[i].st_name, name))
			return i;
		if (other_hash & 1)
			break;
	}
	return 0;
}

/* The same in a System V hash table: buckets, then a chain per symbol. */
static size_t sysv_find(const struct symbol_tables *t, const char *name)
{
	const uint32_t *h = t->sysv_hash;
	uint32_t buckets = h[0];
	const uint32_t *bucket = h + 2, *chain = bucket + buckets;

	if (buckets == 0)
		return 0;
	for (uint32_t i = bucket[sysv_hash_of(name) % buckets]; i != 0;
	     i = chain[i])
		if (!strcmp(t->strings + t->symbols[i].st_name, name))
			return i;
	return 0;
}

static int read_tables(const struct dl_phdr_info *object,
		       struct symbol_tables *t)
{
	const ElfW(Dyn) *d = object_dynamic_section(object);

	memset(t, 0, sizeof(*t));
	for (; d && d->d_tag != DT_NULL; d++) {
		uintptr_t at = object_dynamic_address(d->d_un.d_ptr,
						      object->dlpi_addr);

		switch (d->d_tag) {
		case DT_SYMTAB: t->symbols = (const ElfW(Sym) *)at; break;
		case DT_STRTAB: t->strings = (const char *)at; break;
		case DT_GNU_HASH: t->gnu_hash = (const uint32_t *)at; break;
		case DT_HASH: t->sysv_hash = (const uint32_t *)at; break;
		}
	}
	return t->symbols && t->strings && (t->gnu_hash || t->sysv_hash)
		       ? 0 : -1;
}

/* Whether the object defines the function `name` for others to call. */
static int defines(const struct symbol_tables *t, const char *name)
{
	size_t i = t->gnu_hash ? gnu_find(t, name) : sysv_find(t, name);
	const ElfW(Sym) *s = &t->symbols[i];
	/* The ELF32_ macros are the same as these. */
	unsigned type = ELF64_ST_TYPE(s->st_info),
		 binding = ELF64_ST_BIND(s->st_info);

	return i != 0 && s->st_shndx != SHN_UNDEF &&
	       (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       (binding == STB_GLOBAL || binding == STB_WEAK) &&
	       ELF64_ST_VISIBILITY(s->st_other) != STV_HIDDEN;
}

/* The path of the runtime's own file, to stop the walk at. */
static const char *runtime_path(void)
{
	Dl_info info;

	return dladdr((void *)malloc_owner_check, &info) ? info.dli_fname
							   : NULL;
}

/* Stops at the runtime (its functions come first) or at the first object
 * that defines one of the family, whose path it keeps. */
static int find_owner(const struct dl_phdr_info *object, void *data)
{
	const char *runtime = data;
	struct symbol_tables t;
	ssize_t n;

	if (runtime && !strcmp(object->dlpi_name, runtime))
		return 1;
	if (read_tables(object, &t) < 0)
		return 0;
	for (size_t i = 0; i < sizeof(family) / sizeof(family[0]); i++) {
		if (!defines(&t, family[i]))
			continue;
		if (object->dlpi_name[0]) {
			strncpy(other, object->dlpi_name, sizeof(other) - 1);
			return 1;
		}
		/* The executable is named "" */
		n = readlink("/proc/self/exe", other, sizeof(other) - 1);
		other[n > 0 ? n : 0] = '\0';
		if (n <= 0)
			strcpy(other, "the executable");
		return 1;
	}
	return 0;
}

void malloc_owner_check(void)
{
	loaded_objects_each(find_owner, (void *)runtime_path());
}

const char *malloc_owner_other(void)
{
	return other[0] ? other : NULL;
}
