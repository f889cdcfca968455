/* mlyze-input.c - the reader's buffer and error state (see mlyze-input.h). */
#include "config.h"

#include "mlyze-input.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int input_init(struct mlyze_input *in, const char *name, size_t capacity,
	       const struct mlyze_options *options)
{
	in->fd = -1;
	in->name = strdup(name);
	in->buffer = malloc(capacity);
	if (!in->name || !in->buffer) {
		free(in->name);
		free(in->buffer);
		return -1;
	}
	in->capacity = capacity;
	in->next = in->end = in->buffer;
	if (options) {
		in->warn = options->warn;
		in->warn_ctx = options->warn_ctx;
	}
	return 0;
}

static char *vformat(const char *prefix, const char *format, va_list ap)
{
	char *message = NULL, *full = NULL;

	if (vasprintf(&message, format, ap) < 0)
		return NULL;
	if (asprintf(&full, "%s%s", prefix, message) < 0)
		full = NULL;
	free(message);
	return full;
}

static void set_error(struct mlyze_input *in, enum mlyze_status status,
		      char *message)
{
	if (in->status != MLYZE_OK) {
		free(message);
		return;
	}
	in->status = status;
	in->error = message;
}

int input_open(struct mlyze_input *in)
{
	char *message = NULL;

	in->fd = open(in->name, O_RDONLY | O_CLOEXEC);
	if (in->fd >= 0) {
		in->owns_fd = true;
		return 0;
	}
	if (asprintf(&message, "%s: %s", in->name, strerror(errno)) < 0)
		message = NULL;
	set_error(in, MLYZE_SYSTEM_ERROR, message);
	return -1;
}

void input_free(struct mlyze_input *in)
{
	if (in->owns_fd)
		close(in->fd);
	free(in->buffer);
	free(in->error);
	free(in->name);
}

int input_fail(struct mlyze_input *in, uint64_t offset, const char *format,
	       ...)
{
	char prefix[64];
	char *where = NULL;
	va_list ap;

	snprintf(prefix, sizeof(prefix), ": offset %" PRIu64 ": ", offset);
	if (asprintf(&where, "%s%s", in->name, prefix) < 0)
		where = NULL;
	va_start(ap, format);
	set_error(in, MLYZE_BAD_FILE, where ? vformat(where, format, ap) : NULL);
	va_end(ap);
	free(where);
	return -1;
}

char *input_take_error(struct mlyze_input *in)
{
	size_t name_length = strlen(in->name);
	char *message = in->error;

	if (in->status != MLYZE_BAD_FILE || !message)
		return NULL;
	in->status = MLYZE_OK;
	in->error = NULL;
	/* The reader names the file when it reports the damage. */
	if (strncmp(message, in->name, name_length) == 0 &&
	    strncmp(message + name_length, ": ", 2) == 0)
		memmove(message, message + name_length + 2,
			strlen(message + name_length + 2) + 1);
	return message;
}

int input_fail_system(struct mlyze_input *in, const char *what)
{
	char *message = NULL;
	int rc = what ? asprintf(&message, "%s: %s: %s", in->name, what,
				 strerror(errno))
		      : asprintf(&message, "%s: out of memory", in->name);

	set_error(in, MLYZE_SYSTEM_ERROR, rc < 0 ? NULL : message);
	return -1;
}

void input_warn(struct mlyze_input *in, const char *format, ...)
{
	char *message;
	va_list ap;

	if (!in->warn)
		return;
	va_start(ap, format);
	message = vformat("", format, ap);
	va_end(ap);
	if (message)
		in->warn(in->warn_ctx, message);
	free(message);
}

/* The n bytes at `bytes`, just read from a file its writer may be
 * writing, read again up to the last non-zero one.  One read() is no
 * snapshot of such a file: it copies page after page (a reader preempted
 * in between), and a page copied late may hold bytes written after the
 * zeros that a page copied early still held, a hole in the middle of
 * the events.  A writer writes in order, so every byte before the last
 * non-zero one read was written when the read returned: read again,
 * they are all as written.  0, or -1 on error. */
static int read_written_again(struct mlyze_input *in, uint8_t *bytes,
			      size_t n, uint64_t offset)
{
	const uint8_t *last = last_nonzero(bytes, bytes + n);
	size_t written = last ? (size_t)(last - bytes) : 0;
	ssize_t got;

	if (!written)
		return 0;
	do
		got = pread(in->fd, bytes, written, (off_t)offset);
	while (got < 0 && errno == EINTR);
	return got < 0 ? input_fail_system(in, "read") : 0;
}

ssize_t input_pread(struct mlyze_input *in, uint8_t *bytes, size_t n,
		    uint64_t offset)
{
	ssize_t got;

	do
		got = pread(in->fd, bytes, n, (off_t)offset);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return input_fail_system(in, "read");
	return read_written_again(in, bytes, (size_t)got, offset) < 0 ? -1
								       : got;
}

int input_refill(struct mlyze_input *in)
{
	uint64_t end_before = input_offset(in, in->end);
	size_t kept;
	ssize_t n;

	if (in->at_eof)
		return 0;
	if (in->live && in->next != in->end &&
	    lseek(in->fd, (off_t)input_offset(in, in->next), SEEK_SET) >= 0)
		in->end = in->next;
	kept = (size_t)(in->end - in->next);
	if (in->next != in->buffer) {
		in->buffer_offset += (uint64_t)(in->next - in->buffer);
		memmove(in->buffer, in->next, kept);
		in->next = in->buffer;
		in->end = in->buffer + kept;
	}
	do
		n = read(in->fd, in->buffer + kept, in->capacity - kept);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return input_fail_system(in, "read");
	if (in->live && read_written_again(in, in->buffer + kept, (size_t)n,
					   input_offset(in, in->buffer + kept)) < 0)
		return -1;
	in->end += n;
	if (input_offset(in, in->end) <= end_before) {
		in->at_eof = true;
		return 0;
	}
	return 1;
}

int input_go_live(struct mlyze_input *in)
{
	in->live = lseek(in->fd, 0, SEEK_CUR) >= 0;
	if (!in->live)
		return 0;
	return read_written_again(in, in->buffer + (in->next - in->buffer),
				  (size_t)(in->end - in->next),
				  input_offset(in, in->next));
}

int input_reread(struct mlyze_input *in)
{
	in->at_eof = false;
	return input_refill(in);
}
