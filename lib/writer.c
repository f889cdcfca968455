/* writer.c - the streamed and the final .mlyze profile (see writer.h). */
#include "config.h"

#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "frames.h"
#include "mlyze-codec.h"
#include "modules.h"
#include "outbuf.h"
#include "rawmem.h"
#include "spinlock.h"
#include "names.h"

#define SPOOL_BUFFER_BYTES (256u * 1024)
#define COPY_CHUNK_BYTES (1u << 20)
#define FLUSH_INTERVAL_NS 1000000000ull
#define CMDLINE_MAX (64u * 1024)
#define NAME_ATTEMPTS 1000
/* Larger than any single event (a MODULE event carries one path). */
#define EVENT_ROOM (PATH_MAX + 1024)

/* What every event writes shares the lock's cache line, so that threads
 * taking turns pass one line along; what every event only reads comes
 * next, and stays in each CPU's cache. */
static struct {
	_Atomic int lock;
	uint8_t enabled;
	uint8_t finalised;
	struct outbuf out; /* out.fd: the streamed file, -1 until created */
	uint64_t last_us;
	_Atomic uint64_t events;
	uint64_t start_mono_ns;
	uint64_t next_flush_ns; /* written once per FLUSH_INTERVAL_NS */
	uint8_t flush_due;
	_Atomic uint64_t dropped;
	/* A full buffer is handed over under the lock and written after it
	 * is released, while other threads fill the spare one: io_lock is
	 * held from a hand-over until its write ends. */
	_Atomic int io_lock;
	int io_pending; /* handed over, to be written by end_event() */
	_Atomic int io_error;
	uint8_t *spare;
	struct handed_over {
		int fd;
		const uint8_t *buf;
		size_t len;
		uint64_t offset;
	} io;
	uint8_t *stack_defined; /* bitmap: stack defined in this file */
	int none_defined;       /* the empty stack of STACK_ID_NONE */
	int descendant;
	int create_failed;
	struct stack_table *stacks;
	uint32_t modules_defined;
	uint32_t strings_defined[2]; /* per string table */
	uint64_t start_wall_us;
	uint64_t first_rate, rate;
	uint64_t events_offset; /* where events start in the streamed file */
	/* Where the definition events lie in the streamed file, [start, end)
	 * pairs in the order written: the final file leaves them out, and
	 * copies the events between them without reading them. */
	uint64_t *definitions;
	size_t definition_words, definition_capacity;
	int definitions_lost; /* no memory to note one: cannot finalise */
	pid_t pid;              /* the process this writer belongs to */
	char pattern[PATH_MAX];
	char manifest[PATH_MAX];
	char base[PATH_MAX]; /* final name, before any collision suffix */
	char part[PATH_MAX];
} w __attribute__((aligned(64))) = { .out.fd = -1 };

_Static_assert(offsetof(__typeof__(w), events) + sizeof(w.events) <= 64,
	       "what every event writes fits in the lock's cache line");

static void lock(void)
{
	spin_lock(&w.lock);
}

static void unlock(void)
{
	spin_unlock(&w.lock);
}

int writer_enabled(void)
{
	return w.enabled;
}

static void reset_clock(void)
{
	w.start_wall_us = clock_ns(CLOCK_REALTIME) / 1000;
	w.start_mono_ns = monotonic_ns();
	w.last_us = 0;
	w.next_flush_ns = w.start_mono_ns + FLUSH_INTERVAL_NS;
	w.flush_due = 0;
}

int writer_configure(const struct runtime_config *s, struct stack_table *t,
		     uint64_t sampling_rate, int descendant)
{
	size_t bitmap = t->max_entries / 8 + 1;
	uint8_t *buffer = rawmem_map(SPOOL_BUFFER_BYTES);

	w.spare = rawmem_map(SPOOL_BUFFER_BYTES);
	w.stack_defined = rawmem_map(bitmap);
	if (!buffer || !w.spare || !w.stack_defined || strings_init() < 0) {
		errno = ENOMEM;
		return -1;
	}
	outbuf_init(&w.out, -1, buffer, SPOOL_BUFFER_BYTES);
	memcpy(w.pattern, s->output, sizeof(w.pattern));
	memcpy(w.manifest, s->manifest, sizeof(w.manifest));
	w.stacks = t;
	w.first_rate = w.rate = sampling_rate;
	w.descendant = descendant;
	w.pid = getpid();
	reset_clock();
	w.enabled = 1;
	return 0;
}

/* ---- file names --------------------------------------------------- */

/* Copies base into out with ".tag" inserted before a trailing ".mlyze"
 * (or appended); returns -1 when it does not fit. */
static int name_with_tag(char *out, size_t size, const char *base,
			 const char *tag)
{
	static const char ext[] = ".mlyze";
	size_t len = strlen(base), stem = len;
	int n;

	if (len >= sizeof(ext) - 1 &&
	    !strcmp(base + len - (sizeof(ext) - 1), ext))
		stem = len - (sizeof(ext) - 1);
	n = snprintf(out, size, "%.*s.%s%s", (int)stem, base, tag,
		     base + stem);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

static int candidate_name(char *out, size_t size, unsigned attempt)
{
	char tag[16];

	if (attempt == 0)
		return snprintf(out, size, "%s", w.base) < (int)size ? 0 : -1;
	snprintf(tag, sizeof(tag), "%u", attempt);
	return name_with_tag(out, size, w.base, tag);
}

/* Expands %p and %%; a descendant's name gets its pid when the pattern
 * has none, so that processes of one tree never share a name. */
static int expand_pattern(void)
{
	char expanded[PATH_MAX], pid[16];
	size_t n = 0;
	int has_pid = 0;

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	for (const char *p = w.pattern; *p && n < sizeof(expanded) - 16; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			n += (size_t)snprintf(expanded + n, 16, "%s", pid);
			has_pid = 1;
			p++;
		} else {
			expanded[n++] = *p;
			if (p[0] == '%' && p[1] == '%')
				p++;
		}
	}
	expanded[n] = '\0';
	if (w.descendant && !has_pid)
		return name_with_tag(w.base, sizeof(w.base), expanded, pid);
	memcpy(w.base, expanded, n + 1);
	return 0;
}

static void manifest_line(const char *kind, const char *a, const char *b)
{
	char line[3 * PATH_MAX];
	int fd, n;

	if (!w.manifest[0])
		return;
	n = snprintf(line, sizeof(line), "%s %s%s%s\n", kind, a, b ? "\t" : "",
		     b ? b : "");
	fd = open(w.manifest, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (n > 0 && (size_t)n < sizeof(line))
		write_all(fd, line, (size_t)n);
	close(fd);
}

/* ---- metadata ------------------------------------------------------- */

static void json_uint_member(struct outbuf *o, const char *key, uint64_t v)
{
	outbuf_json_key(o, key, 0);
	outbuf_uint(o, v);
}

static void json_string_member(struct outbuf *o, const char *key,
			       const char *v)
{
	outbuf_json_key(o, key, 0);
	outbuf_json_string(o, v);
}

static void write_command_line(struct outbuf *o)
{
	static char cmdline[CMDLINE_MAX + 1];
	ssize_t n = 0, r;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	while (fd >= 0 && n < (ssize_t)CMDLINE_MAX &&
	       (r = read(fd, cmdline + n, CMDLINE_MAX - (size_t)n)) > 0)
		n += r;
	if (fd >= 0)
		close(fd);
	cmdline[n] = '\0';
	outbuf_json_key(o, "command_line", 0);
	outbuf_str(o, "[");
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(cmdline + i) + 1) {
		if (i)
			outbuf_str(o, ",");
		outbuf_json_string(o, cmdline + i);
	}
	outbuf_str(o, "]");
}

/* The members every profile starts its metadata with (no closing brace). */
static void write_identity(struct outbuf *o, int complete)
{
	char text[PATH_MAX];
	ssize_t n;

	outbuf_str(o, "{");
	outbuf_json_key(o, "producer", 1);
	outbuf_json_string(o, PACKAGE_NAME " " PACKAGE_VERSION);
	outbuf_json_key(o, "complete", 0);
	outbuf_str(o, complete ? "true" : "false");
	json_uint_member(o, "pid", (uint64_t)getpid());
	json_uint_member(o, "ppid", (uint64_t)getppid());
	if (gethostname(text, sizeof(text) - 1) == 0) {
		text[sizeof(text) - 1] = '\0';
		json_string_member(o, "hostname", text);
	}
	n = readlink("/proc/self/exe", text, sizeof(text) - 1);
	if (n > 0) {
		text[n] = '\0';
		json_string_member(o, "executable", text);
	}
	write_command_line(o);
	json_uint_member(o, "sampling_rate", w.first_rate);
	json_uint_member(o, "start_time_us", w.start_wall_us);
	json_uint_member(o, "max_stack_depth", MEMPROF_MAX_STACK_DEPTH);
}

static void write_frame_json(struct outbuf *o, uintptr_t pc)
{
	long m = modules_find(pc);

	if (frame_is_script(pc)) {
		outbuf_str(o, "{\"file_id\":");
		outbuf_uint(o, script_frame_file(pc));
		outbuf_str(o, ",\"func_id\":");
		outbuf_uint(o, script_frame_function(pc));
		outbuf_str(o, ",\"line\":");
		outbuf_uint(o, script_frame_line(pc));
	} else if (m < 0) {
		outbuf_str(o, "{\"address\":");
		outbuf_uint(o, pc);
	} else {
		outbuf_str(o, "{\"module_id\":");
		outbuf_uint(o, (uint64_t)m);
		outbuf_str(o, ",\"offset\":");
		outbuf_uint(o, pc - modules_get((uint32_t)m)->load_bias);
	}
	outbuf_str(o, "}");
}

static int stack_is_defined(uint32_t id)
{
	return (w.stack_defined[id / 8] >> (id % 8)) & 1;
}

static void write_stacks_json(struct outbuf *o)
{
	uint32_t count = stack_table_count(w.stacks);
	int first = 1;

	outbuf_json_key(o, "stack_traces", 0);
	outbuf_str(o, "{");
	if (w.none_defined) {
		outbuf_str(o, "\"4294967295\":[]");
		first = 0;
	}
	for (uint32_t id = 0; id < count; id++) {
		const struct stack_entry *e = stack_table_get(w.stacks, id);
		char key[16];

		if (!e || !stack_is_defined(id))
			continue;
		snprintf(key, sizeof(key), "%u", id);
		outbuf_json_key(o, key, first);
		first = 0;
		outbuf_str(o, "[");
		for (uint32_t i = 0; i < e->depth; i++) {
			if (i)
				outbuf_str(o, ",");
			write_frame_json(o, e->frames[i]);
		}
		outbuf_str(o, "]");
	}
	outbuf_str(o, "}");
}

static void write_hex(struct outbuf *o, const uint8_t *bytes, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		char pair[2] = { digits[bytes[i] >> 4], digits[bytes[i] & 15] };

		outbuf_bytes(o, pair, 2);
	}
}

static void write_modules_json(struct outbuf *o)
{
	uint32_t count = modules_count();

	outbuf_json_key(o, "modules", 0);
	outbuf_str(o, "{");
	for (uint32_t id = 0; id < count; id++) {
		const struct module *m = modules_get(id);
		char key[16];

		snprintf(key, sizeof(key), "%u", id);
		outbuf_json_key(o, key, id == 0);
		outbuf_str(o, "{\"path\":");
		outbuf_json_string(o, m->path);
		json_uint_member(o, "start", m->start);
		json_uint_member(o, "end", m->end);
		json_uint_member(o, "load_bias", m->load_bias);
		if (m->build_id_len) {
			outbuf_str(o, ",\"build_id\":\"");
			write_hex(o, m->build_id, m->build_id_len);
			outbuf_str(o, "\"");
		}
		outbuf_str(o, "}");
	}
	outbuf_str(o, "}");
}

static void write_strings_json(struct outbuf *o, const char *name,
			       enum string_table table)
{
	uint32_t count = strings_count(table);

	outbuf_json_key(o, name, 0);
	outbuf_str(o, "{");
	for (uint32_t id = 0; id < count; id++) {
		char key[16];

		snprintf(key, sizeof(key), "%u", id);
		outbuf_json_key(o, key, id == 0);
		outbuf_json_string(o, strings_get(table, id));
	}
	outbuf_str(o, "}");
}

static void write_stats_json(struct outbuf *o, const memprof_stats *s)
{
	outbuf_json_key(o, "stats", 0);
	outbuf_str(o, "{\"samples\":");
	outbuf_uint(o, s->total_samples);
	json_uint_member(o, "frees_tracked", s->freed_samples);
	json_uint_member(o, "heap_map_full_drops", s->heap_map_full_drops);
	json_uint_member(o, "stack_table_drops", s->stack_table_drops);
	json_uint_member(o, "death_during_birth", s->death_during_birth);
	json_uint_member(o, "native_stacks", s->native_stacks);
	json_uint_member(o, "native_frames", s->native_frames);
	json_uint_member(o, "shallow_stacks", s->shallow_stacks);
	json_uint_member(o, "truncated_stacks", s->truncated_stacks);
	json_uint_member(o, "events_written", s->events_written);
	json_uint_member(o, "events_dropped", s->events_dropped);
	outbuf_str(o, "}");
}

static void write_header(uint8_t header[MLYZE_HEADER_SIZE], uint32_t meta_len)
{
	memset(header, 0, MLYZE_HEADER_SIZE);
	memcpy(header + MLYZE_OFF_MAGIC, MLYZE_MAGIC, 4);
	mlyze_put_le(header + MLYZE_OFF_VERSION, MLYZE_VERSION, 4);
	mlyze_put_le(header + MLYZE_OFF_START_US, w.start_wall_us, 8);
	mlyze_put_le(header + MLYZE_OFF_METADATA_LEN, meta_len, 4);
}

/* Writes header + metadata through o (positioned at file offset 0), then
 * patches the metadata length into the header; returns its error. */
static int write_prologue(struct outbuf *o, int complete,
			  const memprof_stats *stats)
{
	uint8_t header[MLYZE_HEADER_SIZE];
	uint64_t meta_start, meta_len;

	write_header(header, 0);
	outbuf_bytes(o, header, sizeof(header));
	meta_start = o->written + o->len;
	write_identity(o, complete);
	if (complete) {
		json_uint_member(o, "end_time_us",
				 clock_ns(CLOCK_REALTIME) / 1000);
		write_stacks_json(o);
		write_modules_json(o);
		write_strings_json(o, "files", STRINGS_FILES);
		write_strings_json(o, "functions", STRINGS_FUNCTIONS);
		write_stats_json(o, stats);
	}
	outbuf_str(o, "}");
	meta_len = o->written + o->len - meta_start;
	if (outbuf_flush(o))
		return o->error;
	if (meta_len > UINT32_MAX)
		return EFBIG;
	write_header(header, (uint32_t)meta_len);
	if (pwrite(o->fd, header, sizeof(header), 0) != sizeof(header))
		return errno ? errno : EIO;
	return 0;
}

/* ---- events ----------------------------------------------------------- */

/* Appends one field of a definition's payload (see put_definition_start). */
static void put_varint(uint64_t v)
{
	outbuf_commit(&w.out, mlyze_put_varint(outbuf_reserve(&w.out,
							      MLYZE_VARINT_MAX),
					       v));
}

/* The encoders below write one field at p and return where the next one
 * goes: an event is encoded straight into the buffer and committed once. */
static uint8_t *encode_varint(uint8_t *p, uint64_t v)
{
	return p + mlyze_put_varint(p, v);
}

static uint8_t *encode_le(uint8_t *p, uint64_t v, size_t bytes)
{
	mlyze_put_le(p, v, bytes);
	return p + bytes;
}

/* Writes the buffer handed over at its place in the file, then lets the
 * next hand-over in.  A thread cancelled inside pwrite() would keep
 * io_lock for ever: cancellation waits. */
static void write_handed_over(void)
{
	int err, state;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
	err = pwrite_all(w.io.fd, w.io.buf, w.io.len, w.io.offset);
	pthread_setcancelstate(state, NULL);
	if (err)
		atomic_store(&w.io_error, err);
	spin_unlock(&w.io_lock);
}

/* With the lock held: writes now a buffer handed over under this lock. */
static void write_pending_now(void)
{
	if (w.io_pending) {
		w.io_pending = 0;
		write_handed_over();
	}
}

/* A write that failed after the lock was released fails the buffer. */
static void take_write_error(void)
{
	if (!w.out.error)
		w.out.error = atomic_load(&w.io_error);
}

/* With the lock held: hands the buffered events over, to be written once
 * the lock is released (end_event), and goes on in the spare buffer.  The
 * file is written at explicit offsets, so writes never overtake. */
static void hand_over_buffer(void)
{
	write_pending_now(); /* a second hand-over under one lock */
	if (!w.out.len)
		return;
	spin_lock(&w.io_lock); /* the buffer handed over last is written */
	take_write_error();
	if (w.out.error) { /* dropped, as outbuf_flush() drops it */
		w.out.len = 0;
		spin_unlock(&w.io_lock);
		return;
	}
	w.io = (struct handed_over){ w.out.fd, w.out.buf, w.out.len,
				     w.out.written };
	w.out.written += w.out.len;
	w.out.buf = w.spare;
	w.spare = (uint8_t *)w.io.buf;
	w.out.len = 0;
	w.io_pending = 1;
}

/* With the lock held: everything buffered is in the file on return;
 * returns the first write error. */
static int flush_locked(void)
{
	hand_over_buffer();
	write_pending_now();
	spin_lock(&w.io_lock); /* another thread's write has ended */
	spin_unlock(&w.io_lock);
	take_write_error();
	return w.out.error;
}

/* Flushing only between events keeps the streamed file made of whole
 * events, so it can be read while the program runs; it also means that no
 * field of the event needs a flush (EVENT_ROOM holds the largest event, so
 * the buffer never flushes itself).  Returns where the event goes. */
static uint8_t *make_room(void)
{
	if (w.out.cap - w.out.len < EVENT_ROOM)
		hand_over_buffer();
	return w.out.buf + w.out.len;
}

/* Encodes an event's type and time delta; returns where its fields go. */
static uint8_t *encode_event_start(unsigned type, uint64_t delta)
{
	uint8_t *p = make_room();

	*p = (uint8_t)type;
	return encode_varint(p + 1, delta);
}

/* Commits what was encoded since make_room(), up to end. */
static void commit_event(const uint8_t *end)
{
	outbuf_commit(&w.out, (size_t)(end - (w.out.buf + w.out.len)));
}

/* Counters written only under the lock need no atomic add; they are
 * atomic so that statistics can read them at any time. */
static void count_locked(_Atomic uint64_t *counter)
{
	atomic_store_explicit(counter,
			      atomic_load_explicit(counter, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* Starts an event that happened at monotonic time now_ns: its type and
 * the microseconds since the last event.  Returns where its fields go;
 * commit_event() ends it. */
static uint8_t *put_event_at(unsigned type, uint64_t now_ns)
{
	uint64_t now = (now_ns - w.start_mono_ns) / 1000;
	uint64_t delta = now > w.last_us ? now - w.last_us : 0;
	uint8_t *p;

	w.last_us += delta;
	if (now_ns >= w.next_flush_ns) {
		w.flush_due = 1;
		w.next_flush_ns = now_ns + FLUSH_INTERVAL_NS;
	}
	p = encode_event_start(type, delta);
	count_locked(w.out.error ? &w.dropped : &w.events);
	return p;
}

static uint8_t *put_event_start(unsigned type)
{
	return put_event_at(type, monotonic_ns());
}

/* Notes that bytes [start, end) of the streamed file are a definition. */
static void note_definition(uint64_t start, uint64_t end)
{
	size_t bytes = w.definition_capacity * sizeof(uint64_t);
	uint64_t *more;

	if (w.definitions_lost)
		return;
	if (w.definition_words == w.definition_capacity) {
		more = rawmem_map(bytes ? 2 * bytes : 4096);
		if (!more) {
			w.definitions_lost = 1;
			return;
		}
		if (w.definitions)
			memcpy(more, w.definitions, bytes);
		rawmem_unmap(w.definitions, bytes);
		w.definitions = more;
		w.definition_capacity = bytes ? 2 * w.definition_capacity
					      : 4096 / sizeof(uint64_t);
	}
	w.definitions[w.definition_words++] = start;
	w.definitions[w.definition_words++] = end;
}

/* Definitions (types 4-6) carry a zero delta: they stand right before
 * the event that needs them, and finalisation removes them.  Their
 * payload follows with put_varint() and outbuf_bytes(). */
static void put_definition_start(unsigned type, uint64_t payload_len)
{
	uint8_t *p = encode_event_start(type, 0);
	uint64_t start = w.out.written + w.out.len;

	p = encode_varint(p, payload_len);
	note_definition(start, start + (uint64_t)(p - (w.out.buf + w.out.len)) +
				       payload_len);
	commit_event(p);
}

static void define_modules(void)
{
	uint32_t count = modules_count();

	for (; w.modules_defined < count; w.modules_defined++) {
		const struct module *m = modules_get(w.modules_defined);
		size_t path_len = strlen(m->path);

		put_definition_start(
			MLYZE_EV_MODULE,
			mlyze_varint_len(w.modules_defined) +
				mlyze_varint_len(m->start) +
				mlyze_varint_len(m->end) +
				mlyze_varint_len(m->load_bias) +
				mlyze_varint_len(m->build_id_len) +
				m->build_id_len + mlyze_varint_len(path_len) +
				path_len);
		put_varint(w.modules_defined);
		put_varint(m->start);
		put_varint(m->end);
		put_varint(m->load_bias);
		put_varint(m->build_id_len);
		outbuf_bytes(&w.out, m->build_id, m->build_id_len);
		put_varint(path_len);
		outbuf_bytes(&w.out, m->path, path_len);
	}
}

static void define_strings(void)
{
	for (unsigned t = STRINGS_FILES; t <= STRINGS_FUNCTIONS; t++) {
		uint32_t count = strings_count(t);

		for (; w.strings_defined[t] < count; w.strings_defined[t]++) {
			uint32_t id = w.strings_defined[t];
			const char *s = strings_get(t, id);
			size_t len = strlen(s);

			put_definition_start(MLYZE_EV_STRING,
					     1 + mlyze_varint_len(id) +
						     mlyze_varint_len(len) +
						     len);
			put_varint(t == STRINGS_FILES ? MLYZE_STRINGS_FILES
						      : MLYZE_STRINGS_FUNCTIONS);
			put_varint(id);
			put_varint(len);
			outbuf_bytes(&w.out, s, len);
		}
	}
}

/* The STACK payload bytes of one frame (kind + fields). */
static size_t frame_payload_len(uintptr_t f)
{
	if (!frame_is_script(f))
		return 1 + mlyze_varint_len(f);
	return 1 + mlyze_varint_len(script_frame_file(f)) +
	       mlyze_varint_len(script_frame_function(f)) +
	       mlyze_varint_len(script_frame_line(f));
}

static void put_frame(uintptr_t f)
{
	if (!frame_is_script(f)) {
		put_varint(MLYZE_FRAME_NATIVE);
		put_varint(f);
		return;
	}
	put_varint(MLYZE_FRAME_PYTHON);
	put_varint(script_frame_file(f));
	put_varint(script_frame_function(f));
	put_varint(script_frame_line(f));
}

static void define_stack(uint32_t id)
{
	const struct stack_entry *e = stack_table_get(w.stacks, id);
	uint32_t depth = e ? e->depth : 0;
	uint64_t len;
	int refreshed = 0;

	for (uint32_t i = 0; i < depth; i++)
		if (!frame_is_script(e->frames[i]) &&
		    modules_find(e->frames[i]) < 0 && !refreshed) {
			modules_refresh(); /* a library loaded since */
			refreshed = 1;
		}
	define_modules();
	define_strings();
	len = mlyze_varint_len(id) + mlyze_varint_len(depth);
	for (uint32_t i = 0; i < depth; i++)
		len += frame_payload_len(e->frames[i]);
	put_definition_start(MLYZE_EV_STACK, len);
	put_varint(id);
	put_varint(depth);
	for (uint32_t i = 0; i < depth; i++)
		put_frame(e->frames[i]);
}

static void ensure_stack_defined(uint32_t id)
{
	if (id == STACK_ID_NONE) {
		if (!w.none_defined)
			define_stack(id);
		w.none_defined = 1;
	} else if (!stack_is_defined(id)) {
		define_stack(id);
		w.stack_defined[id / 8] |= (uint8_t)(1u << (id % 8));
	}
}

static void put_rate_event(void)
{
	uint8_t *p = put_event_start(MLYZE_EV_RATE);

	p = encode_varint(p, mlyze_varint_len(w.rate));
	p = encode_varint(p, w.rate);
	commit_event(p);
}

/* Creates the streamed file; 0 when it is ready. */
static int create_file(void)
{
	char candidate[PATH_MAX];
	struct outbuf prologue;
	int fd = -1, err;

	if (w.create_failed || expand_pattern() < 0)
		goto fail;
	for (unsigned k = 0; k < NAME_ATTEMPTS && fd < 0; k++) {
		if (candidate_name(candidate, sizeof(candidate), k) < 0 ||
		    (size_t)snprintf(w.part, sizeof(w.part), "%s.part",
				     candidate) >= sizeof(w.part))
			goto fail;
		if (access(candidate, F_OK) == 0)
			continue; /* never reuse the name of a finished profile */
		fd = open(w.part, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			goto fail;
	}
	if (fd < 0)
		goto fail;
	outbuf_init(&prologue, fd, w.out.buf, w.out.cap);
	err = write_prologue(&prologue, 0, NULL);
	if (err) {
		errno = err;
		close(fd);
		unlink(w.part);
		goto fail;
	}
	w.out.fd = fd;
	w.out.written = prologue.written;
	w.events_offset = prologue.written;
	manifest_line("P", w.part, NULL);
	modules_refresh();
	define_modules();
	put_rate_event();
	return 0;
fail:
	if (!w.create_failed)
		runtime_message("cannot create the profile %s: %s",
				w.part[0] ? w.part : w.pattern,
				error_text(errno));
	w.create_failed = 1;
	return -1;
}

/* The file is created on the first event; later events find it ready. */
static int ensure_file(void)
{
	return w.out.fd >= 0 ? 0 : create_file();
}

/* Writes out what is buffered once an event came FLUSH_INTERVAL_NS after
 * the last time, so that a running process's file stays nearly current. */
static void maybe_flush(void)
{
	if (w.flush_due) {
		if (!w.io_pending)
			hand_over_buffer();
		w.flush_due = 0;
	}
}

/* Takes the lock and makes the file ready; 0 when the caller may write
 * an event (and must then call end_event). */
static int begin_event(void)
{
	if (!w.enabled)
		return -1;
	lock();
	if (w.finalised || ensure_file() < 0) {
		atomic_fetch_add_explicit(&w.dropped, 1, memory_order_relaxed);
		unlock();
		return -1;
	}
	return 0;
}

static void end_event(void)
{
	int pending;

	maybe_flush();
	pending = w.io_pending;
	w.io_pending = 0;
	unlock();
	if (pending)
		write_handed_over();
}

void writer_alloc(uintptr_t address, const struct heap_record *r)
{
	uint8_t *p;

	if (begin_event() < 0)
		return;
	ensure_stack_defined(r->stack_id);
	p = put_event_at(MLYZE_EV_ALLOC, r->timestamp_ns);
	p = encode_le(p, address, 8);
	p = encode_varint(p, r->size);
	p = encode_varint(p, r->stack_id);
	p = encode_le(p, r->thread_id & 0xffff, 2);
	commit_event(p);
	end_event();
}

void writer_free(uintptr_t address)
{
	uint64_t now_ns = monotonic_ns(); /* before the lock, held the less */
	uint8_t *p;

	if (begin_event() < 0)
		return;
	p = put_event_at(MLYZE_EV_FREE, now_ns);
	commit_event(encode_le(p, address, 8));
	end_event();
}

void writer_rate(uint64_t sampling_rate)
{
	if (begin_event() < 0)
		return;
	if (w.rate != sampling_rate) {
		w.rate = sampling_rate;
		put_rate_event();
	}
	end_event();
}

void writer_gc(uint64_t objects, uint64_t bytes)
{
	uint8_t *p;

	if (begin_event() < 0)
		return;
	p = put_event_start(MLYZE_EV_GC);
	p = encode_varint(p, objects);
	p = encode_varint(p, bytes);
	commit_event(p);
	end_event();
}

int writer_marker(const char *name)
{
	uint8_t *p;
	uint32_t id;

	if (begin_event() < 0)
		return -1;
	id = strings_intern(STRINGS_FUNCTIONS, name, strlen(name));
	if (id == STRING_ID_NONE) {
		end_event();
		errno = ENOSPC;
		return -1;
	}
	define_strings();
	p = put_event_start(MLYZE_EV_MARKER);
	commit_event(encode_varint(p, id));
	end_event();
	return 0;
}

uint64_t writer_events_written(void)
{
	return atomic_load_explicit(&w.events, memory_order_relaxed);
}

uint64_t writer_events_dropped(void)
{
	return atomic_load_explicit(&w.dropped, memory_order_relaxed);
}

/* ---- finalisation ------------------------------------------------------ */

/* Copies bytes [offset, end) of the streamed file to the end of `to`:
 * inside the kernel when it can, else through buffer. */
static int copy_range(int to, uint64_t offset, uint64_t end, uint8_t *buffer)
{
	int in_kernel = 1;

	while (offset < end) {
		size_t want = end - offset < COPY_CHUNK_BYTES
				      ? (size_t)(end - offset)
				      : COPY_CHUNK_BYTES;
		off64_t from = (off64_t)offset;
		ssize_t n = -1;
		int err;

		if (in_kernel) {
			n = copy_file_range(w.out.fd, &from, to, NULL, want, 0);
			in_kernel = n > 0;
		}
		if (n < 0) {
			n = pread(w.out.fd, buffer, want, (off_t)offset);
			if (n > 0 && (err = write_all(to, buffer, (size_t)n)))
				return err;
		}
		if (n <= 0)
			return n < 0 ? errno : EIO; /* the file got shorter */
		offset += (uint64_t)n;
	}
	return 0;
}

/* Copies the streamed events into `to`, leaving out the inline
 * definitions that the final metadata replaces. */
static int copy_events(int to, uint8_t *buffer)
{
	uint64_t from = w.events_offset;
	int err = 0;

	for (size_t i = 0; i < w.definition_words && !err; i += 2) {
		err = copy_range(to, from, w.definitions[i], buffer);
		from = w.definitions[i + 1];
	}
	return err ? err : copy_range(to, from, w.out.written, buffer);
}

/* Gives tmp its final name without ever replacing an existing file. */
static int publish(const char *tmp, char *final, size_t size)
{
	for (unsigned k = 0; k < NAME_ATTEMPTS; k++) {
		if (candidate_name(final, size, k) < 0)
			return ENAMETOOLONG;
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final,
			      RENAME_NOREPLACE) == 0)
			return 0;
		if (errno == EEXIST)
			continue;
		if (errno != EINVAL && errno != ENOSYS)
			return errno;
		/* No RENAME_NOREPLACE on this file system: link + unlink. */
		if (link(tmp, final) == 0) {
			unlink(tmp);
			return 0;
		}
		if (errno != EEXIST)
			return errno;
	}
	return EEXIST;
}

static int assemble(const memprof_stats *stats, char *final, size_t size)
{
	char tmp[PATH_MAX + 8];
	uint8_t *buffer = rawmem_map(COPY_CHUNK_BYTES);
	struct outbuf o;
	int fd, err;

	snprintf(tmp, sizeof(tmp), "%s.final", w.part);
	if (!buffer || w.definitions_lost)
		err = ENOMEM;
	else if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			    0666)) < 0)
		err = errno;
	else {
		outbuf_init(&o, fd, buffer, COPY_CHUNK_BYTES);
		err = write_prologue(&o, 1, stats);
		if (!err)
			err = copy_events(fd, buffer);
		if (close(fd) < 0 && !err)
			err = errno;
		if (!err)
			err = publish(tmp, final, size);
		if (err)
			unlink(tmp);
	}
	rawmem_unmap(buffer, COPY_CHUNK_BYTES);
	return err;
}

static void finalise_locked(const memprof_stats *stats)
{
	char final[PATH_MAX];
	sigset_t all, before;
	int err;

	/* A signal now (a pool terminating its workers) would leave a half
	 * assembled file behind: it waits the few milliseconds this takes. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &before);

	/* The first process always leaves a profile, even an empty one; a
	 * descendant that sampled nothing (a shell, a wrapper) leaves none. */
	if (!w.finalised && (w.out.fd >= 0 || !w.descendant) && ensure_file() == 0) {
		err = flush_locked();
		if (!err)
			err = assemble(stats, final, sizeof(final));
		if (err) {
			runtime_message("cannot write the profile (%s); the "
					"streamed data stays in %s",
					error_text(err), w.part);
		} else {
			unlink(w.part);
			manifest_line("F", w.part, final);
		}
		close(w.out.fd);
		w.out.fd = -1;
	}
	w.finalised = 1;
	pthread_sigmask(SIG_SETMASK, &before, NULL);
}

void writer_finalise(const memprof_stats *stats)
{
	if (!w.enabled)
		return;
	lock();
	finalise_locked(stats);
	unlock();
}

void writer_finalise_at_exit(const memprof_stats *stats)
{
	/* A vfork() child shares our memory: its _exit() is not ours.  A
	 * thread interrupted while writing holds the lock: leave the streamed
	 * file as it is rather than wait. */
	if (!w.enabled || getpid() != w.pid || !spin_trylock(&w.lock))
		return;
	finalise_locked(stats);
	unlock();
}

/* No write may be under way at fork(): the child would find io_lock held
 * by a thread it does not have. */
void writer_prefork(void)
{
	if (w.enabled) {
		lock();
		spin_lock(&w.io_lock);
	}
}

void writer_postfork_parent(void)
{
	if (w.enabled) {
		spin_unlock(&w.io_lock);
		unlock();
	}
}

void writer_postfork_child(int keep_recording)
{
	if (!w.enabled)
		return;
	/* Drop everything that belongs to the parent's file: its descriptor,
	 * its buffered events and the record of what it defines. */
	if (w.out.fd >= 0)
		close(w.out.fd);
	w.out.fd = -1;
	w.out.len = 0;
	w.out.error = 0;
	w.out.written = 0;
	atomic_store(&w.io_error, 0);
	spin_unlock(&w.io_lock);
	memset(w.stack_defined, 0, w.stacks->max_entries / 8 + 1);
	w.none_defined = 0;
	w.modules_defined = 0;
	w.strings_defined[STRINGS_FILES] = 0;
	w.strings_defined[STRINGS_FUNCTIONS] = 0;
	w.definition_words = 0;
	w.part[0] = '\0';
	w.create_failed = 0;
	w.descendant = 1;
	w.pid = getpid();
	w.first_rate = w.rate;
	atomic_store(&w.events, 0);
	atomic_store(&w.dropped, 0);
	reset_clock();
	w.enabled = keep_recording;
	unlock();
}
