/* report-protobuf.c - a small protocol-buffer encoder (see
 * report-protobuf.h). */
#include "config.h"

#include "report-protobuf.h"
#include "report-util.h"

#include <stdlib.h>
#include <string.h>

enum wire_type { WIRE_VARINT = 0, WIRE_LENGTH = 2 };

void pb_put(struct pb *pb, const void *data, size_t length)
{
	pb->data = xgrow(pb->data, &pb->capacity, pb->length + length, 1);
	if (length)
		memcpy(pb->data + pb->length, data, length);
	pb->length += length;
}

void pb_varint(struct pb *pb, uint64_t value)
{
	uint8_t bytes[10];
	size_t n = 0;

	do {
		bytes[n++] = (uint8_t)(value & 0x7f) | (value > 0x7f ? 0x80 : 0);
		value >>= 7;
	} while (value);
	pb_put(pb, bytes, n);
}

static void tag(struct pb *pb, unsigned field, enum wire_type type)
{
	pb_varint(pb, (uint64_t)field << 3 | type);
}

void pb_uint(struct pb *pb, unsigned field, uint64_t value)
{
	if (value == 0)
		return;
	tag(pb, field, WIRE_VARINT);
	pb_varint(pb, value);
}

/* int64 is a varint of the two's complement bits. */
void pb_int(struct pb *pb, unsigned field, int64_t value)
{
	pb_uint(pb, field, (uint64_t)value);
}

void pb_bool(struct pb *pb, unsigned field, int value)
{
	pb_uint(pb, field, value != 0);
}

void pb_bytes(struct pb *pb, unsigned field, const void *data, size_t length)
{
	tag(pb, field, WIRE_LENGTH);
	pb_varint(pb, length);
	pb_put(pb, data, length);
}

void pb_string(struct pb *pb, unsigned field, const char *text)
{
	pb_bytes(pb, field, text, strlen(text));
}

void pb_message(struct pb *pb, unsigned field, struct pb *sub)
{
	pb_bytes(pb, field, sub->data, sub->length);
	sub->length = 0;
}

void pb_packed(struct pb *pb, unsigned field, const uint64_t *values,
	       size_t count)
{
	struct pb packed = { 0 };

	for (size_t i = 0; i < count; i++)
		pb_varint(&packed, values[i]);
	pb_bytes(pb, field, packed.data, packed.length);
	pb_free(&packed);
}

void pb_free(struct pb *pb)
{
	free(pb->data);
	memset(pb, 0, sizeof(*pb));
}
