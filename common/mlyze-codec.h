/* mlyze-codec.h - the byte-level encoding of .mlyze profiles.
 *
 * Contract: constants of the file layout (see mlyze(5)) and inline
 * encoders/decoders for varints and little-endian integers.  Used by the
 * runtime's writer and by the profile reader, so both agree on every byte.
 * Nothing here allocates, locks or touches global state, which makes it safe
 * to call from inside the allocation hooks.
 */
#ifndef SPPROF_MLYZE_CODEC_H
#define SPPROF_MLYZE_CODEC_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "spprof/mlyze.h"

#define MLYZE_MAGIC "MTRC"
#define MLYZE_VERSION 1u
#define MLYZE_HEADER_SIZE 256u

/* Header field offsets (all integers little-endian). */
#define MLYZE_OFF_MAGIC 0u
#define MLYZE_OFF_VERSION 4u
#define MLYZE_OFF_START_US 8u
#define MLYZE_OFF_METADATA_LEN 16u

/* A streamed file is written into space reserved ahead of the stream, so
 * the file of a process that was killed ends in zero bytes it never
 * reached.  No event is all zeros (an ALLOC's address is never 0): when
 * everything from an event boundary to the end is zero, the stream ends
 * there. */
static inline int mlyze_is_unwritten_tail(const uint8_t *in, size_t avail)
{
	for (size_t i = 0; i < avail; i++)
		if (in[i])
			return 0;
	return avail > 0;
}

/* The event types are numbered in enum mlyze_event_kind (spprof/mlyze.h),
 * the one list of them.  Types below MLYZE_FIRST_SIZED_EVENT have the
 * fixed layouts of the original format; every type from
 * MLYZE_FIRST_SIZED_EVENT on carries a varint payload length right after
 * its time delta, so readers can skip types they do not know. */
#define MLYZE_FIRST_SIZED_EVENT 4u

/* Frame kinds inside a STACK event payload. */
enum mlyze_frame_kind {
	MLYZE_FRAME_NATIVE = 0, /* varint absolute return address */
	MLYZE_FRAME_PYTHON = 1, /* varint file_id, func_id, line */
};

/* String tables named by a STRING event. */
enum mlyze_string_table {
	MLYZE_STRINGS_FILES = 0,
	MLYZE_STRINGS_FUNCTIONS = 1,
};

#define MLYZE_VARINT_MAX 10u /* bytes needed for any uint64_t */

/* Encode v at out (room for MLYZE_VARINT_MAX bytes); returns bytes used. */
static inline size_t mlyze_put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

static inline size_t mlyze_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

enum mlyze_varint_status {
	MLYZE_VARINT_OK = 0,
	MLYZE_VARINT_TRUNCATED = 1, /* input ended inside the varint */
	MLYZE_VARINT_OVERLONG = 2,  /* > 10 bytes, > 64 bits, or non-minimal */
};

/* Decode a varint from in[0..avail); stores the value and the bytes used.
 * Only the minimal encoding of each value is accepted. */
static inline enum mlyze_varint_status
mlyze_get_varint(const uint8_t *in, size_t avail, uint64_t *value,
		 size_t *used)
{
	size_t n = avail < MLYZE_VARINT_MAX ? avail : MLYZE_VARINT_MAX;
	uint64_t v = 0;
	size_t i;

	/* Most varints of a profile (deltas, ids, small sizes) are one
	 * byte: no loop for them. */
	if (avail && in[0] < 0x80) {
		*value = in[0];
		*used = 1;
		return MLYZE_VARINT_OK;
	}
	for (i = 0; i < n; i++) {
		uint8_t b = in[i];

		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			/* A last byte of 0 adds nothing; a tenth byte
			 * above 1 goes past 64 bits. */
			if ((i > 0 && b == 0) ||
			    (i == MLYZE_VARINT_MAX - 1 && b > 1))
				return MLYZE_VARINT_OVERLONG;
			*value = v;
			*used = i + 1;
			return MLYZE_VARINT_OK;
		}
	}
	return i == MLYZE_VARINT_MAX ? MLYZE_VARINT_OVERLONG
				     : MLYZE_VARINT_TRUNCATED;
}

/* One store rather than a byte loop (which compilers keep as a loop):
 * in little-endian order the low bytes come first, so the first `bytes`
 * bytes are the field on any host. */
static inline void mlyze_put_le(uint8_t *out, uint64_t v, size_t bytes)
{
	v = htole64(v);
	memcpy(out, &v, bytes);
}

/* The same way back: the field's bytes are the low ones of v. */
static inline uint64_t mlyze_get_le(const uint8_t *in, size_t bytes)
{
	uint64_t v = 0;

	memcpy(&v, in, bytes);
	return le64toh(v);
}

/* The layout of a fixed-layout event after its type and delta: `before`
 * bytes of fixed width (the address), then `varints` varints, then
 * `after` bytes of fixed width (the thread), as mlyze-events.def gives
 * it.  Sized types have none (all zero). */
struct mlyze_fixed_layout {
	uint8_t before, varints, after;
};

static inline struct mlyze_fixed_layout mlyze_fixed_layout(unsigned type)
{
#define FIXED(BEFORE, VARINTS, AFTER) { BEFORE, VARINTS, AFTER }
#define SIZED { 0, 0, 0 }
#define MLYZE_EVENT_TYPE(NAME, name, NUMBER, LAYOUT, DESCRIPTION) \
	[NUMBER] = LAYOUT,
	static const struct mlyze_fixed_layout layouts[] = {
#include <spprof/mlyze-events.def>
	};
#undef MLYZE_EVENT_TYPE
#undef SIZED
#undef FIXED

	return type < sizeof(layouts) / sizeof(layouts[0])
		       ? layouts[type]
		       : (struct mlyze_fixed_layout){ 0, 0, 0 };
}

/* Sums of sample weights travel as the bits of IEEE 754 doubles, in
 * 8-byte little-endian fields. */
static inline uint64_t mlyze_double_bits(double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	return bits;
}

static inline double mlyze_bits_double(uint64_t bits)
{
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

enum mlyze_event_status {
	MLYZE_EVENT_OK = 0,
	MLYZE_EVENT_TRUNCATED = 1, /* the input ends inside the event */
	MLYZE_EVENT_OVERLONG = 2,  /* an overlong varint */
};

/* Walks the event at in[0..avail) without decoding it: stores its total
 * length and type.  Fixed-layout fields are read as varints or skipped by
 * width; sized types (>= MLYZE_FIRST_SIZED_EVENT) are skipped by length. */
static inline enum mlyze_event_status
mlyze_event_size(const uint8_t *in, size_t avail, size_t *length,
		 unsigned *type)
{
	struct mlyze_fixed_layout layout;
	size_t pos = 1, used;
	uint64_t v;
	enum mlyze_varint_status st;

	if (avail < 1)
		return MLYZE_EVENT_TRUNCATED;
	*type = in[0];
	st = mlyze_get_varint(in + pos, avail - pos, &v, &used); /* delta */
	if (st)
		return (enum mlyze_event_status)st;
	pos += used;
	if (*type >= MLYZE_FIRST_SIZED_EVENT) {
		st = mlyze_get_varint(in + pos, avail - pos, &v, &used);
		if (st)
			return (enum mlyze_event_status)st;
		pos += used;
		if (v > avail - pos)
			return MLYZE_EVENT_TRUNCATED;
		*length = pos + (size_t)v;
		return MLYZE_EVENT_OK;
	}
	layout = mlyze_fixed_layout(*type);
	pos += layout.before;
	for (unsigned i = 0; i < layout.varints; i++) {
		if (pos > avail)
			return MLYZE_EVENT_TRUNCATED;
		st = mlyze_get_varint(in + pos, avail - pos, &v, &used);
		if (st)
			return (enum mlyze_event_status)st;
		pos += used;
	}
	pos += layout.after;
	if (pos > avail)
		return MLYZE_EVENT_TRUNCATED;
	*length = pos;
	return MLYZE_EVENT_OK;
}

#endif /* SPPROF_MLYZE_CODEC_H */
