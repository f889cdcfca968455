/* mlyze-script.h - write .mlyze test profiles from a small text language.
 *
 * One directive per line; '#' starts a comment line.  Numbers are decimal
 * or 0x-prefixed hex.  Directives write their bytes in order:
 *
 *   header [magic=TEXT] [version=N] [start=N] [metadata-length=N]
 *                          256-byte header; the metadata length defaults
 *                          to the length of all `metadata` lines
 *   metadata TEXT          JSON text (lines are joined with newlines)
 *   alloc DELTA ADDRESS SIZE STACK THREAD
 *   free DELTA ADDRESS
 *   gc DELTA OBJECTS BYTES
 *   marker DELTA NAME_ID
 *   stack DELTA ID FRAME...    FRAME: native:ADDRESS or python:FILE:FUNC:LINE
 *   module DELTA ID START END LOAD_BIAS BUILD_ID_HEX|- PATH
 *   string DELTA TABLE ID TEXT (TEXT is the rest of the line)
 *   rate DELTA RATE
 *   memory DELTA RESIDENT ANONYMOUS
 *   NAME DELTA HEX         any other type of mlyze-events.def, by its
 *                          name (map, thread...), with this payload
 *   event TYPE DELTA HEX   a sized event with this payload
 *   bytes HEX...           raw bytes
 *   zeros COUNT            COUNT zero bytes
 *
 * Contract: deterministic, no I/O; used by mlyze-gen and the unit tests.
 */
#ifndef SPPROF_TESTS_MLYZE_SCRIPT_H
#define SPPROF_TESTS_MLYZE_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

struct bytes {
	uint8_t *data;
	size_t length, capacity;
};

void bytes_append(struct bytes *b, const void *data, size_t length);
void bytes_varint(struct bytes *b, uint64_t value);
void bytes_le(struct bytes *b, uint64_t value, size_t width);
void bytes_free(struct bytes *b);

/* Compile `text`; returns 0, or -1 with "line N: problem" in error. */
int script_compile(const char *text, struct bytes *out, char *error,
		   size_t error_size);

#endif /* SPPROF_TESTS_MLYZE_SCRIPT_H */
