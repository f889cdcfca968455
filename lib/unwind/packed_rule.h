/* packed_rule.h - a frame rule in one word, for the unwinder's cache.
 *
 * Contract: rule_packable() says whether a rule fits; pack_rule() of one
 * that does is never 0, and unpack_rule() gives back the same rule.  The
 * CFA offset takes 24 bits (in bytes), the return address and frame
 * pointer offsets 16 bits each (in words: an arm64 frame record lies at
 * the bottom of its frame, as far from the CFA as the frame is large), the
 * kind 3 bits and the flags 5.  Rules that do not fit are not cached.
 */
#ifndef SPPROF_PACKED_RULE_H
#define SPPROF_PACKED_RULE_H

#include <stdint.h>

#include "cfi.h"

enum {
	PACKED_VALID = 1,
	PACKED_CFA_ON_FP = 2,
	PACKED_FP_SAVED = 4,
	PACKED_CFA_DEREF = 8,
	PACKED_FP_NEAR_FP = 16,
};
#define PACKED_WORD ((int32_t)sizeof(uintptr_t))
#define PACKED_CFA_OFFSET_BITS 24
#define PACKED_SAVED_OFFSET_BITS 16
#define PACKED_KIND_SHIFT 56
#define PACKED_FLAGS_SHIFT 59

_Static_assert(FRAME_NOT_CODE < 1 << (PACKED_FLAGS_SHIFT - PACKED_KIND_SHIFT),
	       "every kind fits in its bits");

/* Whether v is a signed number of `bits` bits. */
static inline int packed_fits(int64_t v, int bits)
{
	return v >= -((int64_t)1 << (bits - 1)) && v < (int64_t)1 << (bits - 1);
}

/* The signed number in the low `bits` bits of v. */
static inline int32_t packed_signed(uint64_t v, int bits)
{
	int64_t sign = (int64_t)1 << (bits - 1);

	return (int32_t)(((int64_t)(v & (((uint64_t)1 << bits) - 1)) ^ sign) -
			 sign);
}

static inline int rule_packable(const struct frame_rule *r)
{
	return r->ra_offset % PACKED_WORD == 0 &&
	       r->fp_offset % PACKED_WORD == 0 &&
	       packed_fits(r->cfa_offset, PACKED_CFA_OFFSET_BITS) &&
	       packed_fits(r->ra_offset / PACKED_WORD,
			   PACKED_SAVED_OFFSET_BITS) &&
	       packed_fits(r->fp_offset / PACKED_WORD,
			   PACKED_SAVED_OFFSET_BITS);
}

static inline uint64_t pack_rule(const struct frame_rule *r)
{
	const uint64_t cfa_mask = ((uint64_t)1 << PACKED_CFA_OFFSET_BITS) - 1;
	const uint64_t saved_mask =
		((uint64_t)1 << PACKED_SAVED_OFFSET_BITS) - 1;
	uint64_t flags = PACKED_VALID;

	if (r->cfa_on_fp)
		flags |= PACKED_CFA_ON_FP;
	if (r->fp_saved)
		flags |= PACKED_FP_SAVED;
	if (r->cfa_deref)
		flags |= PACKED_CFA_DEREF;
	if (r->fp_near_fp)
		flags |= PACKED_FP_NEAR_FP;
	return ((uint64_t)(uint32_t)r->cfa_offset & cfa_mask) |
	       ((uint64_t)(r->ra_offset / PACKED_WORD) & saved_mask)
		       << PACKED_CFA_OFFSET_BITS |
	       ((uint64_t)(r->fp_offset / PACKED_WORD) & saved_mask)
		       << (PACKED_CFA_OFFSET_BITS + PACKED_SAVED_OFFSET_BITS) |
	       (uint64_t)r->kind << PACKED_KIND_SHIFT |
	       flags << PACKED_FLAGS_SHIFT;
}

static inline struct frame_rule unpack_rule(uint64_t v)
{
	const uint64_t kind_mask =
		((uint64_t)1 << (PACKED_FLAGS_SHIFT - PACKED_KIND_SHIFT)) - 1;
	uint64_t flags = v >> PACKED_FLAGS_SHIFT;

	return (struct frame_rule){
		.kind = (enum frame_rule_kind)((v >> PACKED_KIND_SHIFT) &
					       kind_mask),
		.cfa_on_fp = !!(flags & PACKED_CFA_ON_FP),
		.cfa_deref = !!(flags & PACKED_CFA_DEREF),
		.cfa_offset = packed_signed(v, PACKED_CFA_OFFSET_BITS),
		.ra_offset = packed_signed(v >> PACKED_CFA_OFFSET_BITS,
					   PACKED_SAVED_OFFSET_BITS) *
			     PACKED_WORD,
		.fp_saved = !!(flags & PACKED_FP_SAVED),
		.fp_near_fp = !!(flags & PACKED_FP_NEAR_FP),
		.fp_offset = packed_signed(v >> (PACKED_CFA_OFFSET_BITS +
						 PACKED_SAVED_OFFSET_BITS),
					   PACKED_SAVED_OFFSET_BITS) *
			     PACKED_WORD,
	};
}

#endif /* SPPROF_PACKED_RULE_H */
