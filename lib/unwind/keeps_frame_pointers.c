/* keeps_frame_pointers.c - which objects keep frame pointers (see
 * keeps_frame_pointers.h). */
#include "config.h"

#include "keeps_frame_pointers.h"

#include <stdint.h>
#include <string.h>

#include "eh_frame_hdr.h"
#include "loaded_objects.h"
#include "unwind_arch.h"

/* The functions looked at: SAMPLED_RUNS runs of FUNCTIONS_PER_RUN
 * neighbours in the search table, one run in the middle of each part of
 * it.  Neighbours in the table are neighbours in the code, so a run's
 * prologues lie on a page or two; probes spread one by one over the whole
 * object would have the kernel map most of its text into the process (it
 * maps the pages around each one read), which a program that never calls
 * into the object would not have. */
#define SAMPLED_RUNS 4
#define FUNCTIONS_PER_RUN 16

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

/* Counts, among the functions first..end - 1 of the search table (of
 * count), those whose code can be read and those of them that set up a
 * frame pointer.  The instructions looked for are taken from no further
 * than where the next function starts; the table does not say where the
 * last one ends, so it is left out. */
static void probe_functions(const struct dl_phdr_info *info,
			    const uint8_t *hdr, uint32_t count, uint32_t first,
			    uint32_t end, uint32_t *looked, uint32_t *with)
{
	for (uint32_t i = first; i < end && i + 1 < count; i++) {
		uintptr_t code = eh_frame_hdr_entry(hdr, i).function;
		uintptr_t next = eh_frame_hdr_entry(hdr, i + 1).function;

		if (next <= code || !readable_code(info, code))
			continue;
		(*looked)++;
		*with += sets_up_frame_pointer(
			(const uint8_t *)code,
			next - code < PROLOGUE_BYTES ? next - code
						     : PROLOGUE_BYTES);
	}
}

int object_keeps_frame_pointers(const struct dl_phdr_info *info)
{
	uint32_t count, looked = 0, with = 0;
	const uint8_t *hdr = search_table(info, &count);

	if (!hdr || count == 0)
		return 0;
	if (count <= SAMPLED_RUNS * FUNCTIONS_PER_RUN) {
		probe_functions(info, hdr, count, 0, count, &looked, &with);
	} else {
		uint32_t part = count / SAMPLED_RUNS;

		for (uint32_t run = 0; run < SAMPLED_RUNS; run++) {
			uint32_t first = run * part +
					 (part - FUNCTIONS_PER_RUN) / 2;

			probe_functions(info, hdr, count, first,
					first + FUNCTIONS_PER_RUN, &looked,
					&with);
		}
	}
	/* Objects built with frame pointers show the prologue in well over
	 * a third of their functions (the others need no frame, or set it
	 * up later on the paths that do); objects built without, in a
	 * tenth at most (those that need a frame pointer anyway). */
	return looked && with * 3 >= looked;
}
