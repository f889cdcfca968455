/* object-info.c - load bias and build-id of loaded objects.
 *
 * Contract: see object-info.h.
 */
#define _GNU_SOURCE
#include <link.h>
#include <string.h>

#include "object-info.h"

#define NT_GNU_BUILD_ID_TYPE 3

struct search {
	uintptr_t address;
	struct object_info *info;
	int found;
};

static void hex_encode(const unsigned char *bytes, size_t len, char *out,
		       size_t size)
{
	static const char digits[] = "0123456789abcdef";

	out[0] = '\0';
	if (2 * len + 1 > size)
		return;
	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 15];
	}
	out[2 * len] = '\0';
}

static size_t align_up(size_t n, size_t alignment)
{
	return (n + alignment - 1) & ~(alignment - 1);
}

/* Notes of a PT_NOTE segment are padded to the segment's alignment. */
static void read_build_id(const unsigned char *notes, size_t size,
			  size_t alignment, struct object_info *info)
{
	size_t offset = 0;

	while (offset + sizeof(ElfW(Nhdr)) <= size) {
		const ElfW(Nhdr) *note = (const void *)(notes + offset);
		size_t name = offset + sizeof *note;
		size_t desc = name + align_up(note->n_namesz, alignment);

		if (desc + note->n_descsz > size)
			return;
		if (note->n_type == NT_GNU_BUILD_ID_TYPE &&
		    note->n_namesz == 4 && memcmp(notes + name, "GNU", 4) == 0) {
			hex_encode(notes + desc, note->n_descsz, info->build_id,
				   sizeof info->build_id);
			return;
		}
		offset = desc + align_up(note->n_descsz, alignment);
	}
}

static int holds_address(const struct dl_phdr_info *object, uintptr_t address)
{
	for (int i = 0; i < object->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &object->dlpi_phdr[i];
		uintptr_t start = object->dlpi_addr + p->p_vaddr;

		if (p->p_type == PT_LOAD && address >= start &&
		    address - start < p->p_memsz)
			return 1;
	}
	return 0;
}

static int visit(struct dl_phdr_info *object, size_t size, void *data)
{
	struct search *search = data;

	(void)size;
	if (!holds_address(object, search->address))
		return 0;
	search->info->path = object->dlpi_name;
	search->info->load_bias = object->dlpi_addr;
	search->info->build_id[0] = '\0';
	for (int i = 0; i < object->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &object->dlpi_phdr[i];

		if (p->p_type == PT_NOTE && search->info->build_id[0] == '\0')
			read_build_id((const unsigned char *)object->dlpi_addr +
					      p->p_vaddr,
				      p->p_memsz, p->p_align == 8 ? 8 : 4,
				      search->info);
	}
	search->found = 1;
	return 1;
}

int object_info_find(const void *address, struct object_info *info)
{
	struct search search = { (uintptr_t)address, info, 0 };

	dl_iterate_phdr(visit, &search);
	return search.found ? 0 : -1;
}

uintptr_t object_offset(const void *address)
{
	struct object_info info;

	if (object_info_find(address, &info) != 0)
		return 0;
	return (uintptr_t)address - info.load_bias;
}
