/* eh_frame_hdr.h - the search table of an object's .eh_frame_hdr.
 *
 * Contract: the table compilers and linkers write, in the one encoding
 * they use (version 1, eh_frame_ptr pcrel sdata4, fde_count udata4, and
 * (function, FDE) pairs of datarel sdata4, sorted by function) and no
 * other.  eh_frame_hdr_count() says how many entries it has, 0 for any
 * other encoding; eh_frame_hdr_entry() reads entry i as the addresses of
 * the function and of its FDE.  They read the mapped header only.
 */
#ifndef SPPROF_EH_FRAME_HDR_H
#define SPPROF_EH_FRAME_HDR_H

#include <stdint.h>
#include <string.h>

#define EH_FRAME_HDR_TABLE 12 /* the entries' offset in the header */
#define EH_FRAME_HDR_ENTRY 8  /* the size of one */

static inline uint32_t eh_frame_hdr_count(const uint8_t *hdr)
{
	static const uint8_t usual[4] = { 1, 0x1b, 0x03, 0x3b };
	uint32_t count;

	if (!hdr || memcmp(hdr, usual, sizeof(usual)))
		return 0;
	memcpy(&count, hdr + 8, sizeof(count));
	return count;
}

struct eh_frame_hdr_entry {
	uintptr_t function, fde;
};

static inline struct eh_frame_hdr_entry
eh_frame_hdr_entry(const uint8_t *hdr, uint32_t i)
{
	int32_t pair[2];

	memcpy(pair, hdr + EH_FRAME_HDR_TABLE + (size_t)i * EH_FRAME_HDR_ENTRY,
	       sizeof(pair));
	return (struct eh_frame_hdr_entry){ (uintptr_t)hdr + (intptr_t)pair[0],
					    (uintptr_t)hdr + (intptr_t)pair[1] };
}

#endif /* SPPROF_EH_FRAME_HDR_H */
