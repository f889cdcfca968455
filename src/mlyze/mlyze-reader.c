/* mlyze-reader.c - open a .mlyze profile and decode its event stream.
 *
 * Contract: the file is read front to back through one buffer of fixed
 * size, so memory does not grow with the length of the profile (the tables
 * grow with the number of distinct stacks, as they must).  Every field is
 * bounds-checked; the first problem stops the reader with
 * "NAME: offset N: problem".  A file that ends inside an event is read up
 * to the last whole event and reported through the warning callback.
 */
#include "config.h"

#include "mlyze-internal.h"
#include "mlyze-codec.h"
#include "mlyze-input.h"
#include "utf8.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_BUFFER_SIZE (1u << 20)
#define MIN_BUFFER_SIZE MLYZE_HEADER_SIZE
/* type + delta + address + size + stack id + thread */
#define LONGEST_FIXED_EVENT (1 + MLYZE_VARINT_MAX + 8 + 2 * MLYZE_VARINT_MAX + 2)

_Static_assert(MLYZE_TABLE_FILES == (int)MLYZE_STRINGS_FILES &&
		       MLYZE_TABLE_FUNCTIONS == (int)MLYZE_STRINGS_FUNCTIONS,
	       "public table numbers follow the file format");
_Static_assert(LONGEST_FIXED_EVENT <= MIN_BUFFER_SIZE,
	       "every fixed-layout event fits in the smallest buffer");

/* Read until `wanted` bytes are buffered or the file ends. */
static int fill(struct mlyze_reader *r, size_t wanted)
{
	int rc = 1;

	while ((size_t)(r->in.end - r->in.next) < wanted && rc > 0)
		rc = input_refill(&r->in);
	return rc < 0 ? -1 : 0;
}

static int read_header(struct mlyze_reader *r)
{
	const uint8_t *h;
	size_t available;
	uint32_t version;

	if (fill(r, MLYZE_HEADER_SIZE) < 0)
		return -1;
	h = r->in.next;
	available = (size_t)(r->in.end - r->in.next);
	if (available >= 4 && memcmp(h, MLYZE_MAGIC, 4) != 0)
		return input_fail(&r->in, MLYZE_OFF_MAGIC,
				   "bad magic (not a .mlyze profile)");
	if (available < MLYZE_HEADER_SIZE)
		return input_fail(&r->in, 0, "file too short for a header (%zu of %u bytes)",
				   available, MLYZE_HEADER_SIZE);
	version = (uint32_t)mlyze_get_le(h + MLYZE_OFF_VERSION, 4);
	if (version != MLYZE_VERSION)
		return input_fail(&r->in, MLYZE_OFF_VERSION,
				   "unsupported version %" PRIu32, version);
	r->info.version = version;
	r->info.start_time_us = mlyze_get_le(h + MLYZE_OFF_START_US, 8);
	r->info.metadata_length =
		(uint32_t)mlyze_get_le(h + MLYZE_OFF_METADATA_LEN, 4);
	r->in.next += MLYZE_HEADER_SIZE;
	return 0;
}

static struct mlyze_reader *reader_new(const char *name,
				       const struct mlyze_options *options)
{
	struct mlyze_reader *r = calloc(1, sizeof(*r));
	size_t capacity = options && options->buffer_size
				  ? options->buffer_size
				  : DEFAULT_BUFFER_SIZE;

	if (!r)
		return NULL;
	if (capacity < MIN_BUFFER_SIZE)
		capacity = MIN_BUFFER_SIZE;
	if (input_init(&r->in, name, capacity, options) < 0) {
		free(r);
		return NULL;
	}
	r->info.complete = -1;
	tables_init(&r->tables);
	return r;
}

/* Header and metadata; failures stay in the reader's status. */
static void read_prologue(struct mlyze_reader *r)
{
	if (read_header(r) == 0 && metadata_read(r, r->info.metadata_length) == 0) {
		r->time_us = r->info.start_time_us;
		r->sampling_rate = r->info.sampling_rate;
		if (r->info.complete == 0)
			input_go_live(&r->in);
	}
}

MLYZE_PUBLIC mlyze_reader *mlyze_open_fd(int fd, const char *name,
					 const struct mlyze_options *options)
{
	struct mlyze_reader *r = reader_new(name, options);

	if (r) {
		r->in.fd = fd;
		read_prologue(r);
	}
	return r;
}

MLYZE_PUBLIC mlyze_reader *mlyze_open(const char *path,
				      const struct mlyze_options *options)
{
	struct mlyze_reader *r = reader_new(path, options);

	if (r && input_open(&r->in) == 0)
		read_prologue(r);
	return r;
}

MLYZE_PUBLIC void mlyze_close(mlyze_reader *r)
{
	if (!r)
		return;
	input_free(&r->in);
	tables_free(&r->tables);
	free(r->scratch_frames);
	free(r->command_line);
	free(r->first_damage);
	free(r);
}

MLYZE_PUBLIC enum mlyze_status mlyze_status(const mlyze_reader *r)
{
	return r->in.status;
}

MLYZE_PUBLIC const char *mlyze_error(const mlyze_reader *r)
{
	if (r->in.status == MLYZE_OK)
		return NULL;
	return r->in.error ? r->in.error : "out of memory";
}

MLYZE_PUBLIC uint64_t mlyze_position(const mlyze_reader *r)
{
	return input_offset(&r->in, r->in.next);
}

MLYZE_PUBLIC int mlyze_truncated(const mlyze_reader *r)
{
	return r->truncated;
}

static int unsure_event_checked(struct mlyze_reader *r);

MLYZE_PUBLIC int mlyze_follow(mlyze_reader *r)
{
	int checked;

	if (r->in.status != MLYZE_OK || r->info.complete != 0 || !r->in.live)
		return -1;
	checked = unsure_event_checked(r);
	if (checked <= 0)
		return checked;
	/* Where the events ended, and an event cut short there, were only
	 * where its writer had got to: the bytes from r->in.next on are
	 * read again.  The non-zero bytes seen ahead stay written. */
	r->finished = false;
	r->truncated = false;
	r->end_of_events = 0;
	r->in.at_eof = false;
	return 0;
}

MLYZE_PUBLIC const struct mlyze_info *mlyze_info(const mlyze_reader *r)
{
	return &r->info;
}

/* ---- event decoding ---- */

/* Where one event's fields are read from: the buffer (the end of the
 * buffered bytes is the end of the file, see mlyze_next) or a payload. */
struct cursor {
	const uint8_t *p, *end;
	const uint8_t *event; /* its first byte is the type */
	uint64_t payload_length; /* in_payload only */
	bool in_payload;
};

static const char *event_name_of(unsigned type, char unknown[16]);

/* The name of the event being read, for a message: named only when one
 * is written, since most events are read without any. */
static const char *cursor_event_name(const struct cursor *c,
				     char unknown[16])
{
	return event_name_of(*c->event, unknown);
}

/* The events end before the one at event_offset, left incomplete as
 * `cut` says (by the end of the file, or where its writer stopped). */
static void stop_cut_short(struct mlyze_reader *r, uint64_t event_offset,
			   const char *event_name, const char *cut)
{
	r->truncated = true;
	r->finished = true;
	input_warn(&r->in, "%s: offset %" PRIu64 ": %s event cut short %s; "
		    "read up to the last whole event",
		    r->in.name, event_offset, event_name, cut);
}

static void stop_truncated(struct mlyze_reader *r, uint64_t event_offset,
			   const char *event_name)
{
	stop_cut_short(r, event_offset, event_name, "by the end of the file");
}

static bool ran_out(struct mlyze_reader *r, const struct cursor *c)
{
	char unknown[16];
	const char *name = cursor_event_name(c, unknown);

	if (c->in_payload)
		input_fail(&r->in, input_offset(&r->in, c->event),
			    "%s payload too short (%" PRIu64 " bytes)",
			    name, c->payload_length);
	else
		stop_truncated(r, input_offset(&r->in, c->event), name);
	return false;
}

static bool varint_failed(struct mlyze_reader *r, struct cursor *c,
			  const char *field, enum mlyze_varint_status status)
{
	char unknown[16];

	if (status == MLYZE_VARINT_OVERLONG) {
		input_fail(&r->in, input_offset(&r->in, c->p), "overlong varint in %s %s",
			    cursor_event_name(c, unknown), field);
		return false;
	}
	return ran_out(r, c);
}

static inline bool take_varint(struct mlyze_reader *r, struct cursor *c,
			       const char *field, uint64_t *value)
{
	size_t used;
	enum mlyze_varint_status status =
		mlyze_get_varint(c->p, (size_t)(c->end - c->p), value, &used);

	if (__builtin_expect(status != MLYZE_VARINT_OK, 0)) {
		*value = 0;
		return varint_failed(r, c, field, status);
	}
	c->p += used;
	return true;
}

static inline bool take_le(struct mlyze_reader *r, struct cursor *c,
			   size_t bytes, uint64_t *value)
{
	if ((size_t)(c->end - c->p) < bytes)
		return ran_out(r, c);
	*value = mlyze_get_le(c->p, bytes);
	c->p += bytes;
	return true;
}

/* A count of items each at least `item_bytes` long must fit the payload. */
static bool take_count(struct mlyze_reader *r, struct cursor *c,
		       const char *field, size_t item_bytes, uint64_t *count)
{
	if (!take_varint(r, c, field, count))
		return false;
	if (*count > (uint64_t)(c->end - c->p) / item_bytes)
		return ran_out(r, c);
	return true;
}

static inline __attribute__((always_inline)) bool
decode_alloc(struct mlyze_reader *r, struct cursor *c, struct mlyze_event *ev)
{
	uint64_t stack_id, thread = 0;

	if (!take_le(r, c, 8, &ev->alloc.address) ||
	    !take_varint(r, c, "size", &ev->alloc.size) ||
	    !take_varint(r, c, "stack id", &stack_id) ||
	    !take_le(r, c, 2, &thread))
		return false;
	ev->alloc.stack = table_find(&r->tables.stacks, stack_id);
	if (!ev->alloc.stack) {
		input_fail(&r->in, input_offset(&r->in, c->event),
			    "ALLOC references undefined stack %" PRIu64,
			    stack_id);
		return false;
	}
	ev->alloc.thread = (uint16_t)thread;
	ev->alloc.sampling_rate = r->sampling_rate;
	return true;
}

static bool decode_marker(struct mlyze_reader *r, struct cursor *c,
			  struct mlyze_event *ev)
{
	uint64_t id;

	if (!take_varint(r, c, "name id", &id))
		return false;
	ev->marker.name =
		table_find(&r->tables.strings[MLYZE_TABLE_FUNCTIONS], id);
	if (!ev->marker.name) {
		input_fail(&r->in, input_offset(&r->in, c->event),
			    "MARKER references undefined function %" PRIu64, id);
		return false;
	}
	return true;
}

static bool decode_frame(struct mlyze_reader *r, struct cursor *c,
			 uint64_t stack_id, size_t index,
			 struct mlyze_frame *frame)
{
	const uint8_t *kind_at = c->p;
	uint64_t kind, a, file, function, line;

	if (!take_varint(r, c, "frame kind", &kind))
		return false;
	switch (kind) {
	case MLYZE_FRAME_NATIVE:
		if (!take_varint(r, c, "frame address", &a))
			return false;
		native_frame(&r->tables, a, frame);
		return true;
	case MLYZE_FRAME_PYTHON:
		return take_varint(r, c, "frame file id", &file) &&
		       take_varint(r, c, "frame function id", &function) &&
		       take_varint(r, c, "frame line", &line) &&
		       python_frame(r, input_offset(&r->in, c->event), stack_id, file,
				    function, line, frame) == 0;
	default:
		input_fail(&r->in, input_offset(&r->in, kind_at),
			    "stack %" PRIu64 " frame %zu has unknown kind %" PRIu64,
			    stack_id, index, kind);
		return false;
	}
}

/* The frames of a STACK event into r->scratch_frames. */
static bool decode_frames(struct mlyze_reader *r, struct cursor *c,
			  uint64_t id, uint64_t *depth)
{
	/* Every frame takes at least two bytes: its kind and one varint. */
	if (!take_count(r, c, "frame count", 2, depth) ||
	    !stack_depth_allowed(r, input_offset(&r->in, c->event), id, *depth))
		return false;
	if (*depth > r->scratch_capacity) {
		struct mlyze_frame *grown = realloc(
			r->scratch_frames, *depth * sizeof(*grown));

		if (!grown) {
			input_fail_system(&r->in, NULL);
			return false;
		}
		r->scratch_frames = grown;
		r->scratch_capacity = *depth;
	}
	for (size_t i = 0; i < *depth; i++)
		if (!decode_frame(r, c, id, i, &r->scratch_frames[i]))
			return false;
	return true;
}

/* The payload bounds the event, so frames that cannot be read damage
 * this stack only. */
static bool decode_stack(struct mlyze_reader *r, struct cursor *c,
			 struct mlyze_event *ev)
{
	uint64_t offset = input_offset(&r->in, c->event);
	uint64_t id, depth;

	if (!take_varint(r, c, "stack id", &id))
		return false;
	if (decode_frames(r, c, id, &depth))
		ev->stack.stack = define_stack(r, offset, id, r->scratch_frames,
					       depth);
	else
		ev->stack.stack = define_damaged_stack(r, offset, id);
	return ev->stack.stack != NULL;
}

static char *hex_string(const uint8_t *bytes, size_t length)
{
	static const char digits[] = "0123456789abcdef";
	char *hex = malloc(2 * length + 1);

	if (!hex)
		return NULL;
	for (size_t i = 0; i < length; i++) {
		hex[2 * i] = digits[bytes[i] >> 4];
		hex[2 * i + 1] = digits[bytes[i] & 15];
	}
	hex[2 * length] = '\0';
	return hex;
}

static bool decode_module(struct mlyze_reader *r, struct cursor *c,
			  struct mlyze_event *ev)
{
	struct mlyze_module m = { 0 };
	uint64_t build_id_length, path_length;
	const uint8_t *build_id;
	char *hex = NULL;

	if (!take_varint(r, c, "module id", &m.id) ||
	    !take_varint(r, c, "start", &m.start) ||
	    !take_varint(r, c, "end", &m.end) ||
	    !take_varint(r, c, "load bias", &m.load_bias) ||
	    !take_count(r, c, "build-id length", 1, &build_id_length))
		return false;
	build_id = c->p;
	c->p += build_id_length;
	if (!take_count(r, c, "path length", 1, &path_length))
		return false;
	m.path = (const char *)c->p;
	c->p += path_length;
	if (build_id_length) {
		hex = hex_string(build_id, build_id_length);
		if (!hex) {
			input_fail_system(&r->in, NULL);
			return false;
		}
		m.build_id = hex;
	}
	ev->module.module =
		define_module(r, input_offset(&r->in, c->event), &m, path_length);
	free(hex);
	return ev->module.module != NULL;
}

static bool decode_string(struct mlyze_reader *r, struct cursor *c,
			  struct mlyze_event *ev)
{
	uint64_t table, id, length;
	const char *text;

	if (!take_varint(r, c, "table", &table))
		return false;
	if (table != MLYZE_TABLE_FILES && table != MLYZE_TABLE_FUNCTIONS) {
		input_fail(&r->in, input_offset(&r->in, c->event),
			    "STRING names unknown table %" PRIu64, table);
		return false;
	}
	if (!take_varint(r, c, "id", &id) ||
	    !take_count(r, c, "length", 1, &length))
		return false;
	text = (const char *)c->p;
	c->p += length;
	ev->string.table = (enum mlyze_table)table;
	ev->string.string = define_string(r, input_offset(&r->in, c->event),
					  ev->string.table, id, text, length);
	return ev->string.string != NULL;
}

/* Bytes of a length given before them, within the payload. */
static bool take_bytes(struct mlyze_reader *r, struct cursor *c,
		       const char *field, const char **bytes, size_t *length)
{
	uint64_t n;

	if (!take_count(r, c, field, 1, &n))
		return false;
	*bytes = (const char *)c->p;
	*length = (size_t)n;
	c->p += n;
	return true;
}

/* The functions of a SYMBOL event into symbols[]; false after
 * input_fail(). */
static bool take_symbols(struct mlyze_reader *r, struct cursor *c,
			 struct symbol_text symbols[MLYZE_SYMBOL_CHAIN_MAX],
			 uint64_t *count)
{
	/* Every function takes at least three bytes: two lengths, a line. */
	if (!take_count(r, c, "function count", 3, count))
		return false;
	if (*count > MLYZE_SYMBOL_CHAIN_MAX) {
		input_fail(&r->in, input_offset(&r->in, c->event),
			   "SYMBOL names %" PRIu64 " functions at one address, "
			   "more than the %d a profile may", *count,
			   MLYZE_SYMBOL_CHAIN_MAX);
		return false;
	}
	for (uint64_t i = 0; i < *count; i++)
		if (!take_bytes(r, c, "function length", &symbols[i].function,
				&symbols[i].function_length) ||
		    !take_bytes(r, c, "file length", &symbols[i].file,
				&symbols[i].file_length) ||
		    !take_varint(r, c, "line", &symbols[i].line))
			return false;
	return true;
}

static bool decode_symbol(struct mlyze_reader *r, struct cursor *c,
			  struct mlyze_event *ev)
{
	struct symbol_text symbols[MLYZE_SYMBOL_CHAIN_MAX];
	uint64_t offset = input_offset(&r->in, c->event);
	uint64_t module_id, count;

	if (!take_varint(r, c, "module id", &module_id) ||
	    !take_varint(r, c, "address", &ev->symbol.offset) ||
	    !take_symbols(r, c, symbols, &count))
		return false;
	ev->symbol.module = table_find(&r->tables.modules, module_id);
	if (!ev->symbol.module) {
		input_fail(&r->in, offset,
			   "SYMBOL references undefined module %" PRIu64,
			   module_id);
		return false;
	}
	ev->symbol.count = (size_t)count;
	ev->symbol.symbols = define_symbols(r, offset, ev->symbol.module,
					    ev->symbol.offset, symbols,
					    (size_t)count);
	return ev->symbol.symbols != NULL;
}

static bool decode_rate(struct mlyze_reader *r, struct cursor *c,
			struct mlyze_event *ev)
{
	if (!take_varint(r, c, "sampling rate", &ev->rate.sampling_rate))
		return false;
	if (ev->rate.sampling_rate == 0) {
		input_fail(&r->in, input_offset(&r->in, c->event),
			    "RATE sets a sampling rate of 0");
		return false;
	}
	r->sampling_rate = ev->rate.sampling_rate;
	return true;
}

static bool decode_free(struct mlyze_reader *r, struct cursor *c,
			struct mlyze_event *ev)
{
	return take_le(r, c, 8, &ev->free.address);
}

static bool decode_gc(struct mlyze_reader *r, struct cursor *c,
		      struct mlyze_event *ev)
{
	return take_varint(r, c, "objects", &ev->gc.objects) &&
	       take_varint(r, c, "bytes", &ev->gc.bytes);
}

static bool decode_memory(struct mlyze_reader *r, struct cursor *c,
			  struct mlyze_event *ev)
{
	if (!take_varint(r, c, "resident bytes", &ev->memory.resident) ||
	    !take_varint(r, c, "anonymous bytes", &ev->memory.anonymous))
		return false;
	/* Older runtimes end the reading here. */
	ev->memory.resident_peak = 0;
	if (c->p < c->end &&
	    !take_varint(r, c, "resident peak", &ev->memory.resident_peak))
		return false;
	if (ev->memory.anonymous > ev->memory.resident) {
		input_fail(&r->in, input_offset(&r->in, c->event),
			   "MEMORY has more anonymous bytes than resident ones");
		return false;
	}
	return true;
}

/* The name of a THREAD event, repaired into r->thread_name: each byte
 * that starts no character a terminal shows as it is (a control
 * character, a byte that is not UTF-8) becomes U+FFFD.  A thread may be
 * given any bytes but NUL, and its name is shown as it is: so no name is
 * refused, and none moves a terminal's cursor. */
static void repair_thread_name(struct mlyze_reader *r, const uint8_t *name,
			       size_t length)
{
	char *out = r->thread_name;

	for (size_t i = 0, n; i < length; i += n) {
		n = utf8_shown_length(name + i, length - i);
		if (n == 0) {
			memcpy(out, "\xef\xbf\xbd", 3);
			out += 3;
			n = 1;
		} else {
			memcpy(out, name + i, n);
			out += n;
		}
	}
	*out = '\0';
}

static bool decode_thread(struct mlyze_reader *r, struct cursor *c,
			  struct mlyze_event *ev)
{
	uint64_t length;

	if (!take_varint(r, c, "thread id", &ev->thread.tid) ||
	    !take_count(r, c, "name length", 1, &length))
		return false;
	if (length > MLYZE_THREAD_NAME_MAX) {
		input_fail(&r->in, input_offset(&r->in, c->event),
			   "THREAD name of %" PRIu64 " bytes, more than the "
			   "%d a thread's name has", length,
			   MLYZE_THREAD_NAME_MAX);
		return false;
	}
	repair_thread_name(r, c->p, (size_t)length);
	c->p += length;
	ev->thread.name = r->thread_name;
	return true;
}

/* The stack of id `id` for an event that needs it defined. */
static bool take_stack(struct mlyze_reader *r, struct cursor *c,
		       const struct mlyze_stack **stack)
{
	char unknown[16];
	uint64_t id;

	if (!take_varint(r, c, "stack id", &id))
		return false;
	*stack = table_find(&r->tables.stacks, id);
	if (!*stack)
		input_fail(&r->in, input_offset(&r->in, c->event),
			   "%s references undefined stack %" PRIu64,
			   cursor_event_name(c, unknown), id);
	return *stack != NULL;
}

static bool decode_checkpoint(struct mlyze_reader *r, struct cursor *c,
			      struct mlyze_event *ev)
{
	return take_varint(r, c, "number", &ev->checkpoint.number) &&
	       take_varint(r, c, "events before", &ev->checkpoint.events_before);
}

static bool decode_live(struct mlyze_reader *r, struct cursor *c,
			struct mlyze_event *ev)
{
	uint64_t thread = 0;

	if (!take_le(r, c, 8, &ev->live.address) ||
	    !take_varint(r, c, "size", &ev->live.size) ||
	    !take_varint(r, c, "sampling rate", &ev->live.sampling_rate) ||
	    !take_stack(r, c, &ev->live.stack) || !take_le(r, c, 2, &thread))
		return false;
	ev->live.thread = (uint16_t)thread;
	return true;
}

static bool decode_map(struct mlyze_reader *r, struct cursor *c,
		       struct mlyze_event *ev)
{
	uint64_t thread = 0, remainder = 0;

	if (!take_le(r, c, 8, &ev->map.address) ||
	    !take_varint(r, c, "size", &ev->map.size) ||
	    !take_varint(r, c, "sampling rate", &ev->map.sampling_rate) ||
	    !take_stack(r, c, &ev->map.stack) || !take_le(r, c, 2, &thread) ||
	    !take_varint(r, c, "remainder", &remainder))
		return false;
	if (ev->map.sampling_rate == 0 || remainder > 1) {
		input_fail(&r->in, input_offset(&r->in, c->event),
			   ev->map.sampling_rate == 0
				   ? "MAP has a sampling rate of 0"
				   : "MAP has a remainder flag other than 0 or 1");
		return false;
	}
	ev->map.thread = (uint16_t)thread;
	ev->map.remainder = (uint8_t)remainder;
	return true;
}

static bool decode_unmap(struct mlyze_reader *r, struct cursor *c,
			 struct mlyze_event *ev)
{
	return take_le(r, c, 8, &ev->unmap.address) &&
	       take_varint(r, c, "length", &ev->unmap.length);
}

/* A sample count and four sums of weights (bytes, its variance, count,
 * its variance), as the bits of doubles. */
static bool take_sum(struct mlyze_reader *r, struct cursor *c,
		     uint64_t *samples)
{
	double *fields[] = { &r->event_sum.bytes, &r->event_sum.bytes_variance,
			     &r->event_sum.count,
			     &r->event_sum.count_variance };
	uint64_t bits = 0;

	if (!take_varint(r, c, "samples", samples))
		return false;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!take_le(r, c, 8, &bits))
			return false;
		*fields[i] = mlyze_bits_double(bits);
	}
	return true;
}

static bool decode_totals(struct mlyze_reader *r, struct cursor *c,
			  struct mlyze_event *ev)
{
	ev->totals.sum = &r->event_sum;
	return take_stack(r, c, &ev->totals.stack) &&
	       take_sum(r, c, &ev->totals.samples);
}

static bool decode_heap_point(struct mlyze_reader *r, struct cursor *c,
			      struct mlyze_event *ev)
{
	uint64_t since_start;

	ev->heap_point.sum = &r->event_sum;
	if (!take_varint(r, c, "time", &since_start))
		return false;
	ev->heap_point.time_us = r->info.start_time_us + since_start;
	return take_sum(r, c, &ev->heap_point.samples);
}

/* Every event type the reader knows, a row of mlyze-events.def each.  A
 * type without a row is unknown, and skipped by its payload length. */
struct event_type {
	const char *name;
	bool (*decode)(struct mlyze_reader *r, struct cursor *c,
		       struct mlyze_event *ev);
};

static const struct event_type event_types[] = {
#define MLYZE_EVENT_TYPE(NAME, name, NUMBER, LAYOUT, DESCRIPTION) \
	[NUMBER] = { #NAME, decode_##name },
#include <spprof/mlyze-events.def>
#undef MLYZE_EVENT_TYPE
};

#define EVENT_TYPE_ROWS (sizeof(event_types) / sizeof(event_types[0]))

_Static_assert(EVENT_TYPE_ROWS >= MLYZE_FIRST_SIZED_EVENT,
	       "every fixed-layout event type has a row");

/* The row of event type `type`, or NULL when the reader does not know it. */
static const struct event_type *event_type_of(unsigned type)
{
	if (type >= EVENT_TYPE_ROWS || !event_types[type].decode)
		return NULL;
	return &event_types[type];
}

/* An event whose payload is not all buffered: wait for more bytes, or
 * discard an unknown one piece by piece.  Returns the bytes still needed
 * from the event start, or 0 when the event was dealt with. */
static size_t payload_not_buffered(struct mlyze_reader *r, struct cursor *c,
				   uint64_t length, bool known)
{
	uint64_t header = (uint64_t)(c->p - c->event);
	uint64_t buffered = (uint64_t)(c->end - c->p);
	char unknown[16];

	if (r->in.at_eof) {
		stop_truncated(r, input_offset(&r->in, c->event),
			       cursor_event_name(c, unknown));
		return 0;
	}
	if (length <= r->in.capacity - header)
		return (size_t)(header + length);
	if (known) {
		input_fail(&r->in, input_offset(&r->in, c->event),
			    "%s payload of %" PRIu64
			    " bytes is larger than the read buffer (%zu bytes)",
			    cursor_event_name(c, unknown), length,
			    r->in.capacity);
		return 0;
	}
	r->skip_left = length - buffered;
	r->skip_event_offset = input_offset(&r->in, c->event);
	cursor_event_name(c, r->skip_event_name); /* "type N" */
	r->in.next = r->in.end;
	return 0;
}

/* Discard the rest of an unknown event's payload. */
static int skip_payload(struct mlyze_reader *r)
{
	size_t buffered = (size_t)(r->in.end - r->in.next);

	if (buffered == 0) {
		int rc = input_refill(&r->in);

		if (rc < 0)
			return -1;
		if (rc == 0) {
			r->skip_left = 0;
			stop_truncated(r, r->skip_event_offset,
				       r->skip_event_name);
			return 0;
		}
		buffered = (size_t)(r->in.end - r->in.next);
	}
	if (buffered > r->skip_left)
		buffered = (size_t)r->skip_left;
	r->in.next += buffered;
	r->skip_left -= buffered;
	return 0;
}

/* The name of event type `type`: "ALLOC", or "type 12" written in
 * unknown (which must outlive the name). */
static const char *event_name_of(unsigned type, char unknown[16])
{
	const struct event_type *known = event_type_of(type);

	if (known)
		return known->name;
	snprintf(unknown, 16, "type %u", type);
	return unknown;
}

/* Decode the event at r->in.next.  Returns 1 with an event, 0 when there
 * is no event to deliver (*needed set when more bytes must be buffered
 * first), -1 on error. */
static int decode_event(struct mlyze_reader *r, struct mlyze_event *ev,
			size_t *needed)
{
	struct cursor c = { .p = r->in.next, .end = r->in.end,
			    .event = r->in.next };
	uint64_t delta, length;
	unsigned type = *c.p++;
	const struct event_type *known;
	bool ok;

	*needed = LONGEST_FIXED_EVENT;
	if (!take_varint(r, &c, "delta", &delta))
		return r->in.status == MLYZE_OK ? 0 : -1;
	ev->type = (enum mlyze_event_kind)type;
	ev->offset = input_offset(&r->in, c.event);
	/* Most events are ALLOCs and FREEs: called directly, so that they
	 * are inlined. */
	if (type == MLYZE_EVENT_ALLOC) {
		ok = decode_alloc(r, &c, ev);
	} else if (type == MLYZE_EVENT_FREE) {
		ok = decode_free(r, &c, ev);
	} else if (type < MLYZE_FIRST_SIZED_EVENT) {
		ok = event_types[type].decode(r, &c, ev);
	} else {
		known = event_type_of(type);
		if (!take_varint(r, &c, "payload length", &length))
			return r->in.status == MLYZE_OK ? 0 : -1;
		if (length > (uint64_t)(c.end - c.p)) {
			*needed = payload_not_buffered(r, &c, length,
						       known != NULL);
			if (r->skip_left)
				r->time_us += delta;
			return r->in.status == MLYZE_OK ? 0 : -1;
		}
		if (!known) {
			r->time_us += delta;
			r->in.next = c.p + length;
			return 0;
		}
		c.end = c.p + length;
		c.in_payload = true;
		c.payload_length = length;
		ok = known->decode(r, &c, ev);
		c.p = c.end;
	}
	if (!ok)
		return r->in.status == MLYZE_OK ? 0 : -1;
	r->in.next = c.p;
	r->time_us += delta;
	ev->time_us = r->time_us;
	return 1;
}

/* ---- the unwritten tail of a streamed file ---- */

#define LOOKAHEAD_CHUNK 4096

/* Of a descriptor that cannot seek (a pipe): whether nothing but zero
 * bytes follow what is buffered, read on into the buffer while it has
 * room (pointers into the buffer but r->in.next go stale): 1 yes, 0 no
 * (or the buffer filled first: then nobody can tell), -1 error. */
static int zeros_read_to_end(struct mlyze_reader *r)
{
	const uint8_t *new_bytes;
	uint64_t from;

	while (!r->in.at_eof) {
		if ((size_t)(r->in.end - r->in.next) == r->in.capacity)
			return 0;
		from = input_offset(&r->in, r->in.end);
		if (input_refill(&r->in) < 0)
			return -1;
		/* The refill moved the buffered bytes to its start. */
		new_bytes = r->in.buffer + (size_t)(from - r->in.buffer_offset);
		if (last_nonzero(new_bytes, r->in.end))
			return 0;
	}
	return 1;
}

/* Whether the file holds nothing but zero bytes after what is buffered,
 * read ahead without moving the descriptor (or, one that cannot seek,
 * into the buffer: see zeros_read_to_end): 1 yes, 0 no, -1 error. */
static int zeros_to_end(struct mlyze_reader *r)
{
	uint8_t chunk[LOOKAHEAD_CHUNK];
	off_t start = lseek(r->in.fd, 0, SEEK_CUR), at = start;
	const uint8_t *p;
	ssize_t n;

	if (start < 0)
		return zeros_read_to_end(r);
	for (;;) {
		n = pread(r->in.fd, chunk, sizeof(chunk), at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return input_fail_system(&r->in, "read");
		if (n == 0)
			return 1;
		p = last_nonzero(chunk, chunk + n);
		if (p) {
			r->nonzero_at = input_offset(&r->in, r->in.end) +
					(uint64_t)(at - start) +
					(uint64_t)(p - chunk);
			return 0;
		}
		at += n;
	}
}

/* At an event boundary: 1 when every byte from here to the end of the
 * file is zero, space a streaming writer reserved and never wrote (a real
 * ALLOC, type 0, has a non-zero address); 0 otherwise; -1 error. */
static int at_unwritten_tail(struct mlyze_reader *r)
{
	size_t scanned = 0;
	const uint8_t *p;

	if (*r->in.next != 0 || r->info.complete != 0 ||
	    input_offset(&r->in, r->in.next) < r->nonzero_at)
		return 0;
	for (;;) {
		p = last_nonzero(r->in.next + scanned, r->in.end);
		if (p) {
			r->nonzero_at = input_offset(&r->in, p);
			return 0;
		}
		if (r->in.at_eof)
			return 1;
		scanned = (size_t)(r->in.end - r->in.next);
		if (scanned == r->in.capacity)
			return zeros_to_end(r);
		if (input_refill(&r->in) < 0)
			return -1;
		/* A live refill read the scanned bytes again: written
		 * since, when the reader follows the file. */
		if (r->in.live)
			scanned = 0;
	}
}

/* Whether the events end here: a streamed file whose writer wrote on
 * after the reader reached the end (see fix_end_of_events). */
static bool past_end_of_events(const struct mlyze_reader *r)
{
	return r->end_of_events &&
	       input_offset(&r->in, r->in.next) >= r->end_of_events;
}

/* ---- an event its writer did not finish ---- */

/* A varint read loosely, as a writer stopped inside it may have left it:
 * up to its first byte without the continuation bit.  Returns its length
 * (at most what is left before end) and stores its value. */
static size_t loose_varint(const uint8_t *p, const uint8_t *end,
			   uint64_t *value)
{
	size_t n = 0;

	*value = 0;
	while (p + n < end && n < MLYZE_VARINT_MAX) {
		*value |= (uint64_t)(p[n] & 0x7f) << (7 * n);
		if (!(p[n++] & 0x80))
			break;
	}
	return n;
}

/* How many bytes the event at p claims by its layout (its varints read
 * loosely), counted up to end at most. */
static size_t claimed_length(const uint8_t *p, const uint8_t *end)
{
	struct mlyze_fixed_layout layout;
	unsigned type = *p;
	size_t n = 1;
	uint64_t value;

	n += loose_varint(p + n, end, &value); /* the delta */
	if (type >= MLYZE_FIRST_SIZED_EVENT) {
		n += loose_varint(p + n, end, &value);
		return value < (uint64_t)(end - p) - n ? n + (size_t)value
						       : (size_t)(end - p);
	}
	layout = mlyze_fixed_layout(type);
	n += layout.before;
	for (unsigned i = 0; i < layout.varints && p + n < end; i++)
		n += loose_varint(p + n, end, &value);
	n += layout.after;
	return n < (size_t)(end - p) ? n : (size_t)(end - p);
}

/* The events end before the one at r->in.next (where a pipe's zeros
 * were read on into), which its writer did not finish. */
static void stop_where_the_writing_stopped(struct mlyze_reader *r)
{
	char unknown[16];

	stop_cut_short(r, input_offset(&r->in, r->in.next),
		       event_name_of(*r->in.next, unknown),
		       "where the writing stopped (its process ended in the "
		       "middle of it)");
}

/* After the event at r->in.next could not be read: in a streamed file, an
 * event that reaches into the zero bytes that end the file is the one its
 * writer was writing when its process ended (killed, say).  Then the
 * error becomes a warning and the events end before it: returns 1.
 * Otherwise the error stands: 0. */
static int cut_short_by_its_writer(struct mlyze_reader *r)
{
	const uint8_t *event = r->in.next, *last;

	if (r->in.status != MLYZE_BAD_FILE || r->info.complete != 0 ||
	    event >= r->in.end)
		return 0;
	last = last_nonzero(event, r->in.end);
	if (!last || event + claimed_length(event, r->in.end) <= last + 1 ||
	    (!r->in.at_eof && zeros_to_end(r) != 1))
		return 0;
	free(input_take_error(&r->in));
	stop_where_the_writing_stopped(r);
	return 1;
}

/* Whether the event at r->in.next defines what the tables keep for good
 * (a stack, a module, a string, a symbol) and may be one its writer has
 * not finished: buffered with the bytes after it, its last bytes are
 * zero and no written byte follows it, up to the end of the file (of the
 * buffer, in a file read again as it grows).  Read so, it could define
 * something wrong, or something else, that no later event would mend: 1
 * yes, 0 no, -1 error. */
static int unfinished_definition(struct mlyze_reader *r)
{
	const uint8_t *event = r->in.next, *last;
	size_t claimed;

	if (r->info.complete != 0 ||
	    (*event != MLYZE_EVENT_STACK && *event != MLYZE_EVENT_MODULE &&
	     *event != MLYZE_EVENT_STRING && *event != MLYZE_EVENT_SYMBOL))
		return 0;
	claimed = claimed_length(event, r->in.end);
	/* One not all buffered is buffered whole before it is decoded. */
	if (claimed >= (size_t)(r->in.end - event) ||
	    r->buffered_nonzero_at >= input_offset(&r->in, event + claimed))
		return 0;
	/* A type is not zero: the last non-zero byte is the event's or
	 * after it, and a written byte, that spares the next definitions a
	 * look at the zeros to the end of the buffer. */
	last = last_nonzero(event, r->in.end);
	if (input_offset(&r->in, last) > r->buffered_nonzero_at)
		r->buffered_nonzero_at = input_offset(&r->in, last);
	if (last + 1 >= event + claimed)
		return 0;
	return r->in.live || r->in.at_eof ? 1 : zeros_to_end(r);
}

/* ---- the event its writer may be writing ---- */

#define SETTLING_PAUSE_NS 2000000
#define SETTLING_PAUSES_MAX 20

/* In a streamed file read while its process runs: whether the event at p
 * is the last one written when the buffer was read, with no written
 * (non-zero) byte after it.  Writes come in order, so an event with a
 * written byte after it is whole; the last one may be half-written. */
static bool last_written_event(struct mlyze_reader *r, const uint8_t *p)
{
	const uint8_t *after, *last;

	if (*p < MLYZE_FIRST_SIZED_EVENT &&
	    input_offset(&r->in, p) + LONGEST_FIXED_EVENT <
		    r->buffered_nonzero_at)
		return false;
	after = p + claimed_length(p, r->in.end);
	if (input_offset(&r->in, after) <= r->buffered_nonzero_at)
		return false;
	last = last_nonzero(after, r->in.end);
	if (!last)
		return true;
	r->buffered_nonzero_at = input_offset(&r->in, last);
	return false;
}

/* Whether any of the n bytes of the file at offset is written (not zero)
 * now: 1 yes, 0 no, -1 error. */
static int written_now(struct mlyze_reader *r, uint64_t offset, size_t n)
{
	uint8_t bytes[LONGEST_FIXED_EVENT];
	ssize_t got;

	do
		got = pread(r->in.fd, bytes, n, (off_t)offset);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return input_fail_system(&r->in, "read");
	return last_nonzero(bytes, bytes + got) != NULL;
}

/* File offset just past the last written byte buffered from p on (p's
 * own offset when there is none). */
static uint64_t written_end_from(struct mlyze_reader *r, const uint8_t *p)
{
	const uint8_t *last = last_nonzero(p, r->in.end);

	return input_offset(&r->in, last ? last + 1 : p);
}

/* File offset where the buffered event that holds the byte before `end`
 * ends, by its layout; `end` itself when no event from r->in.next on
 * holds it. */
static uint64_t claimed_end_of_event_before(struct mlyze_reader *r,
					    uint64_t end)
{
	const uint8_t *p = r->in.next;
	uint64_t at = input_offset(&r->in, p);

	while (at < end && p < r->in.end) {
		p += claimed_length(p, r->in.end);
		at = input_offset(&r->in, p);
	}
	return at > end ? at : end;
}

/* The last event written, holding the byte before `end`, may be one its
 * writer is still writing, stopped in it by a page fault or a preemption:
 * the file is read again, a pause apart, until a written byte follows the
 * event (it is whole), or until a pause passes with nothing more written
 * (its writer has stopped, with the event whole, or was killed in it).
 * Returns 0, or -1 on error. */
static int wait_for_last_event(struct mlyze_reader *r, uint64_t end)
{
	const struct timespec pause = { 0, SETTLING_PAUSE_NS };
	uint64_t seen = end, now;

	for (unsigned pauses = 0; pauses < SETTLING_PAUSES_MAX; pauses++) {
		nanosleep(&pause, NULL);
		if (input_reread(&r->in) < 0)
			return -1;
		now = written_end_from(r, r->in.next);
		if (now > claimed_end_of_event_before(r, end) || now == seen)
			return 0;
		seen = now;
	}
	return 0;
}

/* The event at r->in.next had nothing written after it when the buffer
 * was read: the end of what its writer had written then, or a buffer read
 * long before.  The file is read again from there, and where its written
 * bytes now end, with zeros to the end of the file, the events end: those
 * that start before are read, those written later are not, so that a
 * reader never chases a running writer.  Returns 0, or -1 on error. */
static int fix_end_of_events(struct mlyze_reader *r)
{
	uint64_t end;
	int zeros_after, written_on;

	if (input_reread(&r->in) < 0)
		return -1;
	end = written_end_from(r, r->in.next);
	if (!r->in.at_eof &&
	    input_offset(&r->in, r->in.end) - end < LONGEST_FIXED_EVENT)
		return 0; /* written up to the end of the buffer */
	zeros_after = r->in.at_eof ? 1 : zeros_to_end(r);
	if (zeros_after < 0)
		return -1;
	if (!zeros_after) {
		/* A writer writes on from where it stopped: bytes further
		 * on, after zeros that stay, are not its unwritten tail but
		 * events. */
		written_on = written_now(r, end, LONGEST_FIXED_EVENT);
		if (written_on <= 0)
			return written_on;
	}
	r->end_of_events = end;
	return wait_for_last_event(r, end);
}

/* One warning for all the damaged stacks, when the stream ends. */
static void report_damage(struct mlyze_reader *r)
{
	uint64_t n = r->info.damaged_stacks;

	if (!n || r->damage_reported)
		return;
	r->damage_reported = true;
	input_warn(&r->in, "%s: %" PRIu64 " damaged stack%s read without frames, "
		    "%s samples unattributed (%s%s)", r->in.name, n,
		    n == 1 ? "" : "s", n == 1 ? "its" : "their",
		    n == 1 ? "" : "the first: ", r->first_damage);
}

/* ---- an event read while its writer may have been writing it ---- */

/* Whether the n bytes at `bytes` are in the file as they are buffered:
 * 1 yes, 0 no, -1 error. */
static int still_as_buffered(struct mlyze_reader *r, const uint8_t *bytes,
			     size_t n)
{
	uint8_t now[UNSURE_EVENT_MAX];
	ssize_t got;

	if (n > sizeof(now))
		return 0;
	got = input_pread(&r->in, now, n, input_offset(&r->in, bytes));
	if (got < 0)
		return -1;
	return (size_t)got == n && memcmp(now, bytes, n) == 0;
}

/* After the event that starts at `event` was read, in a streamed file
 * read while its process runs: when its last bytes are zero and nothing
 * written follows it, its writer may be in the middle of it still
 * (preempted for longer than the reader waits), the zeros fields it had
 * not written yet.  It is read as it is, as the last event of a file
 * whose process ended must be, and the events end after it; its bytes
 * are kept, for mlyze_follow() to tell whether they were the writer's.
 * A byte written after the buffered ones makes it whole, once read again
 * as it was buffered. */
static void note_unsure_event(struct mlyze_reader *r, const uint8_t *event)
{
	uint64_t end = input_offset(&r->in, r->in.next);
	const uint8_t *last;
	int zeros_after;

	if (!r->in.live || r->info.complete != 0 ||
	    r->buffered_nonzero_at >= end)
		return;
	last = last_nonzero(event, r->in.end);
	if (last && input_offset(&r->in, last) > r->buffered_nonzero_at)
		r->buffered_nonzero_at = input_offset(&r->in, last);
	if (last && last + 1 >= r->in.next)
		return;
	zeros_after = r->in.at_eof ? 1 : zeros_to_end(r);
	if (zeros_after < 0 ||
	    (zeros_after == 0 &&
	     still_as_buffered(r, event, (size_t)(r->in.next - event)) != 0))
		return;
	r->unsure_at = input_offset(&r->in, event);
	r->unsure_length = (size_t)(r->in.next - event);
	if (r->unsure_length <= UNSURE_EVENT_MAX)
		memcpy(r->unsure_bytes, event, r->unsure_length);
	r->end_of_events = end;
}

/* Of the event read unsure, when there is one, at mlyze_follow(): 1 its
 * bytes are as read and a written byte follows them now (it was read
 * whole), or there is none; 0 nothing is written after them yet (nor
 * can be read); -1 they changed (the zeros were fields not yet written:
 * it was read wrong, and the events after it would be read out of step),
 * it was too long to keep, or the file cannot be read. */
static int unsure_event_checked(struct mlyze_reader *r)
{
	uint8_t now[UNSURE_EVENT_MAX + LONGEST_FIXED_EVENT];
	size_t length = r->unsure_length;
	ssize_t got;

	if (!length)
		return 1;
	if (length > UNSURE_EVENT_MAX)
		return -1;
	got = input_pread(&r->in, now, length + LONGEST_FIXED_EVENT,
			  r->unsure_at);
	if (got < (ssize_t)length || memcmp(now, r->unsure_bytes, length) != 0)
		return -1;
	if (!last_nonzero(now + length, now + got))
		return 0;
	r->unsure_length = 0;
	return 1;
}

/* ---- ALLOCs and FREEs, the most of a profile, read straight ---- */

/* Where the ALLOCs and FREEs that read_event_carefully() would decode at
 * once (whatever their varints) end: the file offset before which they
 * start, LONGEST_FIXED_EVENT or more before the end of the buffer, before
 * the end of the events, before where the unwritten tail of a streamed
 * file may start, and before the last event its writer may still be
 * writing.  0 when the reader has something else to do first. */
static uint64_t plain_events_end(const struct mlyze_reader *r)
{
	uint64_t end = input_offset(&r->in, r->in.end);

	if (r->in.status != MLYZE_OK || r->finished || r->skip_left ||
	    end < LONGEST_FIXED_EVENT)
		return 0;
	end -= LONGEST_FIXED_EVENT - 1;
	if (r->end_of_events && r->end_of_events < end)
		end = r->end_of_events;
	if (r->info.complete == 0 && r->nonzero_at < end)
		end = r->nonzero_at;
	/* Before the last event written, which may be read unsure (see
	 * note_unsure_event). */
	if (r->in.live) {
		if (r->buffered_nonzero_at < LONGEST_FIXED_EVENT)
			return 0;
		if (r->buffered_nonzero_at - LONGEST_FIXED_EVENT < end)
			end = r->buffered_nonzero_at - LONGEST_FIXED_EVENT;
	}
	return end;
}

/* A varint with MLYZE_VARINT_MAX bytes or more buffered from *p; false
 * for an overlong one. */
static inline bool plain_varint(const uint8_t **p, uint64_t *value)
{
	size_t used;

	if (**p < 0x80) {
		*value = *(*p)++;
		return true;
	}
	if (mlyze_get_varint(*p, MLYZE_VARINT_MAX, value, &used) !=
	    MLYZE_VARINT_OK)
		return false;
	*p += used;
	return true;
}

/* The ALLOC or FREE at r->in.next, before plain_events_end(), as
 * decode_event() would decode it; false, with the reader untouched, when
 * it has something to say (an overlong varint, an undefined stack): then
 * the careful way reads it again and says it. */
static inline bool decode_plain_event(struct mlyze_reader *r,
				      struct mlyze_event *ev)
{
	const uint8_t *p = r->in.next + 1;
	uint64_t delta, address, stack_id;

	if (!plain_varint(&p, &delta))
		return false;
	address = mlyze_get_le(p, 8);
	p += 8;
	if (*r->in.next == MLYZE_EVENT_ALLOC) {
		if (!plain_varint(&p, &ev->alloc.size) ||
		    !plain_varint(&p, &stack_id))
			return false;
		ev->alloc.stack = table_find(&r->tables.stacks, stack_id);
		if (!ev->alloc.stack)
			return false;
		ev->alloc.address = address;
		ev->alloc.thread = (uint16_t)mlyze_get_le(p, 2);
		ev->alloc.sampling_rate = r->sampling_rate;
		p += 2;
	} else {
		ev->free.address = address;
	}
	ev->type = (enum mlyze_event_kind)*r->in.next;
	ev->offset = input_offset(&r->in, r->in.next);
	r->in.next = p;
	r->time_us += delta;
	ev->time_us = r->time_us;
	return true;
}

/* ---- the next event ---- */

/* decode_event() of a streamed file's event as far as its writer wrote
 * it: the events end before a definition it did not finish (a reader
 * that follows the file reads it once written) or an event cut short
 * where it stopped, and an event read unsure is noted. */
static int decode_written_event(struct mlyze_reader *r, struct mlyze_event *ev,
				size_t *needed)
{
	const uint8_t *event = r->in.next;
	int rc = unfinished_definition(r);

	if (rc > 0)
		stop_where_the_writing_stopped(r);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	rc = decode_event(r, ev, needed);
	if (rc < 0 && cut_short_by_its_writer(r))
		return 0;
	if (rc > 0)
		note_unsure_event(r, event);
	return rc;
}

/* Every other event, and the end of the events. */
static int read_event_carefully(struct mlyze_reader *r, struct mlyze_event *ev)
{
	size_t needed = LONGEST_FIXED_EVENT;

	for (;;) {
		if (r->in.status != MLYZE_OK)
			return -1;
		if (r->finished) {
			report_damage(r);
			return 0;
		}
		if (r->skip_left) {
			if (skip_payload(r) < 0)
				return -1;
			/* The next event needs its own bytes buffered,
			 * not the skipped payload's. */
			needed = LONGEST_FIXED_EVENT;
			continue;
		}
		if ((size_t)(r->in.end - r->in.next) < needed && !r->in.at_eof) {
			if (input_refill(&r->in) < 0)
				return -1;
			continue;
		}
		int rc = r->in.next == r->in.end ||
				 past_end_of_events(r) ? 1 : at_unwritten_tail(r);

		if (rc < 0)
			return -1;
		if (rc > 0) {
			r->finished = true;
			continue;
		}
		if (r->in.live && !r->end_of_events &&
		    last_written_event(r, r->in.next) &&
		    fix_end_of_events(r) < 0)
			return -1;
		rc = decode_written_event(r, ev, &needed);
		if (rc != 0)
			return rc;
	}
}

/* The ALLOCs and FREEs from r->in.next on that decode at once, up to max
 * of them: how many. */
static int read_plain_events(struct mlyze_reader *r, struct mlyze_event *events,
			     int max)
{
	uint64_t end = plain_events_end(r);
	int count = 0;

	while (count < max && input_offset(&r->in, r->in.next) < end &&
	       *r->in.next <= MLYZE_EVENT_FREE &&
	       decode_plain_event(r, &events[count]))
		count++;
	return count;
}

MLYZE_PUBLIC int mlyze_next(mlyze_reader *r, struct mlyze_event *ev)
{
	return read_plain_events(r, ev, 1) ? 1 : read_event_carefully(r, ev);
}

MLYZE_PUBLIC int mlyze_next_events(mlyze_reader *r, struct mlyze_event *events,
				   int max)
{
	int count = 0, rc;

	for (;;) {
		count += read_plain_events(r, events + count, max - count);
		if (count == max)
			return count;
		rc = read_event_carefully(r, &events[count]);
		if (rc <= 0)
			return count ? count : rc;
		if (events[count++].type > MLYZE_EVENT_FREE || count == max)
			return count;
	}
}
