/* report-protobuf.h - a small protocol-buffer encoder, enough to write
 * profile.proto (report-pprof.c).
 *
 * Contract: appends fields in the wire format to a growable buffer:
 * varints, length-delimited bytes and embedded messages (encoded into a
 * buffer of their own, then appended with their length), packed repeated
 * varints.  Scalar fields equal to zero are left out, as proto3 does;
 * bytes are always written (an empty string in a repeated field counts).
 * Memory that runs out ends the program, as everywhere in memprof-report.
 */
#ifndef SPPROF_REPORT_PROTOBUF_H
#define SPPROF_REPORT_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

struct pb {
	uint8_t *data;
	size_t length, capacity;
};

/* Untagged: bytes as they are, and a varint alone (the varints of the
 * .mlyze format are these too). */
void pb_put(struct pb *pb, const void *data, size_t length);
void pb_varint(struct pb *pb, uint64_t value);
void pb_uint(struct pb *pb, unsigned field, uint64_t value);
void pb_int(struct pb *pb, unsigned field, int64_t value);
void pb_bool(struct pb *pb, unsigned field, int value);
void pb_bytes(struct pb *pb, unsigned field, const void *data, size_t length);
void pb_string(struct pb *pb, unsigned field, const char *text);
/* The message in `sub` as field `field`; sub is emptied for reuse. */
void pb_message(struct pb *pb, unsigned field, struct pb *sub);
void pb_packed(struct pb *pb, unsigned field, const uint64_t *values,
	       size_t count);
void pb_free(struct pb *pb);

#endif /* SPPROF_REPORT_PROTOBUF_H */
