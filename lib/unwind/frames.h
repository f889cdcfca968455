/* frames.h - what one entry of an interned stack holds.
 *
 * Contract: a stack is an array of uint64_t, leaf first, on every
 * architecture.  A native frame is a return address; a script (Python)
 * frame is a file id, a function id (see names.h) and a line packed under
 * a tag bit that no user-space address has (bit 63: a 32-bit process may
 * use all of its 4 GiB, so its frames need 64-bit words too), so both
 * kinds share one array, one hash and one table.
 */
#ifndef SPPROF_FRAMES_H
#define SPPROF_FRAMES_H

#include <stdint.h>

#define SCRIPT_FRAME_TAG ((uint64_t)1 << 63)
#define SCRIPT_ID_BITS 20
#define SCRIPT_LINE_BITS 22

static inline int frame_is_script(uint64_t frame)
{
	return (frame & SCRIPT_FRAME_TAG) != 0;
}

static inline uint64_t script_frame(uint32_t file_id, uint32_t func_id,
				    uint32_t line)
{
	const uint32_t id_mask = (1u << SCRIPT_ID_BITS) - 1;
	const uint32_t line_max = (1u << SCRIPT_LINE_BITS) - 1;

	return SCRIPT_FRAME_TAG |
	       ((uint64_t)(file_id & id_mask)
		<< (SCRIPT_ID_BITS + SCRIPT_LINE_BITS)) |
	       ((uint64_t)(func_id & id_mask) << SCRIPT_LINE_BITS) |
	       (line < line_max ? line : line_max);
}

static inline uint32_t script_frame_file(uint64_t frame)
{
	return (uint32_t)(frame >> (SCRIPT_ID_BITS + SCRIPT_LINE_BITS)) &
	       ((1u << SCRIPT_ID_BITS) - 1);
}

static inline uint32_t script_frame_function(uint64_t frame)
{
	return (uint32_t)(frame >> SCRIPT_LINE_BITS) &
	       ((1u << SCRIPT_ID_BITS) - 1);
}

static inline uint32_t script_frame_line(uint64_t frame)
{
	return (uint32_t)frame & ((1u << SCRIPT_LINE_BITS) - 1);
}

#endif /* SPPROF_FRAMES_H */
