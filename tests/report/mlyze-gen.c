/* mlyze-gen - write .mlyze profiles for the tests and the benchmark.
 *
 *   mlyze-gen compile SCRIPT OUT     script (see mlyze-script.h) -> profile
 *   mlyze-gen mutate SEED IN OUT     IN with a few bytes changed or cut
 *   mlyze-gen large EVENTS OUT [STACKS]
 *                                    a finalised profile of EVENTS events
 *                                    from STACKS stacks (default 4096)
 *
 * Everything is deterministic: the same arguments give the same bytes.
 */
#include "config.h"

#include "mlyze-codec.h"
#include "mlyze-script.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "mlyze-gen: %s: %s\n", what, detail);
	exit(1);
}

static uint64_t parse_count(const char *text)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 0);
	if (errno || end == text || *end)
		die("not a number", text);
	return v;
}

static void read_file(const char *path, struct bytes *out)
{
	FILE *f = fopen(path, "rb");
	char chunk[65536];
	size_t n;

	if (!f)
		die(path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		bytes_append(out, chunk, n);
	if (ferror(f))
		die(path, strerror(errno));
	fclose(f);
}

static void write_file(const char *path, const struct bytes *data)
{
	FILE *f = fopen(path, "wb");

	/* An empty profile has no data to write (and data may be NULL). */
	if (!f ||
	    (data->length &&
	     fwrite(data->data, 1, data->length, f) != data->length) ||
	    fclose(f) != 0)
		die(path, strerror(errno));
}

static int compile(const char *script_path, const char *out_path)
{
	struct bytes script = { 0 }, profile = { 0 };
	char error[256];

	read_file(script_path, &script);
	bytes_append(&script, "", 1);
	if (script_compile((const char *)script.data, &profile, error,
			   sizeof(error)) < 0)
		die(script_path, error);
	write_file(out_path, &profile);
	bytes_free(&script);
	bytes_free(&profile);
	return 0;
}

/* xorshift64*: small, fast and the same everywhere. */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * UINT64_C(0x2545f4914f6cdd1d);
}

static uint64_t below(uint64_t *state, uint64_t n)
{
	return n ? next_random(state) % n : 0;
}

/* Where the event stream starts, or 0 when the header says nothing. */
static size_t events_start(const struct bytes *data)
{
	size_t start;

	if (data->length < MLYZE_HEADER_SIZE)
		return 0;
	start = MLYZE_HEADER_SIZE +
		(size_t)mlyze_get_le(data->data + MLYZE_OFF_METADATA_LEN, 4);
	return start < data->length ? start : 0;
}

/* Overwrite, insert or drop a few bytes, or cut the file short; half of
 * the changes fall in the event stream, which is most of a real profile
 * but little of a small test one. */
static int mutate(const char *seed_text, const char *in_path,
		  const char *out_path)
{
	struct bytes data = { 0 };
	uint64_t state = parse_count(seed_text) * 2 + 1;
	uint64_t changes = 1 + below(&state, 4);

	read_file(in_path, &data);
	for (uint64_t i = 0; i < changes && data.length; i++) {
		size_t from = below(&state, 2) ? events_start(&data) : 0;
		size_t at = from + (size_t)below(&state, data.length - from);

		switch (below(&state, 8)) {
		case 0:
			data.length = at;
			break;
		case 1:
			memmove(data.data + at, data.data + at + 1,
				data.length - at - 1);
			data.length--;
			break;
		case 2:
			data.data[at] = 0x80 | (uint8_t)next_random(&state);
			break;
		default:
			data.data[at] = (uint8_t)next_random(&state);
			break;
		}
	}
	write_file(out_path, &data);
	bytes_free(&data);
	return 0;
}

/* ---- large profile for the benchmark ---- */

#define LARGE_STACKS 4096 /* by default */
#define LARGE_FILES 64
#define LARGE_FUNCTIONS 512
#define LARGE_LIVE_TARGET 50000
#define LIVE_CAPACITY (4 * LARGE_LIVE_TARGET)
#define LARGE_RATE 524288

static void large_metadata(FILE *out, uint64_t *state, uint64_t stacks)
{
	fprintf(out, "{\"producer\": \"mlyze-gen\", \"complete\": true, "
		     "\"pid\": 4242, \"command_line\": [\"large\"], "
		     "\"sampling_rate\": %d, \"max_stack_depth\": 64,\n"
		     "\"modules\": {\"0\": {\"path\": \"/opt/spprof-test/bin/large\", "
		     "\"start\": 4194304, \"end\": 8388608, \"load_bias\": 0},\n"
		     "\"1\": {\"path\": \"/opt/spprof-test/lib/libbig.so\", "
		     "\"start\": 140000000000000, \"end\": 140000004194304, "
		     "\"load_bias\": 140000000000000, \"build_id\": \"00ff\"}},\n"
		     "\"files\": {", LARGE_RATE);
	for (int i = 0; i < LARGE_FILES; i++)
		fprintf(out, "%s\"%d\": \"/srv/app/module%d.py\"", i ? ", " : "",
			i, i);
	fprintf(out, "},\n\"functions\": {");
	for (int i = 0; i < LARGE_FUNCTIONS; i++)
		fprintf(out, "%s\"%d\": \"function_%d\"", i ? ", " : "", i, i);
	fprintf(out, "},\n\"stack_traces\": {");
	for (uint64_t s = 0; s < stacks; s++) {
		int depth = 4 + (int)below(state, 20);

		fprintf(out, "%s\n\"%llu\": [", s ? "," : "",
			(unsigned long long)s);
		for (int f = 0; f < depth; f++) {
			const char *sep = f ? ", " : "";

			if (below(state, 4) == 0)
				fprintf(out, "%s{\"file_id\": %d, \"func_id\": %d, \"line\": %d}",
					sep, (int)below(state, LARGE_FILES),
					(int)below(state, LARGE_FUNCTIONS),
					1 + (int)below(state, 900));
			else
				fprintf(out, "%s{\"module_id\": %d, \"offset\": %d}",
					sep, (int)below(state, 2),
					4096 + (int)below(state, 1 << 20));
		}
		fprintf(out, "]");
	}
	fprintf(out, "}}");
}

static void put_event(FILE *out, const uint8_t *event, size_t length)
{
	if (fwrite(event, 1, length, out) != length)
		die("write", strerror(errno));
}

/* Uniform in [0, 1). */
static double uniform(uint64_t *state)
{
	return (double)(next_random(state) >> 11) / 9007199254740992.0;
}

/* Sizes spread evenly on a log scale from 8 bytes to 1 MiB. */
static uint64_t random_size(uint64_t *state)
{
	double u = uniform(state);

	return (uint64_t)exp(log(8.0) + u * (log(1048576.0) - log(8.0)));
}

/* Real programs allocate mostly from a few sites: stack k is drawn with
 * density falling as k grows (the cube of a uniform variable), so half of
 * the ALLOCs come from the first eighth of the stacks. */
static uint64_t skewed_stack(uint64_t *state, uint64_t stacks)
{
	double u = uniform(state);

	return (uint64_t)(u * u * u * (double)stacks);
}

static void large_events(FILE *out, uint64_t events, uint64_t stacks,
			 uint64_t *state)
{
	uint64_t *live = malloc(LIVE_CAPACITY * sizeof(*live));
	size_t live_count = 0;
	uint64_t next_block = 0;
	uint8_t e[64];

	if (!live)
		die("large", "out of memory");
	for (uint64_t i = 0; i < events; i++) {
		/* Hover around the target: more ALLOCs below it, more FREEs
		 * above. */
		bool alloc = live_count == 0 ||
			     (live_count < LIVE_CAPACITY &&
			      below(state, 100) <
				      (live_count < LARGE_LIVE_TARGET ? 60 : 40));
		size_t n = 0;

		e[n++] = alloc ? MLYZE_EVENT_ALLOC : MLYZE_EVENT_FREE;
		n += mlyze_put_varint(e + n, below(state, 50));
		if (alloc) {
			/* A bijection on 40 bits: unique, scattered addresses. */
			uint64_t address = 0x7f0000000000 +
					   ((next_block++ * 0x9e3779b1) &
					    0xffffffffff) * 16;

			live[live_count++] = address;
			mlyze_put_le(e + n, address, 8);
			n += 8;
			n += mlyze_put_varint(e + n, random_size(state));
			n += mlyze_put_varint(e + n, skewed_stack(state, stacks));
			mlyze_put_le(e + n, 1 + below(state, 8), 2);
			n += 2;
		} else {
			size_t victim = (size_t)below(state, live_count);

			mlyze_put_le(e + n, live[victim], 8);
			n += 8;
			live[victim] = live[--live_count];
		}
		put_event(out, e, n);
	}
	free(live);
}

static int large(const char *events_text, const char *out_path,
		 const char *stacks_text)
{
	uint64_t events = parse_count(events_text);
	uint64_t stacks = stacks_text ? parse_count(stacks_text) : LARGE_STACKS;
	uint64_t state = UINT64_C(0x5eed);
	uint8_t header[MLYZE_HEADER_SIZE] = { 0 };
	FILE *out = fopen(out_path, "wb+");
	long metadata_end;

	if (!out)
		die(out_path, strerror(errno));
	put_event(out, header, sizeof(header));
	if (stacks == 0)
		die("large", "no stack to allocate from");
	large_metadata(out, &state, stacks);
	metadata_end = ftell(out);
	large_events(out, events, stacks, &state);
	memcpy(header + MLYZE_OFF_MAGIC, MLYZE_MAGIC, 4);
	mlyze_put_le(header + MLYZE_OFF_VERSION, MLYZE_VERSION, 4);
	mlyze_put_le(header + MLYZE_OFF_START_US, 1000000, 8);
	mlyze_put_le(header + MLYZE_OFF_METADATA_LEN,
		     (uint64_t)(metadata_end - MLYZE_HEADER_SIZE), 4);
	if (fseek(out, 0, SEEK_SET) != 0)
		die(out_path, strerror(errno));
	put_event(out, header, sizeof(header));
	if (fclose(out) != 0)
		die(out_path, strerror(errno));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "compile") == 0)
		return compile(argv[2], argv[3]);
	if (argc == 5 && strcmp(argv[1], "mutate") == 0)
		return mutate(argv[2], argv[3], argv[4]);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "large") == 0)
		return large(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	fprintf(stderr, "usage: mlyze-gen compile SCRIPT OUT\n"
			"       mlyze-gen mutate SEED IN OUT\n"
			"       mlyze-gen large EVENTS OUT [STACKS]\n");
	return 2;
}
