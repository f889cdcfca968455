/* mlyze-metadata.c - the JSON metadata of a .mlyze profile.
 *
 * Contract: parses the `length` bytes after the header with jansson (the
 * only part of a profile loaded whole), checks the type of every key the
 * format defines, ignores the others, and fills the reader's info and
 * tables.  Problems are reported at the offset jansson gives for syntax,
 * and at the start of the metadata for the meaning of a well-formed value.
 */
#include "config.h"

#include "mlyze-internal.h"
#include "mlyze-codec.h"
#include "mlyze-stats.h"

#include <ctype.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Feeds jansson from the reader's buffer, `left` bytes at most. */
struct source {
	struct mlyze_reader *r;
	uint64_t left;
	bool file_too_short;
};

static size_t pull(void *out, size_t size, void *data)
{
	struct source *src = data;
	struct mlyze_reader *r = src->r;
	size_t n;

	if (src->left == 0)
		return 0;
	if (r->in.next == r->in.end) {
		int rc = input_refill(&r->in);

		if (rc < 0)
			return (size_t)-1;
		if (rc == 0) {
			src->file_too_short = true;
			return 0;
		}
	}
	n = (size_t)(r->in.end - r->in.next);
	if (n > size)
		n = size;
	if (n > src->left)
		n = (size_t)src->left;
	memcpy(out, r->in.next, n);
	r->in.next += n;
	src->left -= n;
	return n;
}

/* Problems in a well-formed JSON value are reported at the metadata start. */
#define META_OFFSET MLYZE_HEADER_SIZE

/* Where a frame is: named in messages only, which are rare, while a
 * profile may hold millions of frames. */
struct frame_place {
	uint64_t stack_id;
	size_t index;
};

#define FRAME_NAME_MAX 64

/* "stack 7 frame 2 " */
static const char *frame_name(const struct frame_place *place,
			      char name[FRAME_NAME_MAX])
{
	snprintf(name, FRAME_NAME_MAX, "stack %" PRIu64 " frame %zu ",
		 place->stack_id, place->index);
	return name;
}

/* A value of the metadata, named for messages: "\"pid\"",
 * "module 3 \"start\"", "stack 7 frame 2 \"line\"". */
struct field {
	struct mlyze_reader *r;
	const char *owner;		 /* "" or "module 3 " ... */
	const struct frame_place *frame; /* or the frame that owns it */
	const char *key;
	json_t *value; /* NULL when absent */
};

static struct field field_of(struct mlyze_reader *r, const char *owner,
			     json_t *object, const char *key)
{
	struct field f = { r, owner, NULL, key, json_object_get(object, key) };

	return f;
}

static struct field frame_field_of(struct mlyze_reader *r,
				   const struct frame_place *frame,
				   json_t *object, const char *key)
{
	struct field f = { r, "", frame, key, json_object_get(object, key) };

	return f;
}

static int wrong_type(const struct field *f, const char *expected)
{
	char name[FRAME_NAME_MAX];

	return input_fail(&f->r->in, META_OFFSET, "metadata: %s\"%s\" is %s",
			   f->frame ? frame_name(f->frame, name) : f->owner,
			   f->key, expected);
}

/* Non-negative integer; absent leaves *out unchanged unless required. */
static int get_uint(const struct field *f, bool required, uint64_t *out)
{
	if (!f->value && !required)
		return 0;
	if (!json_is_integer(f->value) || json_integer_value(f->value) < 0)
		return wrong_type(f, f->value ? "not a non-negative integer"
					      : "missing");
	*out = (uint64_t)json_integer_value(f->value);
	return 0;
}

static int get_string(const struct field *f, bool required, const char **out)
{
	if (!f->value && !required)
		return 0;
	if (!json_is_string(f->value))
		return wrong_type(f, f->value ? "not a string" : "missing");
	*out = arena_strndup(&f->r->tables.arena, json_string_value(f->value),
			     json_string_length(f->value));
	return *out ? 0 : input_fail_system(&f->r->in, NULL);
}

/* A table: absent means empty; present must be an object. */
static int get_table(struct mlyze_reader *r, json_t *root, const char *key,
		     json_t **table)
{
	struct field f = field_of(r, "", root, key);

	*table = f.value;
	if (f.value && !json_is_object(f.value))
		return wrong_type(&f, "not an object");
	return 0;
}

/* Ids are canonical decimal numbers: "0", "17", never "017" or "-1". */
static int parse_id(struct mlyze_reader *r, const char *kind, const char *key,
		    uint64_t *id)
{
	uint64_t v = 0;
	const char *p = key;

	if (*p == '0' && p[1] == '\0') {
		*id = 0;
		return 0;
	}
	for (; *p >= '0' && *p <= '9' && *key != '0'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			break;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == key || *p != '\0')
		return input_fail(&r->in, META_OFFSET,
				   "metadata: %s id \"%s\" is not a non-negative integer",
				   kind, key);
	*id = v;
	return 0;
}

/* Reads one entry of a table of the metadata. */
typedef int read_entry(struct mlyze_reader *r, uint64_t id, json_t *value,
		       const void *ctx);

/* A table of the metadata: "id": entry, ... */
static int read_table(struct mlyze_reader *r, json_t *root, const char *key,
		      const char *kind, read_entry *read, const void *ctx)
{
	json_t *table, *value;
	const char *id_text;
	uint64_t id = 0;

	if (get_table(r, root, key, &table) < 0)
		return -1;
	json_object_foreach(table, id_text, value) {
		if (parse_id(r, kind, id_text, &id) < 0 ||
		    read(r, id, value, ctx) < 0)
			return -1;
	}
	return 0;
}

/* ctx: the enum mlyze_table to fill. */
static int read_string(struct mlyze_reader *r, uint64_t id, json_t *value,
		       const void *ctx)
{
	enum mlyze_table which = *(const enum mlyze_table *)ctx;

	if (!json_is_string(value))
		return input_fail(&r->in, META_OFFSET,
				   "metadata: %s %" PRIu64 " is not a string",
				   table_name(which), id);
	return define_string(r, META_OFFSET, which, id,
			     json_string_value(value),
			     json_string_length(value))
		       ? 0
		       : -1;
}

/* The field's text when it is a hex string of whole bytes, else NULL. */
static const char *hex_text(const struct field *f, size_t *length)
{
	const char *text = json_string_value(f->value);

	*length = json_string_length(f->value);
	if (!text || *length % 2 ||
	    strspn(text, "0123456789abcdefABCDEF") != *length)
		return NULL;
	return text;
}

static unsigned hex_digit(char c)
{
	return c <= '9' ? (unsigned)(c - '0') : (unsigned)(tolower(c) - 'a' + 10);
}

/* Build-ids are stored as lower-case hex, whatever the writer used. */
static int get_build_id(const struct field *f, char **hex)
{
	const char *text;
	size_t length;

	*hex = NULL;
	if (!f->value)
		return 0;
	if (!(text = hex_text(f, &length)))
		return wrong_type(f, "not a hex string");
	*hex = strdup(text);
	if (!*hex)
		return input_fail_system(&f->r->in, NULL);
	for (char *c = *hex; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return 0;
}

/* "path_bytes": the bytes of a path that is not UTF-8, in hex, beside
 * its repair in "path" (mlyze(5)); *path stays NULL when absent. */
static int get_path_bytes(const struct field *f, char **path, size_t *length)
{
	const char *text;
	size_t digits;

	*path = NULL;
	if (!f->value)
		return 0;
	if (!(text = hex_text(f, &digits)))
		return wrong_type(f, "not a hex string");
	*path = malloc(digits / 2 + 1);
	if (!*path)
		return input_fail_system(&f->r->in, NULL);
	for (size_t i = 0; i < digits / 2; i++)
		(*path)[i] = (char)(hex_digit(text[2 * i]) << 4 |
				    hex_digit(text[2 * i + 1]));
	(*path)[digits / 2] = '\0';
	*length = digits / 2;
	return 0;
}

static int read_module(struct mlyze_reader *r, uint64_t id, json_t *value,
		       const void *ctx)
{
	char owner[48];
	struct mlyze_module m = { .id = id };
	char *build_id, *path_bytes;
	size_t path_length;
	int rc;

	(void)ctx;
	snprintf(owner, sizeof(owner), "module %" PRIu64 " ", id);
	if (!json_is_object(value))
		return input_fail(&r->in, META_OFFSET,
				   "metadata: module %" PRIu64 " is not an object", id);
	struct field path = field_of(r, owner, value, "path");
	struct field start = field_of(r, owner, value, "start");
	struct field end = field_of(r, owner, value, "end");
	struct field bias = field_of(r, owner, value, "load_bias");
	struct field build = field_of(r, owner, value, "build_id");
	struct field bytes = field_of(r, owner, value, "path_bytes");

	if (!json_is_string(path.value))
		return wrong_type(&path, path.value ? "not a string" : "missing");
	path_length = json_string_length(path.value);
	if (get_uint(&start, true, &m.start) < 0 ||
	    get_uint(&end, true, &m.end) < 0 ||
	    get_uint(&bias, true, &m.load_bias) < 0 ||
	    get_path_bytes(&bytes, &path_bytes, &path_length) < 0)
		return -1;
	if (get_build_id(&build, &build_id) < 0) {
		free(path_bytes);
		return -1;
	}
	m.path = path_bytes ? path_bytes : json_string_value(path.value);
	m.build_id = build_id;
	rc = define_module(r, META_OFFSET, &m, path_length) ? 0 : -1;
	free(build_id);
	free(path_bytes);
	return rc;
}

/* A frame at an offset into a module, whose "module_id" is `module`. */
static int read_module_frame(struct mlyze_reader *r,
			     const struct frame_place *place, json_t *value,
			     struct field *module, struct mlyze_frame *frame)
{
	struct field offset = frame_field_of(r, place, value, "offset");
	uint64_t id = 0;

	if (get_uint(module, true, &id) < 0 ||
	    get_uint(&offset, true, &frame->offset) < 0)
		return -1;
	frame->form = MLYZE_FORM_MODULE;
	frame->module = table_find(&r->tables.modules, id);
	if (!frame->module)
		return input_fail(&r->in, META_OFFSET,
				   "stack %" PRIu64
				   " references undefined module %" PRIu64,
				   place->stack_id, id);
	return 0;
}

/* A Python frame, whose "file_id" is `file`. */
static int read_script_frame(struct mlyze_reader *r,
			     const struct frame_place *place, json_t *value,
			     struct field *file, struct mlyze_frame *frame)
{
	struct field function = frame_field_of(r, place, value, "func_id");
	struct field line_field = frame_field_of(r, place, value, "line");
	uint64_t file_id = 0, function_id = 0, line = 0;

	if (get_uint(file, true, &file_id) < 0 ||
	    get_uint(&function, true, &function_id) < 0 ||
	    get_uint(&line_field, true, &line) < 0)
		return -1;
	return python_frame(r, META_OFFSET, place->stack_id, file_id,
			    function_id, line, frame);
}

/* The keys of a frame are looked up in the order of its forms, only as
 * far as its form: most frames are in a module. */
static int read_frame(struct mlyze_reader *r, uint64_t stack_id, size_t index,
		      json_t *value, struct mlyze_frame *frame)
{
	const struct frame_place place = { stack_id, index };
	char name[FRAME_NAME_MAX];
	struct field f;

	memset(frame, 0, sizeof(*frame));
	if (!json_is_object(value))
		return input_fail(&r->in, META_OFFSET, "metadata: %sis not an object",
				   frame_name(&place, name));
	f = frame_field_of(r, &place, value, "module_id");
	if (f.value)
		return read_module_frame(r, &place, value, &f, frame);
	f = frame_field_of(r, &place, value, "address");
	if (f.value) {
		frame->form = MLYZE_FORM_ADDRESS;
		return get_uint(&f, true, &frame->offset);
	}
	f = frame_field_of(r, &place, value, "file_id");
	if (f.value)
		return read_script_frame(r, &place, value, &f, frame);
	return input_fail(&r->in, META_OFFSET,
			   "metadata: %shas no module_id, address or file_id",
			   frame_name(&place, name));
}

static int read_frames(struct mlyze_reader *r, uint64_t id, json_t *frames,
		       struct mlyze_frame *resolved)
{
	size_t i;
	json_t *value;

	if (!json_is_array(frames))
		return input_fail(&r->in, META_OFFSET,
				   "metadata: stack %" PRIu64 " is not an array", id);
	json_array_foreach(frames, i, value)
		if (read_frame(r, id, i, value, &resolved[i]) < 0)
			return -1;
	return 0;
}

/* Frames that cannot be read damage this stack only. */
static int read_stack(struct mlyze_reader *r, uint64_t id, json_t *frames,
		      const void *ctx)
{
	size_t depth = json_array_size(frames);
	struct mlyze_frame *resolved;
	const struct mlyze_stack *stack;

	(void)ctx;
	if (!stack_depth_allowed(r, META_OFFSET, id, depth))
		return define_damaged_stack(r, META_OFFSET, id) ? 0 : -1;
	resolved = calloc(depth ? depth : 1, sizeof(*resolved));
	if (!resolved)
		return input_fail_system(&r->in, NULL);
	if (read_frames(r, id, frames, resolved) == 0)
		stack = define_stack(r, META_OFFSET, id, resolved, depth);
	else
		stack = define_damaged_stack(r, META_OFFSET, id);
	free(resolved);
	return stack ? 0 : -1;
}

static int read_command_line(struct mlyze_reader *r, json_t *root)
{
	struct field f = field_of(r, "", root, "command_line");
	size_t n = json_array_size(f.value);

	if (!f.value)
		return 0;
	if (!json_is_array(f.value))
		return wrong_type(&f, "not an array of strings");
	r->command_line = calloc(n + 1, sizeof(*r->command_line));
	if (!r->command_line)
		return input_fail_system(&r->in, NULL);
	for (size_t i = 0; i < n; i++) {
		json_t *arg = json_array_get(f.value, i);

		if (!json_is_string(arg))
			return wrong_type(&f, "not an array of strings");
		r->command_line[i] = arena_strndup(&r->tables.arena,
						   json_string_value(arg),
						   json_string_length(arg));
		if (!r->command_line[i])
			return input_fail_system(&r->in, NULL);
	}
	r->info.command_line = (const char *const *)r->command_line;
	r->info.command_line_length = n;
	return 0;
}

/* Every integer member of "stats", whatever its name, so that a
 * statistic the runtime adds is read without a word here. */
static int keep_stat_list(struct mlyze_reader *r, json_t *stats)
{
	struct mlyze_stat *list = arena_alloc(
		&r->tables.arena, (json_object_size(stats) + 1) * sizeof(*list));
	size_t count = 0;
	const char *key;
	json_t *value;

	if (!list)
		return input_fail_system(&r->in, NULL);
	json_object_foreach(stats, key, value) {
		if (!json_is_integer(value) || json_integer_value(value) < 0)
			continue;
		list[count].key = arena_strndup(&r->tables.arena, key,
						strlen(key));
		if (!list[count].key)
			return input_fail_system(&r->in, NULL);
		list[count++].value = (uint64_t)json_integer_value(value);
	}
	r->info.stat_list = list;
	r->info.stat_count = count;
	return 0;
}

/* The KEYs of memprof-stats.def, by FIELD. */
static const struct mlyze_stat_keys stat_keys = {
#define MEMPROF_STAT(type, field, key, source, kind, unit, description) key,
#include <spprof/memprof-stats.def>
#undef MEMPROF_STAT
};

static int read_stats(struct mlyze_reader *r, json_t *root)
{
	static const struct {
		const char *key;
		size_t offset; /* in struct mlyze_info */
	} members[] = {
#define IN_STATS(member, field) \
	{ stat_keys.field, offsetof(struct mlyze_info, stats.member) },
		MLYZE_STATS_MEMBERS(IN_STATS)
#undef IN_STATS
#define IN_INFO(member, field) \
	{ stat_keys.field, offsetof(struct mlyze_info, member) },
		MLYZE_INFO_STAT_MEMBERS(IN_INFO)
#undef IN_INFO
	};
	json_t *stats;

	if (get_table(r, root, "stats", &stats) < 0)
		return -1;
	if (!stats)
		return 0;
	r->info.has_stats = 1;
	r->info.has_stack_methods =
		json_object_get(stats, stat_keys.fp_stacks) &&
		json_object_get(stats, stat_keys.dwarf_stacks);
	for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++) {
		struct field f = field_of(r, "stats ", stats, members[i].key);

		if (get_uint(&f, false, (uint64_t *)((char *)&r->info +
						     members[i].offset)) < 0)
			return -1;
	}
	return keep_stat_list(r, stats);
}

static int read_scalars(struct mlyze_reader *r, json_t *root)
{
	struct mlyze_info *info = &r->info;
	struct field complete = field_of(r, "", root, "complete");
	struct field rate = field_of(r, "", root, "sampling_rate");
	uint64_t start_time_us = 0;

	if (complete.value && !json_is_boolean(complete.value))
		return wrong_type(&complete, "not true or false");
	if (complete.value)
		info->complete = json_is_true(complete.value);
	struct field strings[] = {
		field_of(r, "", root, "producer"),
		field_of(r, "", root, "hostname"),
		field_of(r, "", root, "executable"),
		field_of(r, "", root, "ended_by"),
		field_of(r, "", root, "exec_program"),
		field_of(r, "", root, "title"),
		field_of(r, "", root, "started_by"),
		field_of(r, "", root, "malloc_defined_by"),
	};
	const char **string_targets[] = { &info->producer, &info->hostname,
					  &info->executable, &info->ended_by,
					  &info->exec_program, &info->title,
					  &info->started_by,
					  &info->malloc_defined_by };
	struct field numbers[] = {
		field_of(r, "", root, "pid"),
		field_of(r, "", root, "ppid"),
		rate,
		field_of(r, "", root, "start_time_us"),
		field_of(r, "", root, "end_time_us"),
		field_of(r, "", root, "max_stack_depth"),
	};
	uint64_t *number_targets[] = {
		&info->pid,	      &info->ppid,	  &info->sampling_rate,
		&start_time_us, &info->end_time_us, &info->max_stack_depth,
	};

	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (get_string(&strings[i], false, string_targets[i]) < 0)
			return -1;
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		if (get_uint(&numbers[i], false, number_targets[i]) < 0)
			return -1;
	if (rate.value && info->sampling_rate == 0)
		return wrong_type(&rate, "0 (it must be positive)");
	return 0;
}

static int interpret(struct mlyze_reader *r, json_t *root)
{
	static const enum mlyze_table files = MLYZE_TABLE_FILES;
	static const enum mlyze_table functions = MLYZE_TABLE_FUNCTIONS;

	if (!json_is_object(root))
		return input_fail(&r->in, META_OFFSET,
				   "metadata is not a JSON object");
	if (read_scalars(r, root) < 0 || read_command_line(r, root) < 0 ||
	    read_stats(r, root) < 0 ||
	    read_table(r, root, "files", "file", read_string, &files) < 0 ||
	    read_table(r, root, "functions", "function", read_string,
		       &functions) < 0 ||
	    read_table(r, root, "modules", "module", read_module, NULL) < 0 ||
	    read_table(r, root, "stack_traces", "stack", read_stack, NULL) < 0)
		return -1;
	if (r->info.complete == 0)
		input_warn(&r->in, "%s: profile was not finalised (process ended "
			    "before writing its metadata); stacks defined so "
			    "far are used", r->in.name);
	if (!r->info.sampling_rate)
		input_warn(&r->in, "%s: no sampling rate in the metadata; each "
			    "sample counts as one allocation of its size",
			    r->in.name);
	return 0;
}

int metadata_read(struct mlyze_reader *r, uint32_t length)
{
	struct source src = { .r = r, .left = length };
	json_error_t error;
	json_t *root;
	int rc;

	root = json_load_callback(pull, &src, JSON_REJECT_DUPLICATES, &error);
	if (r->in.status != MLYZE_OK) {
		json_decref(root);
		return -1;
	}
	if (src.file_too_short)
		rc = input_fail(&r->in, MLYZE_OFF_METADATA_LEN,
				 "metadata length %" PRIu32
				 " runs past the end of the file", length);
	else if (!root)
		rc = input_fail(&r->in, MLYZE_HEADER_SIZE + (uint64_t)error.position,
				 "invalid JSON metadata: %s", error.text);
	else
		rc = interpret(r, root);
	json_decref(root);
	return rc;
}
