/* keeps_frame_pointers.c - which objects keep frame pointers (see
 * keeps_frame_pointers.h). */
#include "config.h"

#include "keeps_frame_pointers.h"

#include <stdint.h>
#include <string.h>

#include "eh_frame_hdr.h"
#include "loaded_objects.h"
#include "unwind_arch.h"

#define SAMPLED_FUNCTIONS 64

static const uint8_t *search_table(const struct dl_phdr_info *info,
				   uint32_t *count)
{
	struct object_segment segment;
	int next = 0;

	while (object_next_segment(info, PT_GNU_EH_FRAME, &next, &segment)) {
		const uint8_t *hdr = (const uint8_t *)segment.start;
		uintptr_t size = segment.end - segment.start;

		if (size < EH_FRAME_HDR_TABLE)
			continue;
		*count = eh_frame_hdr_count(hdr);
		if ((uint64_t)*count * EH_FRAME_HDR_ENTRY >
		    size - EH_FRAME_HDR_TABLE)
			return NULL;
		return hdr;
	}
	return NULL;
}

/* Whether [code, code + PROLOGUE_BYTES) lies in an executable segment
 * of the object, and so can be read. */
static int readable_code(const struct dl_phdr_info *info, uintptr_t code)
{
	struct object_segment load;
	int next = 0;

	while (object_next_segment(info, PT_LOAD, &next, &load))
		if ((load.flags & PF_X) && code >= load.start &&
		    code + PROLOGUE_BYTES <= load.file_end)
			return 1;
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
