/* report-symbolize.c - a profile that carries its own symbols (see
 * report-symbolize.h). */
#include "config.h"

#include "report-symbolize.h"
#include "report-frames.h"
#include "report-protobuf.h"
#include "report-util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mlyze-codec.h"

/* A native frame of the profile: its module and ELF virtual address. */
struct native_frame {
	const struct mlyze_module *module;
	uint64_t offset;
};

static int by_module_then_offset(const void *pa, const void *pb)
{
	const struct native_frame *a = pa, *b = pb;

	if (a->module->id != b->module->id)
		return a->module->id < b->module->id ? -1 : 1;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* Whether a SYMBOL may name the frame (mlyze(5) bounds its module id and
 * address; the binaries name the others). */
static bool symbolizable(const struct mlyze_frame *f)
{
	return f->form == MLYZE_FORM_MODULE &&
	       !(f->module->id >> MLYZE_SYMBOL_MODULE_ID_BITS) &&
	       !(f->offset >> MLYZE_SYMBOL_ADDRESS_BITS);
}

/* Every distinct native frame of the profile's stacks that a SYMBOL may
 * name, sorted. */
static struct native_frame *native_frames(const mlyze_reader *r,
					  size_t *count)
{
	struct native_frame *frames = NULL;
	size_t n = 0, capacity = 0, kept = 0;

	for (size_t i = 0; i < mlyze_stack_count(r); i++) {
		const struct mlyze_stack *s = mlyze_stack_at(r, i);

		for (size_t k = 0; k < s->depth; k++) {
			if (!symbolizable(&s->frames[k]))
				continue;
			frames = xgrow(frames, &capacity, n + 1,
				       sizeof(*frames));
			frames[n++] = (struct native_frame){
				s->frames[k].module, s->frames[k].offset
			};
		}
	}
	if (n)
		qsort(frames, n, sizeof(*frames), by_module_then_offset);
	for (size_t i = 0; i < n; i++)
		if (kept == 0 || by_module_then_offset(&frames[kept - 1],
						       &frames[i]) != 0)
			frames[kept++] = frames[i];
	*count = kept;
	return frames;
}

static void put_text(struct pb *payload, const char *text)
{
	size_t length = text ? strlen(text) : 0;

	pb_varint(payload, length);
	pb_put(payload, text, length);
}

/* One SYMBOL event at the end of `events`: mlyze(5) gives its layout. */
static void add_symbol_event(struct pb *events, const struct native_frame *f,
			     const struct mlyze_symbol *symbols, size_t count)
{
	struct pb payload = { 0 };
	uint8_t type = MLYZE_EVENT_SYMBOL;

	pb_varint(&payload, f->module->id);
	pb_varint(&payload, f->offset);
	pb_varint(&payload, count);
	for (size_t i = 0; i < count; i++) {
		put_text(&payload, symbols[i].function);
		put_text(&payload, symbols[i].file);
		pb_varint(&payload, symbols[i].line);
	}
	pb_put(events, &type, 1);
	pb_varint(events, 0); /* no time passes */
	pb_varint(events, payload.length);
	pb_put(events, payload.data, payload.length);
	pb_free(&payload);
}

/* The SYMBOL events of the frames the profile carries no symbols for,
 * and whose module's file could be read. */
static void symbol_events(const mlyze_reader *r,
			  const struct symbolizer_options *options,
			  struct pb *events)
{
	struct frame_namer *namer = frame_namer_new(options);
	struct mlyze_symbol symbols[FRAME_CHAIN_MAX];
	const struct mlyze_symbol *own;
	size_t count;
	struct native_frame *frames = native_frames(r, &count);

	for (size_t i = 0; i < count; i++) {
		int n;

		if (mlyze_find_symbols(r, frames[i].module, frames[i].offset,
				       &own) >= 0)
			continue;
		n = frame_binary_symbols(namer, frames[i].module,
					 frames[i].offset, symbols);
		if (n >= 0)
			add_symbol_event(events, &frames[i], symbols,
					 (size_t)n);
	}
	free(frames);
	frame_namer_free(namer);
}

/* Every event of the profile, read so that its tables are whole: 0, or
 * the exit status of a profile that cannot be read, after a message. */
static int read_events(mlyze_reader *r)
{
	struct mlyze_event ev;

	while (mlyze_status(r) == MLYZE_OK && mlyze_next(r, &ev) > 0)
		;
	if (mlyze_status(r) == MLYZE_OK)
		return 0;
	fprintf(stderr, "memprof-report: %s\n", mlyze_error(r));
	return mlyze_status(r) == MLYZE_BAD_FILE ? 2 : 1;
}

static int write_all(int fd, const void *data, size_t length)
{
	const uint8_t *p = data;

	while (length) {
		ssize_t n = write(fd, p, length);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		length -= (size_t)n;
	}
	return 0;
}

/* The first `length` bytes of `in` to `out`; -1 with errno set on
 * failure (0 for a file shorter than it was read). */
static int copy_bytes(int in, int out, uint64_t length)
{
	uint8_t buffer[1 << 16];
	uint64_t at = 0;

	while (at < length) {
		size_t want = length - at < sizeof(buffer)
				      ? (size_t)(length - at)
				      : sizeof(buffer);
		ssize_t n = pread(in, buffer, want, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || write_all(out, buffer, (size_t)n) < 0) {
			if (n == 0)
				errno = 0;
			return -1;
		}
		at += (uint64_t)n;
	}
	return 0;
}

/* The output, emptied; not the input itself, which the copy would
 * destroy.  A new file gets the input's permissions (a profile holds what
 * a process kept in its heap: a private one stays private).  -1 after a
 * message. */
static int open_output(const char *output, int in)
{
	struct stat in_st, out_st;
	int fd = -1;

	if (!output)
		return STDOUT_FILENO;
	if (fstat(in, &in_st) == 0)
		fd = open(output, O_WRONLY | O_CREAT | O_CLOEXEC,
			  in_st.st_mode & 0666);
	if (fd >= 0 && fstat(fd, &out_st) == 0 &&
	    out_st.st_dev == in_st.st_dev && out_st.st_ino == in_st.st_ino) {
		fprintf(stderr, "memprof-report: %s: is the profile being "
			"symbolized; write to another file\n", output);
		close(fd);
		return -1;
	}
	if (fd < 0 || ftruncate(fd, 0) < 0) {
		fprintf(stderr, "memprof-report: %s: %s\n", output,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The profile's bytes up to the end of its events, then its symbols. */
static int write_profile(const char *output, int in, uint64_t end,
			 const struct pb *symbols)
{
	int out = open_output(output, in);
	int failed;

	if (out < 0)
		return 1;
	failed = copy_bytes(in, out, end) < 0 ||
		 write_all(out, symbols->data, symbols->length) < 0;
	if (failed)
		fprintf(stderr, "memprof-report: %s: write error: %s\n",
			output ? output : "standard output",
			errno ? strerror(errno) : "the profile got shorter");
	if (out != STDOUT_FILENO && close(out) < 0 && !failed) {
		fprintf(stderr, "memprof-report: %s: write error: %s\n",
			output, strerror(errno));
		failed = 1;
	}
	return failed;
}

int symbolize_profile(const char *input, const char *output,
		      const struct symbolizer_options *options)
{
	struct mlyze_options reading = { .warn = options->warn,
					 .warn_ctx = options->warn_ctx };
	int in = open(input, O_RDONLY | O_CLOEXEC);
	struct pb symbols = { 0 };
	mlyze_reader *r;
	int rc;

	if (in < 0) {
		fprintf(stderr, "memprof-report: %s: %s\n", input,
			strerror(errno));
		return 1;
	}
	r = mlyze_open_fd(in, input, &reading);
	if (!r)
		out_of_memory();
	rc = read_events(r);
	if (rc == 0) {
		symbol_events(r, options, &symbols);
		rc = write_profile(output, in, mlyze_position(r), &symbols);
	}
	pb_free(&symbols);
	mlyze_close(r);
	close(in);
	return rc;
}
