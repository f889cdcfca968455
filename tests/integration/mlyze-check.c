/* mlyze-check.c - validates a .mlyze profile written by the runtime.
 *
 * Reads the whole file, checks the header, parses the JSON metadata, walks
 * every event, and then checks the expectations given as options (see
 * usage()).  Exits 0 when the profile is well formed and meets them, 1 when
 * it does not, 2 on bad usage or an unreadable file.  The integration
 * tests use it to tell a sane profile from a corrupted or mixed-up one, so
 * it is strict where the runtime's output is fully determined: a
 * finalised file must end on an event boundary, carry no inline
 * definitions and count its events right in its stats, and every ALLOC
 * must name a defined stack.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "mlyze-codec.h"

#define MAX_EXPECTED_SIZES 16
#define ANY (-1LL)

struct expectations {
	int complete; /* 1 finalised, 0 streamed, ANY */
	long long pid, ppid, thread;
	uint64_t sizes[MAX_EXPECTED_SIZES];
	size_t nsizes;
	uint64_t min_allocs;
	int unique_live; /* no ALLOC at an address that is already live */
};

struct profile {
	const char *path;
	uint8_t *data;
	size_t size;
	json_t *meta;
	json_t *stacks; /* ids usable by ALLOC events */
	json_t *live;   /* addresses allocated and not freed */
	int complete;
	uint64_t events, allocs, frees, largest, duplicate_live;
	int size_seen[MAX_EXPECTED_SIZES];
};

static void fail(const struct profile *p, size_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

static void fail(const struct profile *p, size_t offset, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mlyze-check: %s: offset %zu: ", p->path, offset);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void usage(FILE *out, int status)
{
	fputs("Usage: mlyze-check [OPTION]... FILE\n"
	      "Check that FILE is a well-formed .mlyze profile.\n\n"
	      "  -c, --complete       the profile must be finalised\n"
	      "  -s, --streamed       the profile must be a streamed one "
	      "(never finalised)\n"
	      "  -p, --pid=N          its metadata must name process N\n"
	      "  -P, --ppid=N         ... and parent process N\n"
	      "  -t, --thread=N       every ALLOC must come from thread N\n"
	      "  -z, --size=N         some ALLOC must have exactly N bytes\n"
	      "  -m, --min-allocs=N   at least N ALLOC events\n"
	      "  -u, --unique-live    no ALLOC at an address still live\n"
	      "  -h, --help           show this help and exit\n",
	      out);
	exit(status);
}

static long long parse_number(const char *text)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || end == text || *end || v < 0) {
		fprintf(stderr, "mlyze-check: '%s' is not a number\n", text);
		usage(stderr, 2);
	}
	return v;
}

static void read_whole_file(struct profile *p)
{
	FILE *f = fopen(p->path, "rb");
	size_t cap = 1 << 20, got;

	if (!f) {
		fprintf(stderr, "mlyze-check: %s: %s\n", p->path,
			strerror(errno));
		exit(2);
	}
	p->data = malloc(cap);
	while (p->data && (got = fread(p->data + p->size, 1, cap - p->size,
				       f)) > 0) {
		p->size += got;
		if (p->size == cap)
			p->data = realloc(p->data, cap *= 2);
	}
	if (!p->data || ferror(f)) {
		fprintf(stderr, "mlyze-check: %s: cannot read it\n", p->path);
		exit(2);
	}
	fclose(f);
}

static long long int_member(const struct profile *p, const json_t *object,
			    const char *key)
{
	json_t *v = json_object_get(object, key);

	if (!json_is_integer(v))
		fail(p, MLYZE_HEADER_SIZE, "metadata has no integer \"%s\"",
		     key);
	return json_integer_value(v);
}

static long long meta_int(const struct profile *p, const char *key)
{
	return int_member(p, p->meta, key);
}

/* Every module a stack frame names must be in the module table. */
static void check_stack_table(const struct profile *p)
{
	json_t *modules = json_object_get(p->meta, "modules");
	const char *id;
	json_t *frames, *frame;
	size_t i;

	if (!json_is_object(p->stacks) || !json_is_object(modules))
		fail(p, MLYZE_HEADER_SIZE,
		     "metadata lacks the stack_traces or modules table");
	json_object_foreach(p->stacks, id, frames) {
		json_array_foreach(frames, i, frame) {
			json_t *m = json_object_get(frame, "module_id");
			char key[32];

			if (!m)
				continue;
			snprintf(key, sizeof(key), "%" JSON_INTEGER_FORMAT,
				 json_integer_value(m));
			if (!json_object_get(modules, key))
				fail(p, MLYZE_HEADER_SIZE,
				     "stack %s references undefined module %s",
				     id, key);
		}
	}
}

/* Returns the offset of the first event. */
static size_t read_header_and_metadata(struct profile *p)
{
	json_error_t error;
	uint64_t meta_len;
	json_t *complete;

	if (p->size < MLYZE_HEADER_SIZE)
		fail(p, 0, "header shorter than %u bytes", MLYZE_HEADER_SIZE);
	if (memcmp(p->data + MLYZE_OFF_MAGIC, MLYZE_MAGIC,
		   sizeof(MLYZE_MAGIC) - 1))
		fail(p, 0, "bad magic");
	if (mlyze_get_le(p->data + MLYZE_OFF_VERSION, 4) != MLYZE_VERSION)
		fail(p, MLYZE_OFF_VERSION, "unsupported version %" PRIu64,
		     mlyze_get_le(p->data + MLYZE_OFF_VERSION, 4));
	meta_len = mlyze_get_le(p->data + MLYZE_OFF_METADATA_LEN, 4);
	if (meta_len > p->size - MLYZE_HEADER_SIZE)
		fail(p, MLYZE_OFF_METADATA_LEN,
		     "metadata length past end of file");
	p->meta = json_loadb((const char *)p->data + MLYZE_HEADER_SIZE,
			     meta_len, 0, &error);
	if (!json_is_object(p->meta))
		fail(p, MLYZE_HEADER_SIZE + (size_t)error.position,
		     "metadata is not a JSON object: %s", error.text);
	complete = json_object_get(p->meta, "complete");
	if (!json_is_boolean(complete))
		fail(p, MLYZE_HEADER_SIZE, "metadata has no boolean complete");
	p->complete = json_is_true(complete);
	if (meta_int(p, "sampling_rate") <= 0)
		fail(p, MLYZE_HEADER_SIZE, "sampling_rate is not positive");
	if (p->complete) {
		p->stacks = json_incref(json_object_get(p->meta,
							"stack_traces"));
		check_stack_table(p);
		if (!json_is_object(json_object_get(p->meta, "stats")))
			fail(p, MLYZE_HEADER_SIZE, "metadata has no stats");
	} else {
		p->stacks = json_object();
	}
	return MLYZE_HEADER_SIZE + (size_t)meta_len;
}

/* Reads the fields of one event, which mlyze_event_size() has bounded. */
struct cursor {
	const uint8_t *at;
	size_t left;
};

static uint64_t next_varint(struct cursor *c)
{
	uint64_t v = 0;
	size_t used = 0;

	if (mlyze_get_varint(c->at, c->left, &v, &used) == MLYZE_VARINT_OK) {
		c->at += used;
		c->left -= used;
	}
	return v;
}

static uint64_t next_le(struct cursor *c, size_t bytes)
{
	uint64_t v = c->left >= bytes ? mlyze_get_le(c->at, bytes) : 0;

	c->at += bytes;
	c->left -= bytes;
	return v;
}

static void address_key(char *key, size_t size, uint64_t address)
{
	snprintf(key, size, "%" PRIx64, address);
}

/* ALLOC's fields, as mlyze-events.def lays them out: the address, of
 * `before` bytes, size and stack id, then the thread, of `after` bytes. */
static void on_alloc(struct profile *p, const struct expectations *x,
		     struct cursor *c, size_t offset)
{
	struct mlyze_fixed_layout layout = mlyze_fixed_layout(MLYZE_EVENT_ALLOC);
	uint64_t address = next_le(c, layout.before), size = next_varint(c);
	uint64_t stack = next_varint(c), thread = next_le(c, layout.after);
	char key[32];

	snprintf(key, sizeof(key), "%" PRIu64, stack);
	if (!json_object_get(p->stacks, key))
		fail(p, offset, "ALLOC names undefined stack %s", key);
	if (x->thread != ANY && thread != ((uint64_t)x->thread & 0xffff))
		fail(p, offset, "ALLOC from thread %" PRIu64
			       ", expected only %lld (low 16 bits)",
		     thread, x->thread);
	for (size_t i = 0; i < x->nsizes; i++)
		if (size == x->sizes[i])
			p->size_seen[i] = 1;
	if (size > p->largest)
		p->largest = size;
	address_key(key, sizeof(key), address);
	if (json_object_get(p->live, key))
		p->duplicate_live++;
	json_object_set_new(p->live, key, json_true());
	p->allocs++;
}

/* A thread's name: of the thread that allocates (with --thread, that
 * one), at most 15 bytes as the kernel keeps. */
static void on_thread(struct profile *p, const struct expectations *x,
		      struct cursor *c, size_t offset)
{
	uint64_t tid = next_varint(c), length = next_varint(c);

	if (x->thread != ANY && tid != (uint64_t)x->thread)
		fail(p, offset, "THREAD names thread %" PRIu64
			       ", expected only %lld", tid, x->thread);
	if (length == 0 || length > MLYZE_THREAD_NAME_MAX)
		fail(p, offset, "THREAD name of %" PRIu64 " bytes", length);
}

/* A reading of the process's memory: some resident bytes, of which the
 * anonymous ones are a part. */
static void on_memory(struct profile *p, struct cursor *c, size_t offset)
{
	uint64_t resident = next_varint(c), anonymous = next_varint(c);

	if (resident == 0 || anonymous > resident)
		fail(p, offset, "MEMORY of %" PRIu64 " resident bytes, %" PRIu64
				" anonymous", resident, anonymous);
}

static void on_event(struct profile *p, const struct expectations *x,
		     unsigned type, struct cursor *c, size_t offset)
{
	char key[32];

	next_varint(c); /* time delta */
	if (type >= MLYZE_FIRST_SIZED_EVENT)
		next_varint(c); /* payload length */
	switch (type) {
	case MLYZE_EVENT_ALLOC:
		on_alloc(p, x, c, offset);
		break;
	case MLYZE_EVENT_FREE:
		address_key(key, sizeof(key),
			    next_le(c, mlyze_fixed_layout(type).before));
		json_object_del(p->live, key);
		p->frees++;
		break;
	case MLYZE_EVENT_STACK:
	case MLYZE_EVENT_MODULE:
	case MLYZE_EVENT_STRING:
		if (p->complete)
			fail(p, offset, "inline definition (type %u) in a "
					"finalised profile", type);
		if (type == MLYZE_EVENT_STACK) {
			snprintf(key, sizeof(key), "%" PRIu64, next_varint(c));
			json_object_set_new(p->stacks, key, json_true());
		}
		break;
	case MLYZE_EVENT_GC:
	case MLYZE_EVENT_MARKER:
	case MLYZE_EVENT_RATE:
	case MLYZE_EVENT_MAP: /* a program's own mappings: memprof-report */
	case MLYZE_EVENT_UNMAP: /* checks them (mapped.sh) */
		break;
	case MLYZE_EVENT_MEMORY:
		on_memory(p, c, offset);
		break;
	case MLYZE_EVENT_THREAD:
		on_thread(p, x, c, offset);
		break;
	default: /* the runtime writes no other type: this is garbage */
		fail(p, offset, "unknown event type %u", type);
	}
}

static void read_events(struct profile *p, const struct expectations *x,
			size_t offset)
{
	while (offset < p->size) {
		size_t len;
		unsigned type;
		enum mlyze_event_status st = mlyze_event_size(
			p->data + offset, p->size - offset, &len, &type);
		struct cursor c = { p->data + offset + 1, 0 };

		if (!p->complete &&
		    mlyze_is_unwritten_tail(p->data + offset, p->size - offset))
			return;
		if (st == MLYZE_EVENT_TRUNCATED && !p->complete) {
			printf("%s: streamed file ends inside an event at "
			       "offset %zu\n",
			       p->path, offset);
			return;
		}
		if (st == MLYZE_EVENT_TRUNCATED)
			fail(p, offset, "truncated event");
		if (st != MLYZE_EVENT_OK)
			fail(p, offset, "overlong varint in an event");
		c.left = len - 1;
		on_event(p, x, type, &c, offset);
		p->events++;
		offset += len;
	}
}

/* The counters of a finalised profile must match its events. */
static void check_stats(const struct profile *p)
{
	const json_t *stats = json_object_get(p->meta, "stats");
	const struct {
		const char *key;
		uint64_t events;
	} counts[] = {
		{ "samples", p->allocs },
		{ "frees_tracked", p->frees },
		{ "events_written", p->events },
		{ "events_dropped", 0 },
	};

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		long long v = int_member(p, stats, counts[i].key);

		if (v < 0 || (uint64_t)v != counts[i].events)
			fail(p, MLYZE_HEADER_SIZE,
			     "stats say %s %lld, the events %" PRIu64,
			     counts[i].key, v, counts[i].events);
	}
}

static void check_expectations(const struct profile *p,
			       const struct expectations *x)
{
	if (x->complete != ANY && p->complete != x->complete)
		fail(p, MLYZE_HEADER_SIZE, "profile is %s, expected %s",
		     p->complete ? "finalised" : "not finalised",
		     x->complete ? "finalised" : "a streamed one");
	if (x->pid != ANY && meta_int(p, "pid") != x->pid)
		fail(p, MLYZE_HEADER_SIZE, "pid %lld, expected %lld",
		     meta_int(p, "pid"), x->pid);
	if (x->ppid != ANY && meta_int(p, "ppid") != x->ppid)
		fail(p, MLYZE_HEADER_SIZE, "ppid %lld, expected %lld",
		     meta_int(p, "ppid"), x->ppid);
	for (size_t i = 0; i < x->nsizes; i++)
		if (!p->size_seen[i])
			fail(p, p->size, "no ALLOC of exactly %" PRIu64
					 " bytes",
			     x->sizes[i]);
	if (p->allocs < x->min_allocs)
		fail(p, p->size, "%" PRIu64 " ALLOC events, expected at "
				 "least %" PRIu64,
		     p->allocs, x->min_allocs);
	if (x->unique_live && p->duplicate_live)
		fail(p, p->size, "%" PRIu64 " ALLOC events at addresses "
				 "already live",
		     p->duplicate_live);
}

static void parse_options(int argc, char **argv, struct expectations *x)
{
	static const struct option options[] = {
		{ "complete", no_argument, NULL, 'c' },
		{ "streamed", no_argument, NULL, 's' },
		{ "pid", required_argument, NULL, 'p' },
		{ "ppid", required_argument, NULL, 'P' },
		{ "thread", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 'z' },
		{ "min-allocs", required_argument, NULL, 'm' },
		{ "unique-live", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	*x = (struct expectations){ .complete = ANY, .pid = ANY,
				    .ppid = ANY, .thread = ANY };
	while ((opt = getopt_long(argc, argv, "csp:P:t:z:m:uh", options,
				  NULL)) != -1) {
		switch (opt) {
		case 'c':
		case 's':
			x->complete = opt == 'c';
			break;
		case 'p':
			x->pid = parse_number(optarg);
			break;
		case 'P':
			x->ppid = parse_number(optarg);
			break;
		case 't':
			x->thread = parse_number(optarg);
			break;
		case 'z':
			if (x->nsizes == MAX_EXPECTED_SIZES)
				usage(stderr, 2);
			x->sizes[x->nsizes++] = (uint64_t)parse_number(optarg);
			break;
		case 'm':
			x->min_allocs = (uint64_t)parse_number(optarg);
			break;
		case 'u':
			x->unique_live = 1;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		default:
			usage(stderr, 2);
		}
	}
	if (optind != argc - 1)
		usage(stderr, 2);
}

int main(int argc, char **argv)
{
	struct expectations x;
	struct profile p = { 0 };

	parse_options(argc, argv, &x);
	p.path = argv[optind];
	p.live = json_object();
	read_whole_file(&p);
	read_events(&p, &x, read_header_and_metadata(&p));
	if (p.complete)
		check_stats(&p);
	check_expectations(&p, &x);
	printf("%s: pid %lld, %s, %" PRIu64 " events (%" PRIu64
	       " allocs, %" PRIu64 " frees), largest allocation %" PRIu64
	       " bytes\n",
	       p.path, meta_int(&p, "pid"),
	       p.complete ? "finalised" : "streamed", p.events, p.allocs,
	       p.frees, p.largest);
	return 0;
}
