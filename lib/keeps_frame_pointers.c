/* keeps_frame_pointers.c - which objects keep frame pointers (see
 * keeps_frame_pointers.h). */
#include "config.h"

#include "keeps_frame_pointers.h"

#include <stdint.h>
#include <string.h>

#include "eh_frame_hdr.h"
#include "unwind_arch.h"

#define SAMPLED_FUNCTIONS 64

static const uint8_t *search_table(const struct dl_phdr_info *info,
				   uint32_t *count)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *hdr;

		if (ph->p_type != PT_GNU_EH_FRAME ||
		    ph->p_memsz < EH_FRAME_HDR_TABLE)
			continue;
		hdr = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		*count = eh_frame_hdr_count(hdr);
		if ((uint64_t)*count * EH_FRAME_HDR_ENTRY >
		    ph->p_memsz - EH_FRAME_HDR_TABLE)
			return NULL;
		return hdr;
	}
	return NULL;
}

/* Whether [code, code + PROLOGUE_BYTES) lies in an executable segment
 * of the object, and so can be read. */
static int readable_code(const struct dl_phdr_info *info, uintptr_t code)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    code >= start && code + PROLOGUE_BYTES <= start + ph->p_filesz)
			return 1;
	}
	return 0;
}

int object_keeps_frame_pointers(const struct dl_phdr_info *info)
{
	uint32_t count, step, looked = 0, with = 0;
	const uint8_t *hdr = search_table(info, &count);

	if (!hdr || count == 0)
		return 0;
	step = count > SAMPLED_FUNCTIONS ? count / SAMPLED_FUNCTIONS : 1;
	for (uint32_t i = 0; i < count; i += step) {
		uintptr_t code = eh_frame_hdr_entry(hdr, i).function;

		if (!readable_code(info, code))
			continue;
		looked++;
		with += sets_up_frame_pointer((const uint8_t *)code);
	}
	/* Objects built with frame pointers show the prologue in well over
	 * a third of their functions (the others need no frame, or set it
	 * up later on the paths that do); objects built without, in a
	 * tenth at most (those that need a frame pointer anyway). */
	return looked && with * 3 >= looked;
}
