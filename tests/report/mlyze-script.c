/* mlyze-script.c - compile the profile script language of mlyze-script.h. */
#include "config.h"

#include "mlyze-script.h"
#include "mlyze-codec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bytes_append(struct bytes *b, const void *data, size_t length)
{
	if (length == 0)
		return; /* data may be NULL: an empty buffer */
	if (b->length + length > b->capacity) {
		size_t capacity = b->capacity ? b->capacity : 4096;

		while (capacity < b->length + length)
			capacity *= 2;
		b->data = realloc(b->data, capacity);
		if (!b->data) {
			perror("mlyze-script");
			abort();
		}
		b->capacity = capacity;
	}
	memcpy(b->data + b->length, data, length);
	b->length += length;
}

void bytes_varint(struct bytes *b, uint64_t value)
{
	uint8_t encoded[MLYZE_VARINT_MAX];

	bytes_append(b, encoded, mlyze_put_varint(encoded, value));
}

void bytes_le(struct bytes *b, uint64_t value, size_t width)
{
	uint8_t encoded[8];

	mlyze_put_le(encoded, value, width);
	bytes_append(b, encoded, width);
}

void bytes_free(struct bytes *b)
{
	free(b->data);
	b->data = NULL;
	b->length = b->capacity = 0;
}

struct compiler {
	struct bytes *out;
	char *error;
	size_t error_size;
	unsigned line;
	size_t header_at;  /* SIZE_MAX: no header yet */
	bool length_given; /* metadata-length= in the header */
	size_t metadata_bytes;
	char *save; /* strtok_r state of the current line */
};

static int fail(struct compiler *c, const char *format, ...)
{
	va_list ap;
	int n = snprintf(c->error, c->error_size, "line %u: ", c->line);

	va_start(ap, format);
	if (n >= 0 && (size_t)n < c->error_size)
		vsnprintf(c->error + n, c->error_size - (size_t)n, format, ap);
	va_end(ap);
	return -1;
}

static int parse_number(struct compiler *c, const char *text, uint64_t *value)
{
	char *end;

	if (!text)
		return fail(c, "missing number");
	errno = 0;
	*value = strtoull(text, &end, 0);
	if (errno || end == text || *end)
		return fail(c, "bad number \"%s\"", text);
	return 0;
}

/* The next whitespace-separated word of the line, as a number. */
static int number(struct compiler *c, uint64_t *value)
{
	return parse_number(c, strtok_r(NULL, " \t", &c->save), value);
}

/* Varint fields, one per word. */
static int varints(struct compiler *c, struct bytes *b, int count)
{
	uint64_t v;

	for (int i = 0; i < count; i++) {
		if (number(c, &v) < 0)
			return -1;
		bytes_varint(b, v);
	}
	return 0;
}

static int hex_bytes(struct compiler *c, const char *hex, struct bytes *b)
{
	size_t n = strlen(hex);

	if (n % 2)
		return fail(c, "odd number of hex digits in \"%s\"", hex);
	for (size_t i = 0; i < n; i += 2) {
		unsigned value;

		if (sscanf(hex + i, "%2x", &value) != 1)
			return fail(c, "bad hex \"%s\"", hex);
		uint8_t byte = (uint8_t)value;

		bytes_append(b, &byte, 1);
	}
	return 0;
}

static int header(struct compiler *c)
{
	uint8_t h[MLYZE_HEADER_SIZE] = { 0 };
	uint64_t version = MLYZE_VERSION, start = 1000000, length = 0;
	const char *magic = MLYZE_MAGIC;
	char *word;

	while ((word = strtok_r(NULL, " \t", &c->save))) {
		char *value = strchr(word, '=');

		if (!value)
			return fail(c, "expected key=value, not \"%s\"", word);
		*value++ = '\0';
		if (strcmp(word, "magic") == 0)
			magic = value;
		else if (strcmp(word, "version") == 0 &&
			 parse_number(c, value, &version) == 0)
			continue;
		else if (strcmp(word, "start") == 0 &&
			 parse_number(c, value, &start) == 0)
			continue;
		else if (strcmp(word, "metadata-length") == 0 &&
			 parse_number(c, value, &length) == 0)
			c->length_given = true;
		else
			return fail(c, "bad header field \"%s\"", word);
	}
	memcpy(h + MLYZE_OFF_MAGIC, magic, strnlen(magic, 4));
	mlyze_put_le(h + MLYZE_OFF_VERSION, version, 4);
	mlyze_put_le(h + MLYZE_OFF_START_US, start, 8);
	mlyze_put_le(h + MLYZE_OFF_METADATA_LEN, length, 4);
	c->header_at = c->out->length;
	bytes_append(c->out, h, sizeof(h));
	return 0;
}

static void metadata(struct compiler *c, const char *rest)
{
	if (c->metadata_bytes) {
		bytes_append(c->out, "\n", 1);
		c->metadata_bytes++;
	}
	bytes_append(c->out, rest, strlen(rest));
	c->metadata_bytes += strlen(rest);
}

static int frame(struct compiler *c, const char *text, struct bytes *payload)
{
	char copy[128], *save, *part;
	uint64_t v;

	snprintf(copy, sizeof(copy), "%s", text);
	part = strtok_r(copy, ":", &save);
	if (part && strcmp(part, "native") == 0) {
		bytes_varint(payload, MLYZE_FRAME_NATIVE);
		if (parse_number(c, strtok_r(NULL, ":", &save), &v) < 0)
			return -1;
		bytes_varint(payload, v);
		return 0;
	}
	if (!part || strcmp(part, "python") != 0)
		return fail(c, "bad frame \"%s\"", text);
	bytes_varint(payload, MLYZE_FRAME_PYTHON);
	for (int i = 0; i < 3; i++) {
		if (parse_number(c, strtok_r(NULL, ":", &save), &v) < 0)
			return -1;
		bytes_varint(payload, v);
	}
	return 0;
}

static int stack_payload(struct compiler *c, struct bytes *payload)
{
	struct bytes frames = { 0 };
	uint64_t id, depth = 0;
	char *word;
	int rc = number(c, &id);

	while (rc == 0 && (word = strtok_r(NULL, " \t", &c->save))) {
		rc = frame(c, word, &frames);
		depth++;
	}
	bytes_varint(payload, id);
	bytes_varint(payload, depth);
	bytes_append(payload, frames.data, frames.length);
	bytes_free(&frames);
	return rc;
}

static int module_payload(struct compiler *c, struct bytes *payload)
{
	struct bytes build_id = { 0 };
	const char *hex, *path;
	int rc = varints(c, payload, 4);

	hex = strtok_r(NULL, " \t", &c->save);
	path = strtok_r(NULL, "", &c->save);
	if (rc == 0 && (!hex || !path))
		rc = fail(c, "module needs a build-id (or -) and a path");
	if (rc == 0 && strcmp(hex, "-") != 0)
		rc = hex_bytes(c, hex, &build_id);
	if (rc == 0) {
		bytes_varint(payload, build_id.length);
		bytes_append(payload, build_id.data, build_id.length);
		bytes_varint(payload, strlen(path));
		bytes_append(payload, path, strlen(path));
	}
	bytes_free(&build_id);
	return rc;
}

static int string_payload(struct compiler *c, struct bytes *payload)
{
	int rc = varints(c, payload, 2);
	const char *text = strtok_r(NULL, "", &c->save);

	if (!text)
		text = "";
	bytes_varint(payload, strlen(text));
	bytes_append(payload, text, strlen(text));
	return rc;
}

/* A sized event; `raw` takes its payload as hex instead of fields. */
static int sized_event(struct compiler *c, uint64_t type, bool raw)
{
	struct bytes payload = { 0 };
	uint64_t delta;
	int rc = number(c, &delta);

	if (rc == 0) {
		switch (raw ? UINT64_MAX : type) {
		case MLYZE_EVENT_STACK:
			rc = stack_payload(c, &payload);
			break;
		case MLYZE_EVENT_MODULE:
			rc = module_payload(c, &payload);
			break;
		case MLYZE_EVENT_STRING:
			rc = string_payload(c, &payload);
			break;
		case MLYZE_EVENT_RATE:
			rc = varints(c, &payload, 1);
			break;
		case MLYZE_EVENT_MEMORY:
			rc = varints(c, &payload, 2);
			break;
		default: {
			const char *hex = strtok_r(NULL, " \t", &c->save);

			rc = hex_bytes(c, hex ? hex : "", &payload);
		}
		}
	}
	if (rc == 0) {
		uint8_t t = (uint8_t)type;

		bytes_append(c->out, &t, 1);
		bytes_varint(c->out, delta);
		bytes_varint(c->out, payload.length);
		bytes_append(c->out, payload.data, payload.length);
	}
	bytes_free(&payload);
	return rc;
}

/* ALLOC, FREE, GC and MARKER: type, delta, then the fixed layout. */
static int fixed_event(struct compiler *c, enum mlyze_event_kind type)
{
	uint8_t t = (uint8_t)type;
	uint64_t address;

	bytes_append(c->out, &t, 1);
	if (varints(c, c->out, 1) < 0)
		return -1;
	switch (type) {
	case MLYZE_EVENT_ALLOC: {
		uint64_t thread;

		if (number(c, &address) < 0)
			return -1;
		bytes_le(c->out, address, 8);
		if (varints(c, c->out, 2) < 0 || number(c, &thread) < 0)
			return -1;
		bytes_le(c->out, thread, 2);
		return 0;
	}
	case MLYZE_EVENT_FREE:
		if (number(c, &address) < 0)
			return -1;
		bytes_le(c->out, address, 8);
		return 0;
	case MLYZE_EVENT_GC:
		return varints(c, c->out, 2);
	default:
		return varints(c, c->out, 1);
	}
}

static int zeros(struct compiler *c)
{
	static const uint8_t zero[1024];
	uint64_t count;

	if (number(c, &count) < 0)
		return -1;
	for (; count > sizeof(zero); count -= sizeof(zero))
		bytes_append(c->out, zero, sizeof(zero));
	bytes_append(c->out, zero, (size_t)count);
	return 0;
}

static int directive(struct compiler *c, char *line)
{
	static const struct {
		const char *name;
		int type;
	} events[] = {
#define MLYZE_EVENT_TYPE(NAME, name, NUMBER, LAYOUT, DESCRIPTION) \
	{ #name, MLYZE_EVENT_##NAME },
#include <spprof/mlyze-events.def>
#undef MLYZE_EVENT_TYPE
	};
	char *word = strtok_r(line, " \t", &c->save);
	uint64_t type;

	if (!word || word[0] == '#')
		return 0;
	if (strcmp(word, "header") == 0)
		return header(c);
	if (strcmp(word, "metadata") == 0) {
		char *rest = strtok_r(NULL, "", &c->save);

		metadata(c, rest ? rest : "");
		return 0;
	}
	if (strcmp(word, "bytes") == 0) {
		while ((word = strtok_r(NULL, " \t", &c->save)))
			if (hex_bytes(c, word, c->out) < 0)
				return -1;
		return 0;
	}
	if (strcmp(word, "zeros") == 0)
		return zeros(c);
	if (strcmp(word, "event") == 0)
		return number(c, &type) < 0 ? -1 : sized_event(c, type, true);
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		if (strcmp(word, events[i].name) != 0)
			continue;
		if (events[i].type >= MLYZE_FIRST_SIZED_EVENT)
			return sized_event(c, (uint64_t)events[i].type, false);
		return fixed_event(c, (enum mlyze_event_kind)events[i].type);
	}
	return fail(c, "unknown directive \"%s\"", word);
}

int script_compile(const char *text, struct bytes *out, char *error,
		   size_t error_size)
{
	struct compiler c = { .out = out, .error = error,
			      .error_size = error_size, .header_at = SIZE_MAX };
	char *copy = strdup(text), *line, *next;
	int rc = 0;

	if (!copy)
		return -1;
	for (line = copy; line && rc == 0; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		c.line++;
		rc = directive(&c, line);
	}
	free(copy);
	if (rc == 0 && c.header_at != SIZE_MAX && !c.length_given)
		mlyze_put_le(out->data + c.header_at + MLYZE_OFF_METADATA_LEN,
			     c.metadata_bytes, 4);
	return rc;
}
