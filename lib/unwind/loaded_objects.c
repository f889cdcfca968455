/* loaded_objects.c - the loaded objects (see loaded_objects.h). */
#include "config.h"

#include "loaded_objects.h"

#include <stddef.h>

struct each {
	loaded_object_visit *visit;
	void *data;
};

static int visit_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct each *each = data;

	(void)size;
	return each->visit(info, each->data);
}

int loaded_objects_each(loaded_object_visit *visit, void *data)
{
	struct each each = { visit, data };

	return dl_iterate_phdr(visit_object, &each);
}

struct counts {
	int known;
	unsigned long long adds, subs;
};

/* The counters are the same in every object's report: the first one's
 * will do. */
static int read_counts(struct dl_phdr_info *info, size_t size, void *data)
{
	struct counts *c = data;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) +
			    sizeof(info->dlpi_subs)) {
		c->known = 1;
		c->adds = info->dlpi_adds;
		c->subs = info->dlpi_subs;
	}
	return 1;
}

int loaded_objects_counts(unsigned long long *adds, unsigned long long *subs)
{
	struct counts c = { 0, 0, 0 };

	dl_iterate_phdr(read_counts, &c);
	*adds = c.adds;
	*subs = c.subs;
	return c.known;
}

int object_next_segment(const struct dl_phdr_info *object, uint32_t type,
			int *next, struct object_segment *segment)
{
	for (; *next < object->dlpi_phnum; (*next)++) {
		const ElfW(Phdr) *ph = &object->dlpi_phdr[*next];
		uintptr_t start = object->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != type)
			continue;
		*segment = (struct object_segment){
			.start = start,
			.end = start + ph->p_memsz,
			.file_end = start + ph->p_filesz,
			.flags = ph->p_flags,
		};
		(*next)++;
		return 1;
	}
	return 0;
}

const ElfW(Dyn) *object_dynamic_section(const struct dl_phdr_info *object)
{
	for (ElfW(Half) i = 0; i < object->dlpi_phnum; i++)
		if (object->dlpi_phdr[i].p_type == PT_DYNAMIC)
			return (const ElfW(Dyn) *)(object->dlpi_addr +
						    object->dlpi_phdr[i].p_vaddr);
	return NULL;
}

uintptr_t object_dynamic_address(ElfW(Addr) value, uintptr_t base)
{
	return value < base ? value + base : value;
}
