/* mlyze-input.h - the bytes a reader reads and the first error it meets.
 *
 * Contract: one file (or descriptor) read front to back through a buffer
 * of fixed size, and the reader's error state: the first failure recorded
 * wins, later ones are dropped.  The metadata parser, the tables and the
 * event decoder all sit on top of this; it calls none of them.
 */
#ifndef SPPROF_MLYZE_INPUT_H
#define SPPROF_MLYZE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "spprof/mlyze.h"

struct mlyze_input {
	char *name; /* of the file, first in every message */
	int fd;
	bool owns_fd;

	uint8_t *buffer;
	size_t capacity;
	const uint8_t *next, *end; /* bytes read but not yet decoded */
	uint64_t buffer_offset;    /* file offset of buffer[0] */
	bool at_eof;               /* read() has returned 0 */
	/* The file may be written while it is read (a streamed file whose
	 * process runs): a refill reads the undecoded bytes again too, and
	 * what one read() wrote before its last non-zero byte is read once
	 * more, so that the buffer never holds zeros read before bytes
	 * after them (see input_refill). */
	bool live;

	enum mlyze_status status;
	char *error;
	void (*warn)(void *ctx, const char *message);
	void *warn_ctx;
};

/* Name, buffer and warning callback of options; no file yet.  -1 when
 * memory runs out. */
int input_init(struct mlyze_input *in, const char *name, size_t capacity,
	       const struct mlyze_options *options);
/* Open the file named `name` for the input to own: -1, with the error
 * "NAME: strerror(errno)", when it cannot be. */
int input_open(struct mlyze_input *in);
void input_free(struct mlyze_input *in);

static inline uint64_t input_offset(const struct mlyze_input *in,
				    const uint8_t *p)
{
	return in->buffer_offset + (uint64_t)(p - in->buffer);
}

/* The last non-zero byte in [p, end), or NULL.  The last: no event
 * boundary before it starts the tail, so one look serves every event of
 * the buffer. */
static inline const uint8_t *last_nonzero(const uint8_t *p,
					  const uint8_t *end)
{
	while (end > p && end[-1] == 0)
		end--;
	return end > p ? end - 1 : NULL;
}

/* Record "NAME: offset N: problem" as the error (first one wins);
 * returns -1 for the caller to pass on. */
int input_fail(struct mlyze_input *in, uint64_t offset, const char *format,
	       ...) __attribute__((format(printf, 3, 4)));
/* Record a failure of the system: "NAME: what: strerror(errno)", or
 * "NAME: out of memory" when what is NULL. */
int input_fail_system(struct mlyze_input *in, const char *what);
/* Hand over the message of the file's error and clear it (NULL, leaving
 * the error, when it is not MLYZE_BAD_FILE): for a problem that only
 * damages one stack. */
char *input_take_error(struct mlyze_input *in);
void input_warn(struct mlyze_input *in, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

/* Read more of the file after the undecoded bytes (from them, when
 * live): 1 bytes were added, 0 end of file, -1 error. */
int input_refill(struct mlyze_input *in);
/* Mark the input live when its file can be read again from an earlier
 * offset (not a pipe); the bytes buffered already are made whole as a
 * live refill's are.  0, or -1 on error. */
int input_go_live(struct mlyze_input *in);
/* pread() of n bytes at offset, those before the last non-zero one read
 * again as a live refill's are: how many were read, or -1 on error. */
ssize_t input_pread(struct mlyze_input *in, uint8_t *bytes, size_t n,
		    uint64_t offset);
/* Of a live input: read the file again from the undecoded bytes on, past
 * an end of file seen before: 1 bytes were read, 0 end of file, -1
 * error. */
int input_reread(struct mlyze_input *in);

#endif /* SPPROF_MLYZE_INPUT_H */
