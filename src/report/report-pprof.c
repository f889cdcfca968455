/* report-pprof.c - a gzip-compressed profile.proto, as `go tool pprof`
 * reads it (and the services that take pprof uploads).
 *
 * The sample types are those of a Go heap profile, so that pprof treats
 * the file as a memory profile: alloc_objects/count, alloc_space/bytes,
 * inuse_objects/count, inuse_space/bytes, in use meaning live at the
 * report's moment (--at).  Every stack is one sample with its estimates.
 * Every return address is a location in the mapping of its module (with
 * its build-id), whose lines are the functions inlined there, innermost
 * first, then the function that holds them, as profile.proto describes
 * inlining; a function has its file and line when known, and is
 * "libfoo.so+0x1234" when the module is stripped, so that pprof does not
 * try to symbolize it again.  A Python frame is a location of one line.
 * The protocol buffer is written by report-protobuf.c, a small encoder:
 * four message types are simpler to write by hand than to generate and
 * link with protobuf-c.
 *
 * With --base the file holds both sides, as pprof's own -diff_base makes
 * it: the newer stacks with their values, the base stacks with theirs
 * negated, so that every view of pprof shows the difference.  The base's
 * frames and modules are locations and mappings of their own, after the
 * newer ones; functions are shared by name and file.
 */
#include "config.h"

#include "report-index.h"
#include "report-protobuf.h"
#include "report-util.h"
#include "report-wrappers.h"
#include "report-view.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Field numbers of profile.proto. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
	MAPPING_ID = 1, MAPPING_START = 2, MAPPING_LIMIT = 3,
	MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
};

/* The sample types of a Go heap profile, in its order. */
static const char *const sample_types[4][2] = {
	{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
	{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
};

/* The stacks of one side of the file. */
struct side {
	const struct stack_table *t;
	uint64_t first_location, first_mapping; /* ids before the first */
	bool negated; /* the base of a comparison */
};

struct encoder {
	const struct report *r;
	struct pb out, sub, line;
	struct text_index strings, functions;
};

static int64_t string_id(struct encoder *e, const char *text)
{
	bool added;

	return (int64_t)text_index_intern(&e->strings, text, &added);
}

static void value_type(struct encoder *e, unsigned field, const char *type,
		       const char *unit)
{
	pb_int(&e->sub, VALUE_TYPE_TYPE, string_id(e, type));
	pb_int(&e->sub, VALUE_TYPE_UNIT, string_id(e, unit));
	pb_message(&e->out, field, &e->sub);
}

/* A whole value, rounded, as protobuf writes an int64: a negated one in
 * two's complement. */
static uint64_t whole(double value, bool negated)
{
	uint64_t n = value + 0.5 > 0 ? (value + 0.5 < 0x1p63
						? (uint64_t)(value + 0.5)
						: INT64_MAX)
				     : 0;

	return negated ? (uint64_t) - (int64_t)n : n;
}

/* Location ids of a side are its frame indexes + 1 after its first (the
 * location of a frame holds it and the frames it is inlined into); the
 * two stacks without frames have the ids after them. */
static uint64_t placeholder_location(const struct side *side,
				     const struct report_stack *s)
{
	return side->first_location + side->t->frame_count + 1 +
	       (s->damaged ? 1 : 0);
}

/* Ids a side takes: its frames and the two placeholders. */
static uint64_t location_count(const struct stack_table *t)
{
	return t->frame_count + 2;
}

/* The frames from `frame` to the one it is inlined into, if any, and so
 * on to the function that holds them: one location. */
static size_t location_lines(const struct stack_table *t, size_t frame)
{
	size_t n = 1;

	while (frame + n < t->frame_count && t->frames[frame + n - 1].inlined)
		n++;
	return n;
}

/* Calls fn for the frames of s that start a location, leaf first: the
 * first frame past the allocators and their wrappers, then each after a
 * location's last line. */
static void each_location(const struct stack_table *t,
			  const struct report_stack *s,
			  void (*fn)(void *ctx, size_t frame), void *ctx)
{
	size_t k = stack_first_past_wrappers(t, s);

	while (k < s->depth) {
		fn(ctx, s->frames[k]);
		k += location_lines(t, s->frames[k]);
	}
}

struct location_ids {
	const struct side *side;
	uint64_t *ids;
	size_t n;
};

static void add_location_id(void *ctx, size_t frame)
{
	struct location_ids *l = ctx;

	l->ids[l->n++] = l->side->first_location + frame + 1;
}

static void samples(struct encoder *e, const struct side *side)
{
	const struct stack_table *t = side->t;
	uint64_t *ids = NULL;
	size_t capacity = 0;

	for (size_t i = 0; i < t->stack_count; i++) {
		const struct report_stack *s = &t->stacks[i];
		const struct heap_estimates *h = &s->heap;
		const struct estimate *live = &h->live[e->r->at];
		uint64_t values[4] = { whole(h->allocated.count, side->negated),
				       whole(h->allocated.bytes, side->negated),
				       whole(live->count, side->negated),
				       whole(live->bytes, side->negated) };
		struct location_ids l = { .side = side };

		ids = xgrow(ids, &capacity, s->depth + 1, sizeof(*ids));
		l.ids = ids;
		if (stack_placeholder(s))
			ids[l.n++] = placeholder_location(side, s);
		each_location(t, s, add_location_id, &l);
		pb_packed(&e->sub, SAMPLE_LOCATION_ID, ids, l.n);
		pb_packed(&e->sub, SAMPLE_VALUE, values, 4);
		pb_message(&e->out, PROFILE_SAMPLE, &e->sub);
	}
	free(ids);
}

/* Whether a module's file is a shared library ("libc.so.6", "x.so"). */
static bool shared_library(const char *path)
{
	const char *so = strstr(path, ".so");

	return so && (so[3] == '\0' || so[3] == '.' || so[3] == '_');
}

/* The program's own executable among the modules: the first that is not
 * a shared library nor a pseudo-file ("[vdso]"); the module count when
 * there is none. */
static size_t main_module(const struct stack_table *t)
{
	for (size_t i = 0; i < t->module_count; i++) {
		const char *path = t->modules[i].path;

		if (path && path[0] && path[0] != '[' && !shared_library(path))
			return i;
	}
	return t->module_count;
}

static void mapping(struct encoder *e, const struct side *side, size_t i)
{
	const struct report_module *m = &side->t->modules[i];

	pb_uint(&e->sub, MAPPING_ID, side->first_mapping + i + 1);
	pb_uint(&e->sub, MAPPING_START, m->start);
	pb_uint(&e->sub, MAPPING_LIMIT, m->end);
	pb_int(&e->sub, MAPPING_FILENAME, string_id(e, m->path));
	pb_int(&e->sub, MAPPING_BUILD_ID,
	       string_id(e, m->build_id ? m->build_id : ""));
	pb_bool(&e->sub, MAPPING_HAS_FUNCTIONS, 1);
	pb_bool(&e->sub, MAPPING_HAS_FILENAMES, 1);
	pb_bool(&e->sub, MAPPING_HAS_LINE_NUMBERS, 1);
	pb_message(&e->out, PROFILE_MAPPING, &e->sub);
}

/* The executable's mapping comes first: pprof's tools name a profile
 * after its first mapping ("File: redis-server"). */
static void mappings(struct encoder *e, const struct side *side)
{
	size_t first = main_module(side->t);

	if (first < side->t->module_count)
		mapping(e, side, first);
	for (size_t i = 0; i < side->t->module_count; i++)
		if (i != first)
			mapping(e, side, i);
}

/* The id of a function (name and file), written when new. */
static uint64_t function_id(struct encoder *e, const char *name,
			    const char *file)
{
	char *key = xasprintf("%s\n%s", name, file ? file : "");
	bool added;
	uint64_t id = text_index_intern(&e->functions, key, &added) + 1;
	struct pb function = { 0 };

	free(key);
	if (added) {
		pb_uint(&function, FUNCTION_ID, id);
		pb_int(&function, FUNCTION_NAME, string_id(e, name));
		pb_int(&function, FUNCTION_SYSTEM_NAME, string_id(e, name));
		pb_int(&function, FUNCTION_FILENAME,
		       string_id(e, file ? file : ""));
		pb_message(&e->out, PROFILE_FUNCTION, &function);
		pb_free(&function);
	}
	return id;
}

/* One line of the location being written: a function at its line. */
static void location_line(struct encoder *e, const char *function,
			  const char *file, uint64_t line)
{
	pb_uint(&e->line, LINE_FUNCTION_ID, function_id(e, function, file));
	pb_int(&e->line, LINE_LINE, (int64_t)line);
	pb_message(&e->sub, LOCATION_LINE, &e->line);
}

static void end_location(struct encoder *e, uint64_t id, uint64_t mapping,
			 uint64_t address)
{
	pb_uint(&e->sub, LOCATION_ID, id);
	pb_uint(&e->sub, LOCATION_MAPPING_ID, mapping);
	pb_uint(&e->sub, LOCATION_ADDRESS, address);
	pb_message(&e->out, PROFILE_LOCATION, &e->sub);
}

struct location_writer {
	struct encoder *e;
	const struct side *side;
	bool *written; /* by frame index */
};

/* The location that starts at `frame`, unless written already. */
static void write_location(void *ctx, size_t frame)
{
	struct location_writer *w = ctx;
	const struct stack_table *t = w->side->t;
	const struct report_frame *f = &t->frames[frame];
	bool native = f->kind == FRAME_NATIVE;
	size_t lines = location_lines(t, frame);

	if (w->written[frame])
		return;
	w->written[frame] = true;
	for (size_t i = frame; i < frame + lines; i++) {
		const struct report_frame *g = &t->frames[i];
		char *name = frame_display_name(g, t->modules);

		location_line(w->e, g->function ? g->function : name, g->file,
			      g->line);
		free(name);
	}
	end_location(w->e, w->side->first_location + frame + 1,
		     native ? w->side->first_mapping + f->module + 1 : 0,
		     native ? f->address + t->modules[f->module].load_bias
			    : f->kind == FRAME_ADDRESS ? f->address : 0);
}

/* Whether a sample refers to the placeholder of a stack without frames,
 * damaged or not. */
static bool placeholder_used(const struct stack_table *t, bool damaged)
{
	for (size_t i = 0; i < t->stack_count; i++)
		if (stack_placeholder(&t->stacks[i]) &&
		    t->stacks[i].damaged == damaged)
			return true;
	return false;
}

/* The locations the samples refer to, and no other: newer pprof (Go
 * 1.24's) lists every location of a file, referred to or not. */
static void locations(struct encoder *e, const struct side *side)
{
	const struct stack_table *t = side->t;
	struct location_writer w = {
		.e = e, .side = side,
		.written = xcalloc(t->frame_count + 1, sizeof(bool)),
	};

	for (size_t i = 0; i < t->stack_count; i++)
		each_location(t, &t->stacks[i], write_location, &w);
	free(w.written);
	for (int damaged = 0; damaged < 2; damaged++) {
		struct report_stack none = { .damaged = damaged };

		if (!placeholder_used(t, damaged))
			continue;
		location_line(e, stack_placeholder(&none), NULL, 0);
		end_location(e, placeholder_location(side, &none), 0, 0);
	}
}

static void header(struct encoder *e)
{
	const struct report *r = e->r;
	static const int default_type[MEASURES] = { 3, 3, 1, 0, 3 };
	uint64_t start = r->profiles[0].start_time_us;
	double duration = 0;

	for (size_t i = 0; i < r->profile_count; i++) {
		if (r->profiles[i].start_time_us < start)
			start = r->profiles[i].start_time_us;
		if (r->profiles[i].duration_s > duration)
			duration = r->profiles[i].duration_s;
	}
	for (int i = 0; i < 4; i++)
		value_type(e, PROFILE_SAMPLE_TYPE, sample_types[i][0],
			   sample_types[i][1]);
	value_type(e, PROFILE_PERIOD_TYPE, "space", "bytes");
	pb_int(&e->out, PROFILE_PERIOD, (int64_t)r->profiles[0].sampling_rate);
	pb_int(&e->out, PROFILE_TIME_NANOS, (int64_t)(start * 1000));
	pb_int(&e->out, PROFILE_DURATION_NANOS, (int64_t)(duration * 1e9));
	pb_int(&e->out, PROFILE_DEFAULT_SAMPLE_TYPE,
	       string_id(e, sample_types[default_type[report_measure(r)]][0]));
}

/* gzip of the encoded profile; returns 0 or -1. */
static int write_gzip(FILE *out, const struct pb *pb)
{
	z_stream z = { 0 };
	unsigned char buffer[65536];
	int rc;

	/* 15 bits of window, +16 for a gzip header and trailer. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		out_of_memory();
	z.next_in = pb->data;
	z.avail_in = (uInt)pb->length;
	do {
		z.next_out = buffer;
		z.avail_out = sizeof(buffer);
		rc = deflate(&z, Z_FINISH);
		if (fwrite(buffer, 1, sizeof(buffer) - z.avail_out, out) !=
		    sizeof(buffer) - z.avail_out)
			rc = Z_ERRNO;
	} while (rc == Z_OK);
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -1;
}

/* The file of `sides`; returns 0 or -1. */
static int encode(FILE *out, const struct report *r, const struct side *sides,
		  size_t side_count)
{
	struct encoder e = { .r = r };
	int rc;

	text_index_init(&e.strings);
	text_index_init(&e.functions);
	string_id(&e, ""); /* string 0 is the empty string */
	header(&e);
	for (size_t i = 0; i < side_count; i++) {
		mappings(&e, &sides[i]);
		locations(&e, &sides[i]);
		samples(&e, &sides[i]);
	}
	/* The strings last: every other message has named its own. */
	for (size_t i = 0; i < e.strings.count; i++)
		pb_string(&e.out, PROFILE_STRING_TABLE, e.strings.texts[i]);
	rc = write_gzip(out, &e.out);
	text_index_free(&e.strings);
	text_index_free(&e.functions);
	pb_free(&e.out);
	pb_free(&e.sub);
	pb_free(&e.line);
	return rc;
}

int view_pprof(FILE *out, const struct report *r)
{
	struct side side = { .t = r->stacks };

	return encode(out, r, &side, 1);
}

int view_compare_pprof(FILE *out, const struct report *r)
{
	const struct stack_table *t = r->stacks;
	struct side sides[2] = {
		{ .t = t },
		{ .t = r->base->stacks,
		  .first_location = location_count(t),
		  .first_mapping = t->module_count,
		  .negated = true },
	};

	return encode(out, r, sides, 2);
}
