/* writer.c - the streamed and the final .mlyze profile (see writer.h). */
#include "config.h"

#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "control_notes.h"
#include "event_stream.h"
#include "frames.h"
#include "mlyze-codec.h"
#include "modules.h"
#include "names.h"
#include "outbuf.h"
#include "process_memory.h"
#include "profile_assembly.h"
#include "profile_files.h"
#include "profile_meta.h"
#include "rawmem.h"
#include "run_totals.h"
#include "sampler.h"
#include "spinlock.h"
#include "thread_names.h"

#define LOCK_WAIT_NS 10000000ull
#define FREES_LATER_MAX 64
/* Larger than any single event or definition (a MODULE definition
 * carries one path, a STRING one name of at most 4 KiB). */
#define EVENT_ROOM (PATH_MAX + 1024)

/* What every event writes shares the lock's cache line, so that threads
 * taking turns pass one line along; what every event only reads comes
 * next, and stays in each CPU's cache. */
static struct {
	_Atomic int lock;
	uint8_t enabled;
	uint8_t finalised;
	uint8_t created;        /* the streamed file exists */
	uint8_t create_failed;
	uint64_t last_us;
	_Atomic uint64_t events;
	struct event_stream stream;
	uint64_t start_mono_ns;
	_Atomic uint64_t dropped;
	int stream_failure_told;
	uint8_t *stack_defined; /* bitmap: stack defined in this file */
	int none_defined;       /* the empty stack of STACK_ID_NONE */
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
	pid_t pid;            /* the process this writer belongs to */
	struct profile_files files;
	/* Checkpoints (settings->max_size): none when max_size is 0. */
	uint64_t max_size;
	uint64_t checkpoint_at; /* stream offset that starts the next one */
	uint64_t checkpoints;   /* written so far */
	int limit_raised_told;
	struct heap_map *heap, *in_place;
	struct run_totals totals;
	/* Why this recording window started, and why it is ending (see
	 * profile_meta.h); NULL: with the process. */
	const char *started_by, *ended_by;
	char finished[PATH_MAX]; /* the last profile published, or "" */
} w __attribute__((aligned(64)));

/* The names of a snapshot: the stream's, with another final name. */
static struct profile_files snapshot_files;

/* Frees to be written by the next event (writer_free_later): slots, and
 * how many are taken, which every event reads and a free rarely writes. */
static struct {
	_Atomic int count;
	_Atomic uintptr_t blocks[FREES_LATER_MAX];
} later __attribute__((aligned(64)));

_Static_assert(offsetof(__typeof__(w), stream.end) + sizeof(w.stream.end) <=
		       64,
	       "what every event writes fits in the lock's cache line");

static void lock(void)
{
	spin_lock(&w.lock);
}

/* Lets go of the lock, then does what the stream left to do (unmapping
 * a window left behind, faulting pages in ahead of it), so that other
 * threads need not wait for it. */
static void unlock(void)
{
	struct stream_chores chores = stream_take_chores(&w.stream);

	spin_unlock(&w.lock);
	if (!chores.unmap && !chores.populate)
		return;
	stream_do_chores(&chores);
	if (chores.populate) { /* the window stays mapped until this */
		spin_lock(&w.lock);
		stream_chores_done(&w.stream, &chores);
		spin_unlock(&w.lock);
	}
}

void writer_stand_aside(void)
{
	w.enabled = 0;
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
}

int writer_configure(const struct runtime_config *s, struct stack_table *t,
		     struct heap_map *heap, struct heap_map *in_place,
		     uint64_t sampling_rate, int descendant)
{
	w.stack_defined = rawmem_map(t->max_entries / 8 + 1);
	if (!w.stack_defined || strings_init() < 0 ||
	    (s->max_size && run_totals_init(&w.totals, t->max_entries) < 0)) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(w.files.pattern, s->output, sizeof(w.files.pattern));
	memcpy(w.files.manifest, s->manifest, sizeof(w.files.manifest));
	w.files.descendant = descendant;
	w.stacks = t;
	w.heap = heap;
	w.in_place = in_place;
	w.max_size = w.checkpoint_at = s->max_size;
	w.first_rate = w.rate = sampling_rate;
	w.pid = getpid();
	reset_clock();
	modules_refresh();
	w.enabled = 1;
	return 0;
}

/* ---- pieces of the stream ------------------------------------------- */

/* Says once why recording stopped; later events are dropped. */
static void tell_stream_failure(void)
{
	const char *why = w.stream.error == ESTALE
				  ? "the file was removed or replaced"
				  : error_text(w.stream.error);

	if (w.stream_failure_told)
		return;
	w.stream_failure_told = 1;
	runtime_message("cannot write the profile %s (%s); recording stopped",
			w.files.part, why);
	profile_files_announce(&w.files, 'E', why);
}

/* Where the next piece of the stream (an event or a definition, at most
 * EVENT_ROOM bytes) is encoded, or NULL once the stream has failed. */
static uint8_t *piece_start(void)
{
	uint8_t *p = stream_room(&w.stream, EVENT_ROOM);

	if (!p)
		tell_stream_failure();
	return p;
}

/* Commits the piece encoded since piece_start(), up to end. */
static void piece_end(const uint8_t *end)
{
	stream_commit(&w.stream, end);
}

/* The encoders below write one field at p and return where the next one
 * goes: a piece is encoded straight into the stream and committed once. */
static uint8_t *encode_varint(uint8_t *p, uint64_t v)
{
	return p + mlyze_put_varint(p, v);
}

static uint8_t *encode_le(uint8_t *p, uint64_t v, size_t bytes)
{
	mlyze_put_le(p, v, bytes);
	return p + bytes;
}

static uint8_t *encode_bytes(uint8_t *p, const void *data, size_t n)
{
	memcpy(p, data, n);
	return p + n;
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
 * the microseconds since the last event.  Returns where its fields go
 * (piece_end() ends it), or NULL when it is dropped.*/
static uint8_t *put_event_at(unsigned type, uint64_t now_ns)
{
	uint64_t now = (now_ns - w.start_mono_ns) / 1000;
	uint64_t delta = now > w.last_us ? now - w.last_us : 0;
	uint8_t *p = piece_start();

	if (!p) {
		count_locked(&w.dropped);
		return NULL;
	}
	w.last_us += delta;
	count_locked(&w.events);
	*p = (uint8_t)type;
	return encode_varint(p + 1, delta);
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
 * the event that needs them, and finalisation removes them.  Returns
 * where their payload of payload_len bytes goes, or NULL; the caller
 * ends the piece with end_definition(). */
static uint8_t *start_definition(unsigned type, uint64_t payload_len)
{
	uint8_t *p = piece_start();

	if (!p)
		return NULL;
	*p = (uint8_t)type;
	p = encode_varint(p + 1, 0);
	return encode_varint(p, payload_len);
}

static void end_definition(const uint8_t *end)
{
	uint64_t start = w.stream.end;

	piece_end(end);
	note_definition(start, w.stream.end);
}

static void define_modules(void)
{
	uint32_t count = modules_count();

	for (; w.modules_defined < count; w.modules_defined++) {
		const struct module *m = modules_get(w.modules_defined);
		size_t path_len = strlen(m->path);
		uint8_t *p;

		p = start_definition(
			MLYZE_EVENT_MODULE,
			mlyze_varint_len(w.modules_defined) +
				mlyze_varint_len(m->start) +
				mlyze_varint_len(m->end) +
				mlyze_varint_len(m->load_bias) +
				mlyze_varint_len(m->build_id_len) +
				m->build_id_len + mlyze_varint_len(path_len) +
				path_len);
		if (!p)
			return;
		p = encode_varint(p, w.modules_defined);
		p = encode_varint(p, m->start);
		p = encode_varint(p, m->end);
		p = encode_varint(p, m->load_bias);
		p = encode_varint(p, m->build_id_len);
		p = encode_bytes(p, m->build_id, m->build_id_len);
		p = encode_varint(p, path_len);
		end_definition(encode_bytes(p, m->path, path_len));
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
			uint8_t *p;

			p = start_definition(MLYZE_EVENT_STRING,
					     1 + mlyze_varint_len(id) +
						     mlyze_varint_len(len) +
						     len);
			if (!p)
				return;
			p = encode_varint(p, t == STRINGS_FILES
						     ? MLYZE_STRINGS_FILES
						     : MLYZE_STRINGS_FUNCTIONS);
			p = encode_varint(p, id);
			p = encode_varint(p, len);
			end_definition(encode_bytes(p, s, len));
		}
	}
}

/* The STACK payload bytes of one frame (kind + fields). */
static size_t frame_payload_len(uint64_t f)
{
	if (!frame_is_script(f))
		return 1 + mlyze_varint_len(f);
	return 1 + mlyze_varint_len(script_frame_file(f)) +
	       mlyze_varint_len(script_frame_function(f)) +
	       mlyze_varint_len(script_frame_line(f));
}

static uint8_t *encode_frame(uint8_t *p, uint64_t f)
{
	if (!frame_is_script(f)) {
		p = encode_varint(p, MLYZE_FRAME_NATIVE);
		return encode_varint(p, f);
	}
	p = encode_varint(p, MLYZE_FRAME_PYTHON);
	p = encode_varint(p, script_frame_file(f));
	p = encode_varint(p, script_frame_function(f));
	return encode_varint(p, script_frame_line(f));
}

/* Defines stack id, after the modules and names it refers to; 0 when it
 * is in the stream. */
static int define_stack(uint32_t id)
{
	const struct stack_entry *e = stack_table_get(w.stacks, id);
	uint32_t depth = e ? e->depth : 0;
	uint8_t *p;
	uint64_t len;

	define_modules();
	define_strings();
	len = mlyze_varint_len(id) + mlyze_varint_len(depth);
	for (uint32_t i = 0; i < depth; i++)
		len += frame_payload_len(e->frames[i]);
	p = start_definition(MLYZE_EVENT_STACK, len);
	if (!p)
		return -1;
	p = encode_varint(p, id);
	p = encode_varint(p, depth);
	for (uint32_t i = 0; i < depth; i++)
		p = encode_frame(p, e->frames[i]);
	end_definition(p);
	return 0;
}

/* The bitmap is written under the lock, and read without it to tell
 * whether a stack may need its modules listed. */
static int stack_defined(uint32_t id)
{
	return (__atomic_load_n(&w.stack_defined[id / 8], __ATOMIC_RELAXED) >>
		(id % 8)) & 1;
}

static void ensure_stack_defined(uint32_t id)
{
	if (id == STACK_ID_NONE) {
		if (!w.none_defined && define_stack(id) == 0)
			w.none_defined = 1;
	} else if (!stack_defined(id) && define_stack(id) == 0) {
		__atomic_fetch_or(&w.stack_defined[id / 8],
				  (uint8_t)(1u << (id % 8)), __ATOMIC_RELAXED);
	}
}

/* Starts an event of a type that carries its payload's length (>= 4,
 * not a definition); returns where the payload goes, or NULL. */
static uint8_t *put_sized_event_at(unsigned type, uint64_t now_ns,
				   uint64_t payload_len)
{
	uint8_t *p = put_event_at(type, now_ns);

	return p ? encode_varint(p, payload_len) : NULL;
}

static void put_rate_event_at(uint64_t now_ns)
{
	uint8_t *p = put_sized_event_at(MLYZE_EVENT_RATE, now_ns,
					mlyze_varint_len(w.rate));

	if (p)
		piece_end(encode_varint(p, w.rate));
}

/* A stack not yet in the file may have frames in a library loaded since
 * the modules were listed: they are listed again before the lock is
 * taken (see modules_refresh), so that the stack's definition follows
 * theirs. */
static void list_modules_of(uint32_t id)
{
	const struct stack_entry *e;

	if (!w.enabled || id == STACK_ID_NONE || stack_defined(id) ||
	    !(e = stack_table_get(w.stacks, id)))
		return;
	for (uint32_t i = 0; i < e->depth; i++)
		if (!frame_is_script(e->frames[i]) &&
		    modules_find(e->frames[i]) < 0) {
			modules_refresh();
			return;
		}
}

static void put_rate_event(void)
{
	put_rate_event_at(monotonic_ns());
}

/* A reading of the process's memory (process_memory.h): resident and
 * anonymous bytes, and the most resident so far, so that the report can
 * say how much of it the malloc heap explains. */
static void put_memory_event(const struct process_memory *m, uint64_t now_ns)
{
	uint8_t *p = put_event_at(MLYZE_EVENT_MEMORY, now_ns);

	if (!p)
		return;
	p = encode_varint(p, mlyze_varint_len(m->resident) +
				     mlyze_varint_len(m->anonymous) +
				     mlyze_varint_len(m->resident_peak));
	p = encode_varint(p, m->resident);
	p = encode_varint(p, m->anonymous);
	piece_end(encode_varint(p, m->resident_peak));
}

/* The name of thread `tid` from now on: the kernel's bytes as they are
 * (any but NUL; readers repair what is not UTF-8). */
static void put_thread_event(uint32_t tid, const char *name, int length,
			     uint64_t now_ns)
{
	uint8_t *p = put_sized_event_at(
		MLYZE_EVENT_THREAD, now_ns,
		mlyze_varint_len(tid) + mlyze_varint_len((uint64_t)length) +
			(uint64_t)length);

	if (!p) {
		thread_name_lost();
		return;
	}
	p = encode_varint(p, tid);
	p = encode_varint(p, (uint64_t)length);
	piece_end(encode_bytes(p, name, (size_t)length));
}

/* The last reading, when the profile ends. */
static void put_memory_now(void)
{
	struct process_memory m;

	if (process_memory_read(&m) == 0)
		put_memory_event(&m, monotonic_ns());
}

/* ---- the streamed file ------------------------------------------------ */

static struct profile_meta identity(void)
{
	return (struct profile_meta){ .sampling_rate = w.first_rate,
				      .start_wall_us = w.start_wall_us,
				      .started_by = w.started_by };
}

/* Writes the streamed file's prologue; where its events start goes to
 * w.events_offset. */
static int write_prologue(int fd)
{
	uint8_t buffer[4096];
	struct profile_meta meta = identity();
	struct outbuf prologue;
	int err;

	outbuf_init(&prologue, fd, buffer, sizeof(buffer));
	err = meta_write_prologue(&prologue, &meta, 0);
	w.events_offset = prologue.written;
	return err;
}

/* Writes the streamed file's prologue and starts its event stream; the
 * descriptor is closed again before the program sees it. */
static int start_stream(int fd, const char *path)
{
	int err = write_prologue(fd);

	return err ? err : stream_open(&w.stream, fd, path, w.events_offset);
}

/* The file open on fd, opened again by its name: a mapping shows the
 * name it was opened by (an unnamed file's stays "/dir/#123 (deleted)"
 * after it is linked), and programs find their stream by it
 * (/proc/self/maps).  fd is closed; the new descriptor, or fd itself
 * when the name no longer leads to the same file. */
static int reopen_by_name(int fd, const char *path)
{
	struct stat unnamed;
	int again = fstat(fd, &unnamed) == 0
			    ? stream_open_same_file(path, unnamed.st_dev,
						    unnamed.st_ino)
			    : -1;

	if (again < 0)
		return fd;
	close(fd);
	return again;
}

/* The streamed file, named and holding its prologue: written while the
 * file has no name yet where the file system allows it, so that a
 * process killed at any moment leaves no .part without its header; else
 * created by name (by memprof-wrap when this process may not) and
 * written then.  Its descriptor, or -1 with errno set. */
static int create_with_prologue(void)
{
	int fd = profile_files_open_unnamed_part(&w.files), err;

	if (fd >= 0) {
		err = write_prologue(fd);
		if (!err && profile_files_name_part(&w.files, fd) == 0)
			return reopen_by_name(fd, w.files.part);
		close(fd);
	}
	fd = profile_files_create_part(&w.files);
	if (fd < 0 && (errno == EACCES || errno == EPERM) &&
	    profile_files_can_hand_over(&w.files))
		fd = profile_files_create_part_by_wrap(&w.files);
	if (fd < 0)
		return -1;
	if ((err = write_prologue(fd)) != 0) {
		close(fd);
		unlink(w.files.part);
		errno = err;
		return -1;
	}
	return fd;
}

/* Creates the streamed file; 0 when it is ready. */
static int create_file(void)
{
	int fd, err;

	if (w.create_failed)
		return -1;
	fd = create_with_prologue();
	err = fd < 0 ? errno
		     : stream_open(&w.stream, fd, w.files.part,
				   w.events_offset);
	if (fd >= 0)
		close(fd);
	if (err) {
		if (fd >= 0)
			unlink(w.files.part);
		runtime_message("cannot create the profile %s: %s",
				w.files.part[0] ? w.files.part
						: w.files.pattern,
				error_text(err));
		w.create_failed = 1;
		return -1;
	}
	w.created = 1;
	profile_files_announce_start(&w.files);
	control_note_part(w.files.part);
	define_modules();
	put_rate_event();
	return 0;
}

/* ---- checkpoints -------------------------------------------------------- */

/* Forgets what the stream defined, for a new file that defines it anew. */
static void forget_definitions(void)
{
	memset(w.stack_defined, 0, w.stacks->max_entries / 8 + 1);
	w.none_defined = 0;
	w.modules_defined = 0;
	w.strings_defined[STRINGS_FILES] = 0;
	w.strings_defined[STRINGS_FUNCTIONS] = 0;
	w.definition_words = 0;
	w.definitions_lost = 0;
}

static uint64_t microseconds_since_start(uint64_t mono_ns)
{
	return mono_ns > w.start_mono_ns ? (mono_ns - w.start_mono_ns) / 1000
					 : 0;
}

static size_t sum_payload_len(const struct run_sum *sum)
{
	return mlyze_varint_len(sum->samples) + 4 * 8;
}

static uint8_t *encode_sum(uint8_t *p, const struct run_sum *sum)
{
	p = encode_varint(p, sum->samples);
	p = encode_le(p, mlyze_double_bits(sum->bytes), 8);
	p = encode_le(p, mlyze_double_bits(sum->bytes_variance), 8);
	p = encode_le(p, mlyze_double_bits(sum->count), 8);
	return encode_le(p, mlyze_double_bits(sum->count_variance), 8);
}

static void put_checkpoint_event(uint64_t now_ns, uint64_t events_before)
{
	uint8_t *p = put_sized_event_at(
		MLYZE_EVENT_CHECKPOINT, now_ns,
		mlyze_varint_len(w.checkpoints + 1) +
			mlyze_varint_len(events_before));

	if (!p)
		return;
	p = encode_varint(p, w.checkpoints + 1);
	piece_end(encode_varint(p, events_before));
}

static void put_heap_points(uint64_t now_ns)
{
	for (uint32_t i = 0; i < w.totals.point_count; i++) {
		const struct run_point *point = &w.totals.points[i];
		uint8_t *p = put_sized_event_at(
			MLYZE_EVENT_HEAP_POINT, now_ns,
			mlyze_varint_len(point->time_us) +
				sum_payload_len(&point->live));

		if (!p)
			return;
		p = encode_varint(p, point->time_us);
		piece_end(encode_sum(p, &point->live));
	}
}

static void put_stack_totals(uint32_t id, uint64_t now_ns)
{
	const struct run_sum *sum = run_totals_of(&w.totals, id);
	uint8_t *p;

	if (!sum->samples)
		return;
	ensure_stack_defined(id);
	p = put_sized_event_at(MLYZE_EVENT_TOTALS, now_ns,
			       mlyze_varint_len(id) + sum_payload_len(sum));
	if (p)
		piece_end(encode_sum(encode_varint(p, id), sum));
}

/* What the LIVE events of a checkpoint share. */
struct live_walk {
	uint64_t now_ns;
	struct run_sum live; /* the live heap they add up to */
};

static void put_live_block(void *ctx, uintptr_t address,
			   const struct heap_record *r)
{
	struct live_walk *walk = ctx;
	uint64_t born_us = microseconds_since_start(r->timestamp_ns);
	struct estimator_weight weight;
	uint8_t *p;

	if (!r->sampling_rate) /* a record kept for the pool, not a sample */
		return;
	ensure_stack_defined(r->stack_id);
	p = put_sized_event_at(MLYZE_EVENT_LIVE, walk->now_ns,
			       8 + mlyze_varint_len(r->size) +
				       mlyze_varint_len(r->sampling_rate) +
				       mlyze_varint_len(r->stack_id) + 2 +
				       mlyze_varint_len(born_us));
	if (!p)
		return;
	p = encode_le(p, address, 8);
	p = encode_varint(p, r->size);
	p = encode_varint(p, r->sampling_rate);
	p = encode_varint(p, r->stack_id);
	p = encode_le(p, r->thread_id & 0xffff, 2);
	piece_end(encode_varint(p, born_us));
	weight = estimator_weigh(r->size, r->sampling_rate);
	run_sum_add(&walk->live, &weight);
}

/* The checkpoint itself, at the start of a new file. */
static void write_checkpoint(uint64_t now_ns, uint64_t events_before)
{
	struct live_walk walk = { .now_ns = now_ns };
	uint32_t stacks = stack_table_count(w.stacks);

	define_modules();
	put_checkpoint_event(now_ns, events_before);
	put_rate_event_at(now_ns); /* every event of it at the same moment */
	put_heap_points(now_ns);
	for (uint32_t id = 0; id < stacks; id++)
		put_stack_totals(id, now_ns);
	put_stack_totals(STACK_ID_NONE, now_ns);
	heap_map_for_each(w.heap, put_live_block, &walk);
	heap_map_for_each(w.in_place, put_live_block, &walk);
	run_totals_add_point(&w.totals,
			     &(struct run_point){
				     .time_us = microseconds_since_start(now_ns),
				     .live = walk.live });
}

/* The next checkpoint once the file is this large: at the limit, or at
 * twice the checkpoint just written when that is larger. */
static void plan_next_checkpoint(void)
{
	uint64_t size = w.stream.end;

	w.checkpoint_at = w.max_size;
	if (size > w.max_size / 2) {
		w.checkpoint_at = 2 * size;
		if (!w.limit_raised_told)
			runtime_message("the sampled blocks live in %s take %llu "
					"bytes, more than half its size limit; "
					"it grows to twice that",
					w.files.part, (unsigned long long)size);
		w.limit_raised_told = 1;
	}
}

/* Names tried for a checkpoint's new file when others hold the first. */
#define CHECKPOINT_NAMES 8

/* The new file of a checkpoint of the streamed file `path`: "<path>.next",
 * or "<path>.next1"... when a name is held by a file this process may not
 * remove (another user's, in a directory others may write in), so that
 * planting one does not stop the recording.  Its name goes to next; its
 * descriptor, or -1 with errno set. */
static int create_checkpoint_file(const char *path, char *next, size_t size)
{
	int fd = -1;

	errno = EEXIST;
	for (unsigned k = 0; k < CHECKPOINT_NAMES && fd < 0 && errno == EEXIST;
	     k++) {
		int n = k == 0 ? snprintf(next, size, "%s.next", path)
			       : snprintf(next, size, "%s.next%u", path, k);

		if (n < 0 || (size_t)n >= size) {
			errno = ENAMETOOLONG;
			return -1;
		}
		fd = profile_files_create_fresh(next);
	}
	return fd;
}

/* Starts a new streamed file with a checkpoint, and puts it in place of
 * the old one, which holds every event until the rename. */
static void checkpoint(void)
{
	char path[PATH_MAX], next[PATH_MAX];
	uint64_t now_ns = monotonic_ns();
	uint64_t events_before = atomic_load(&w.events);
	int fd, err = 0;

	memcpy(path, w.stream.path, sizeof(path));
	fd = create_checkpoint_file(path, next, sizeof(next));
	if (fd < 0) {
		w.stream.error = errno;
		tell_stream_failure();
		return;
	}
	stream_close(&w.stream);
	forget_definitions();
	w.last_us = 0; /* the new file counts from its start time again */
	err = start_stream(fd, next);
	close(fd);
	if (!err) {
		write_checkpoint(now_ns, events_before);
		err = w.stream.error;
	}
	if (!err)
		err = stream_rename(&w.stream, path);
	if (err) {
		unlink(next);
		w.stream.error = err;
		tell_stream_failure();
		return;
	}
	w.checkpoints++;
	thread_names_restart(); /* the names went with the old file */
	plan_next_checkpoint();
}

int writer_free_later(uintptr_t address)
{
	for (unsigned i = 0; i < FREES_LATER_MAX; i++) {
		uintptr_t empty = 0;

		if (atomic_compare_exchange_strong(&later.blocks[i], &empty,
						   address)) {
			atomic_fetch_add(&later.count, 1);
			return 0;
		}
	}
	return -1;
}

static void put_free_at(uintptr_t address, uint64_t now_ns)
{
	uint8_t *p = put_event_at(MLYZE_EVENT_FREE, now_ns);

	if (p)
		piece_end(encode_le(p, address, 8));
}

/* With the lock held: writes the frees waiting in `later`. */
static void put_frees_later(void)
{
	if (!atomic_load_explicit(&later.count, memory_order_acquire))
		return;
	for (unsigned i = 0; i < FREES_LATER_MAX; i++) {
		uintptr_t address = atomic_exchange(&later.blocks[i], 0);

		if (address) {
			atomic_fetch_sub(&later.count, 1);
			put_free_at(address, monotonic_ns());
		}
	}
}

/* Takes the lock and makes the file ready; 0 when the caller may write
 * an event (and must then unlock). */
static int begin_event(void)
{
	if (!w.enabled)
		return -1;
	lock();
	if (w.finalised || (!w.created && create_file() < 0)) {
		atomic_fetch_add_explicit(&w.dropped, 1, memory_order_relaxed);
		unlock();
		return -1;
	}
	put_frees_later();
	if (w.max_size && w.stream.end >= w.checkpoint_at && !w.stream.error)
		checkpoint();
	return 0;
}

/* A few times a second, a sample brings a reading of the process's
 * memory along, read before the lock so that no thread waits for it:
 * 1 with *memory filled when one is due. */
static int memory_reading_due(uint64_t now_ns, struct process_memory *memory)
{
	return w.enabled && process_memory_due(now_ns) &&
	       process_memory_read(memory) == 0;
}

/* begin_event() for a sample taken at now_ns with stack_id, in the
 * thread that allocates or maps: the stack is defined, and a reading of
 * memory and the thread's name, when due, come first. */
static int begin_sample(uint32_t stack_id, uint64_t now_ns)
{
	struct process_memory memory;
	char name[MLYZE_THREAD_NAME_MAX];
	int measured = memory_reading_due(now_ns, &memory);
	/* The thread's name, read before the lock too, when it is new. */
	int named = w.enabled ? thread_name_due(now_ns, name) : -1;

	list_modules_of(stack_id);
	if (begin_event() < 0) {
		if (named >= 0)
			thread_name_lost();
		return -1;
	}
	if (measured)
		put_memory_event(&memory, now_ns);
	if (named >= 0)
		put_thread_event(sampler_thread_id(), name, named, now_ns);
	ensure_stack_defined(stack_id);
	return 0;
}

void writer_alloc(uintptr_t address, const struct heap_record *r)
{
	/* Weighed before the lock, which is held the less. */
	struct estimator_weight weight =
		w.max_size ? estimator_weigh(r->size, r->sampling_rate)
			   : (struct estimator_weight){ 0 };
	uint8_t *p;

	if (begin_sample(r->stack_id, r->timestamp_ns) < 0)
		return;
	p = put_event_at(MLYZE_EVENT_ALLOC, r->timestamp_ns);
	if (p) {
		p = encode_le(p, address, 8);
		p = encode_varint(p, r->size);
		p = encode_varint(p, r->stack_id);
		piece_end(encode_le(p, r->thread_id & 0xffff, 2));
		if (w.max_size)
			run_sum_add(run_totals_of(&w.totals, r->stack_id),
				    &weight);
	}
	unlock();
}

void writer_map(const struct sampled_mapping *m, int remainder)
{
	uint8_t *p;

	if (begin_sample(m->stack_id, m->timestamp_ns) < 0)
		return;
	p = put_sized_event_at(MLYZE_EVENT_MAP, m->timestamp_ns,
			       8 + mlyze_varint_len(m->length) +
				       mlyze_varint_len(m->sampling_rate) +
				       mlyze_varint_len(m->stack_id) + 2 + 1);
	if (p) {
		p = encode_le(p, m->start, 8);
		p = encode_varint(p, m->length);
		p = encode_varint(p, m->sampling_rate);
		p = encode_varint(p, m->stack_id);
		p = encode_le(p, m->thread_id & 0xffff, 2);
		piece_end(encode_varint(p, remainder ? 1 : 0));
	}
	unlock();
}

void writer_unmap(uintptr_t start, uint64_t length)
{
	uint64_t now_ns = monotonic_ns(); /* before the lock, held the less */
	uint8_t *p;

	if (begin_event() < 0)
		return;
	p = put_sized_event_at(MLYZE_EVENT_UNMAP, now_ns,
			       8 + mlyze_varint_len(length));
	if (p) {
		p = encode_le(p, start, 8);
		piece_end(encode_varint(p, length));
	}
	unlock();
}

void writer_free(uintptr_t address)
{
	uint64_t now_ns = monotonic_ns(); /* before the lock, held the less */

	if (begin_event() < 0)
		return;
	put_free_at(address, now_ns);
	unlock();
}

void writer_rate(uint64_t sampling_rate)
{
	if (begin_event() < 0)
		return;
	if (w.rate != sampling_rate) {
		w.rate = sampling_rate;
		put_rate_event();
	}
	unlock();
}

void writer_gc(uint64_t objects, uint64_t bytes)
{
	uint8_t *p;

	if (begin_event() < 0)
		return;
	p = put_event_at(MLYZE_EVENT_GC, monotonic_ns());
	if (p) {
		p = encode_varint(p, objects);
		piece_end(encode_varint(p, bytes));
	}
	unlock();
}

int writer_marker(const char *name)
{
	uint8_t *p;
	uint32_t id;

	if (begin_event() < 0)
		return -1;
	id = strings_intern(STRINGS_FUNCTIONS, name, strlen(name));
	if (id == STRING_ID_NONE) {
		unlock();
		errno = ENOSPC;
		return -1;
	}
	define_strings();
	p = put_event_at(MLYZE_EVENT_MARKER, monotonic_ns());
	if (p)
		piece_end(encode_varint(p, id));
	unlock();
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

/* For a process that may no longer create files in the directory (it
 * changed its user): the final file, written into memory, goes to
 * memprof-wrap, which publishes it and removes the streamed one; final is
 * then "". */
static int hand_over(const struct streamed_events *events,
		     const struct profile_meta *meta, char *final)
{
	int fd = memfd_create("spprof-profile", MFD_CLOEXEC);
	int err;

	if (fd < 0)
		return errno;
	err = profile_assemble_into(fd, events, meta);
	if (!err)
		err = profile_files_hand_over(&w.files, fd);
	close(fd);
	final[0] = '\0';
	return err;
}

/* The final file of the events so far, published after files->base. */
static int assemble_events(const memprof_stats *stats,
			   const char *exec_program,
			   const struct profile_files *files, char *final,
			   size_t size)
{
	struct profile_meta meta = identity();
	struct streamed_events events = {
		.start = w.events_offset,
		.definitions = w.definitions,
		.definition_words = w.definition_words,
	};
	int err;

	if (w.definitions_lost)
		return ENOMEM;
	meta.stacks = w.stacks;
	meta.stack_defined = w.stack_defined;
	meta.none_defined = w.none_defined;
	meta.stats = stats;
	meta.exec_program = exec_program;
	meta.ended_by = w.ended_by;
	events.end = w.stream.end;
	events.fd = stream_reopen(&w.stream);
	if (events.fd < 0)
		return errno;
	err = profile_assemble(&events, &meta, files, final, size);
	/* Only the profile itself, not a snapshot, goes to memprof-wrap. */
	if ((err == EACCES || err == EPERM) && files == &w.files &&
	    profile_files_can_hand_over(&w.files))
		err = hand_over(&events, &meta, final);
	close(events.fd);
	return err;
}

static int assemble(const memprof_stats *stats, const char *exec_program,
		    char *final, size_t size)
{
	int err = stream_close(&w.stream);

	return err ? err : assemble_events(stats, exec_program, &w.files,
					   final, size);
}

static void finalise_locked(const memprof_stats *stats,
			    const char *exec_program)
{
	char final[PATH_MAX];
	memprof_stats counted;
	sigset_t all, before;
	int err;

	/* A signal now (a pool terminating its workers) would leave a half
	 * assembled file behind: it waits the few milliseconds this takes. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &before);

	/* The first process always leaves a profile, even an empty one; a
	 * descendant that sampled nothing (a shell, a wrapper) leaves none,
	 * only its name in the manifest, nor does an image replaced by exec
	 * before it recorded anything (its new image says for itself). */
	if (!w.finalised && !w.created && w.files.descendant && !exec_program &&
	    !w.create_failed)
		profile_files_announce_unsampled(&w.files, meta_process_name());
	if (!w.finalised &&
	    (w.created || (!w.files.descendant && !exec_program)) &&
	    (w.created || create_file() == 0)) {
		put_frees_later();
		put_memory_now();
		/* The statistics count the events just written too. */
		counted = *stats;
		counted.events_written = atomic_load(&w.events);
		if (exec_program)
			profile_files_announce(&w.files, 'X', exec_program);
		err = assemble(&counted, exec_program, final, sizeof(final));
		if (!err && final[0]) {
			unlink(w.files.part);
			profile_files_announce(&w.files, 'F', final);
			memcpy(w.finished, final, sizeof(w.finished));
			control_note_finished(final);
		} else if (err) {
			stream_trim(&w.stream); /* it stays: no zero tail */
		}
		if (err && !w.stream_failure_told) {
			runtime_message("cannot write the profile (%s); the "
					"streamed data stays in %s",
					error_text(err), w.files.part);
			profile_files_announce(&w.files, 'W', error_text(err));
		}
	}
	w.finalised = 1;
	pthread_sigmask(SIG_SETMASK, &before, NULL);
}

void writer_finalise(const memprof_stats *stats)
{
	if (!w.enabled)
		return;
	lock();
	finalise_locked(stats, NULL);
	unlock();
}

int writer_recording(void)
{
	return w.enabled && !w.finalised;
}

int writer_finish_window(const memprof_stats *stats, const char *ended_by,
			 char *final, size_t size)
{
	int err;

	if (!writer_recording())
		return ENOTCONN;
	lock();
	w.ended_by = ended_by;
	w.finished[0] = '\0';
	finalise_locked(stats, NULL);
	err = w.finished[0] ? 0 : EIO;
	snprintf(final, size, "%s", w.finished);
	unlock();
	return err;
}

/* The snapshot's name: the streamed file's, "NAME.mlyze.part", as
 * "NAME.snapshot.mlyze". */
static int snapshot_base(char *base, size_t size)
{
	static const char part[] = ".part", ext[] = ".mlyze";
	size_t n = strlen(w.files.part);

	if (n >= sizeof(part) - 1 &&
	    !strcmp(w.files.part + n - (sizeof(part) - 1), part))
		n -= sizeof(part) - 1;
	if (n >= sizeof(ext) - 1 &&
	    !strncmp(w.files.part + n - (sizeof(ext) - 1), ext,
		     sizeof(ext) - 1))
		n -= sizeof(ext) - 1;
	if (n + sizeof(".snapshot.mlyze") > size)
		return ENAMETOOLONG;
	memcpy(base, w.files.part, n);
	strcpy(base + n, ".snapshot.mlyze");
	return 0;
}

int writer_snapshot(const memprof_stats *stats, char *final, size_t size)
{
	int err;

	if (!writer_recording())
		return ENOTCONN;
	lock();
	if (!w.created && create_file() < 0) {
		unlock();
		return EIO;
	}
	put_frees_later();
	snapshot_files = w.files;
	err = snapshot_base(snapshot_files.base, sizeof(snapshot_files.base));
	if (!err) {
		w.ended_by = "snapshot";
		err = assemble_events(stats, NULL, &snapshot_files, final,
				      size);
		w.ended_by = NULL;
	}
	unlock();
	return err;
}

/* Takes the lock unless it stays held for LOCK_WAIT_NS: then the thread
 * holding it is likely the one a signal handler interrupted, this one. */
static int lock_briefly(void)
{
	uint64_t deadline = 0;

	while (!spin_trylock(&w.lock)) {
		if (!deadline)
			deadline = monotonic_ns() + LOCK_WAIT_NS;
		else if (monotonic_ns() > deadline)
			return 0;
		sched_yield();
	}
	return 1;
}

void writer_finish_now(const memprof_stats *stats, const char *exec_program)
{
	/* A vfork() child shares our memory: its _exit() or exec is not ours.
	 * Rather than wait for ever, leave the streamed file as it is. */
	if (!w.enabled || getpid() != w.pid || !lock_briefly())
		return;
	finalise_locked(stats, exec_program);
	unlock();
}

void writer_before_id_change(uid_t uid, gid_t gid)
{
	if (!w.enabled || getpid() != w.pid)
		return;
	lock();
	if (!w.finalised && (w.created || create_file() == 0)) {
		/* By the descriptor of the very file, never by its name,
		 * which others who may write in the directory could make a
		 * link. */
		int fd = stream_reopen(&w.stream);

		if (fd >= 0 && fchown(fd, uid, gid) < 0) {
			/* Not privileged: the file stays the caller's. */
		}
		if (fd >= 0)
			close(fd);
	}
	unlock();
}

/* Forgets everything that belongs to the file written so far, so that
 * the next event starts a new one. */
static void start_over(void)
{
	stream_forget(&w.stream);
	forget_definitions();
	if (w.max_size)
		run_totals_clear(&w.totals);
	w.checkpoint_at = w.max_size;
	w.checkpoints = 0;
	w.limit_raised_told = 0;
	w.files.part[0] = '\0';
	w.created = 0;
	w.create_failed = 0;
	w.finalised = 0;
	w.stream_failure_told = 0;
	w.first_rate = w.rate;
	for (unsigned i = 0; i < FREES_LATER_MAX; i++)
		atomic_store(&later.blocks[i], 0); /* frees of the old file's */
	atomic_store(&later.count, 0);
	atomic_store(&w.events, 0);
	atomic_store(&w.dropped, 0);
	process_memory_reset(); /* the new file starts with a reading */
	thread_names_restart(); /* and with the threads' names */
	reset_clock();
}

int writer_restart(const char *pattern, const char *started_by)
{
	if (!w.enabled)
		return ENOTCONN;
	if (w.created && !w.finalised)
		return EALREADY;
	if (strlen(pattern) >= sizeof(w.files.pattern))
		return ENAMETOOLONG;
	lock();
	if (w.created || w.finalised)
		start_over();
	strcpy(w.files.pattern, pattern);
	w.started_by = started_by;
	w.ended_by = NULL;
	unlock();
	return 0;
}

int writer_begin(char *name, size_t size)
{
	static const char part[] = ".part";
	size_t n;
	int err = 0;

	if (!w.enabled)
		return ENOTCONN;
	lock();
	if (!w.created && create_file() < 0)
		err = EIO;
	n = strlen(w.files.part);
	if (n >= sizeof(part) - 1 &&
	    !strcmp(w.files.part + n - (sizeof(part) - 1), part))
		n -= sizeof(part) - 1;
	if (!err)
		snprintf(name, size, "%.*s", (int)n, w.files.part);
	unlock();
	return err;
}

void writer_exec_failed(void)
{
	if (!w.enabled || getpid() != w.pid)
		return;
	lock();
	if (w.created)
		profile_files_announce(&w.files, 'N', NULL);
	start_over();
	unlock();
}

void writer_postfork_child(int keep_recording)
{
	if (!w.enabled)
		return;
	/* The parent's stream is not mapped here (MADV_DONTFORK): the child
	 * starts a file of its own at its first event. */
	start_over();
	w.files.descendant = 1;
	w.pid = getpid();
	w.enabled = keep_recording;
	spin_unlock(&w.lock); /* held, if at all, by a thread not copied */
}
