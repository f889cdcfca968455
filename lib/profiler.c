/* profiler.c - lifecycle, sample records, statistics and the public API
 * of the runtime (see profiler.h and spprof/memprof.h). */
#include "config.h"

#include "profiler.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <spprof/memprof.h>

#include "clock.h"
#include "modules.h"
#include "real_alloc.h"
#include "sampler.h"
#include "script_stack.h"
#include "settings.h"
#include "stack_table.h"
#include "names.h"
#include "symbols.h"
#include "unwind.h"
#include "writer.h"

#define relaxed memory_order_relaxed
#define SHALLOW_STACK_DEPTH 3

enum state {
	UNINITIALIZED,
	BUSY, /* init() in progress */
	INITIALIZED,
	ACTIVE,
	STOPPED,
	TERMINATED,
};

static struct {
	_Atomic int state;
	_Atomic int track_allocs;
	_Atomic int track_frees;
	struct runtime_config settings;
	int settings_read;
	struct heap_map heap;
	struct stack_table stacks;
	/* The counters every sample updates, in one cache line. */
	_Atomic uint64_t samples __attribute__((aligned(64)));
	_Atomic uint64_t freed;
	_Atomic uint64_t live_estimate; /* whole bytes, kept as blocks come and go */
	_Atomic uint64_t carved_only;   /* heap-map records that are not samples */
	_Atomic uint64_t native_frames, shallow;
	_Atomic uint32_t min_depth;
	_Atomic uint64_t truncated, skipped_reentrant;
} prof = { .min_depth = UINT32_MAX };

static void count(_Atomic uint64_t *counter)
{
	atomic_fetch_add_explicit(counter, 1, relaxed);
}

/* ---- the hooks' side ------------------------------------------------------ */

int profiler_wants_sample(void)
{
	return atomic_load_explicit(&prof.track_allocs, relaxed) &&
	       !sampler_tls.in_runtime;
}

/* depth: native frames captured; merged: frames once script frames are
 * in.  A stack counts as shallow (callers lost to missing frame pointers)
 * only when script frames do not make up for it. */
static void note_stack_health(uint32_t depth, uint32_t merged, int truncated)
{
	uint32_t min = atomic_load_explicit(&prof.min_depth, relaxed);

	atomic_fetch_add_explicit(&prof.native_frames, depth, relaxed);
	if (merged < SHALLOW_STACK_DEPTH)
		count(&prof.shallow);
	if (truncated)
		count(&prof.truncated);
	while (depth < min &&
	       !atomic_compare_exchange_weak_explicit(&prof.min_depth, &min,
						      depth, relaxed, relaxed))
		;
}

/* The hooks' work runs under the re-entrancy guard and leaves errno as
 * the C library set it. */
static int enter_runtime(void)
{
	sampler_tls.in_runtime = 1;
	return errno;
}

static void leave_runtime(int saved_errno)
{
	sampler_tls.in_runtime = 0;
	errno = saved_errno;
}

static uint32_t capture_stack(void)
{
	uintptr_t frames[MEMPROF_MAX_STACK_DEPTH];
	int truncated;
	uint32_t depth = unwind_capture(frames, MEMPROF_MAX_STACK_DEPTH,
					&truncated);

	uint32_t merged = script_stack_merge(frames, depth,
					     MEMPROF_MAX_STACK_DEPTH);

	note_stack_health(depth, merged, truncated);
	return stack_table_intern(&prof.stacks, frames, merged);
}

/* A sampled block's share of the live-heap estimate, in whole bytes. */
static uint64_t estimate_of(uint64_t size, uint64_t sampling_rate)
{
	return (uint64_t)llround(memprof_estimate_bytes(size, sampling_rate,
							NULL));
}

/* Records of carved blocks that are not samples (see profiler.h) have
 * no sampling rate: they only remember where the block was carved. */
static int is_sample(const struct heap_record *r)
{
	return r->sampling_rate != 0;
}

/* Enters a record in the heap map (and the profile when it is a sample);
 * 0 when the table has no room for it. */
static int publish(void *block, const struct heap_record *r)
{
	long slot = heap_map_reserve(&prof.heap, (uintptr_t)block);

	if (slot < 0 ||
	    !heap_map_finalize(&prof.heap, slot, (uintptr_t)block, r))
		return 0;
	if (!is_sample(r)) {
		count(&prof.carved_only);
	} else {
		count(&prof.samples);
		atomic_fetch_add_explicit(&prof.live_estimate, r->estimate,
					  relaxed);
		writer_alloc((uintptr_t)block, r);
	}
	return 1;
}

/* The stack is captured before the block enters the table, so that a
 * reservation (which holds the table's gate) lasts a few instructions. */
int profiler_record_alloc(void *block, size_t size, uint32_t offset,
			  int sample)
{
	int saved_errno = enter_runtime();
	uint64_t rate = sample ? sampler_rate() : 0;
	struct heap_record r;

	/* The program's own work has usually evicted these since the last
	 * sample: let them load while the stack is captured. */
	heap_map_prefetch(&prof.heap, (uintptr_t)block);
	__builtin_prefetch(&prof.samples, 1);
	r = (struct heap_record){
		.size = size,
		.sampling_rate = rate,
		.estimate = sample ? estimate_of(size, rate) : 0,
		.stack_id = sample ? capture_stack() : STACK_ID_NONE,
		.thread_id = sampler_tls.tid,
		.timestamp_ns = monotonic_ns(),
		.offset = offset,
	};
	int tracked = publish(block, &r);

	leave_runtime(saved_errno);
	return tracked;
}

int profiler_restore(void *block, const struct heap_record *record)
{
	int saved_errno = enter_runtime();
	int tracked = publish(block, record);

	leave_runtime(saved_errno);
	return tracked;
}

int profiler_release(void *block, struct heap_record *record)
{
	int saved_errno;

	/* Always looked up, whatever the state: the C library's pointer of
	 * a sampled block is only known from its record. */
	if (!heap_map_ready(&prof.heap) ||
	    heap_map_remove(&prof.heap, (uintptr_t)block, record) != 1)
		return 0;
	if (!is_sample(record)) {
		atomic_fetch_sub_explicit(&prof.carved_only, 1, relaxed);
		return 1;
	}
	count(&prof.freed);
	atomic_fetch_sub_explicit(&prof.live_estimate, record->estimate,
				  relaxed);
	if (sampler_tls.in_runtime) {
		count(&prof.skipped_reentrant); /* no event from a nested call */
	} else if (atomic_load_explicit(&prof.track_frees, relaxed)) {
		saved_errno = enter_runtime();
		writer_free((uintptr_t)block);
		leave_runtime(saved_errno);
	}
	return 1;
}

int profiler_find(void *block, struct heap_record *record)
{
	return heap_map_ready(&prof.heap) &&
	       heap_map_find(&prof.heap, (uintptr_t)block, record);
}

/* ---- lifecycle ------------------------------------------------------------- */

static int fail(int err)
{
	errno = err;
	return -1;
}

/* errno for a call that is not allowed in `state`. */
static int misuse(int state)
{
	if (state == TERMINATED)
		return fail(ESHUTDOWN);
	if (state == UNINITIALIZED || state == BUSY)
		return fail(EINVAL);
	return fail(EALREADY);
}

/* Moves from one of the `from` states (bit mask) to `to`. */
static int transition(unsigned from, int to)
{
	int state = atomic_load(&prof.state);

	do {
		if (!(from & (1u << state)))
			return misuse(state);
	} while (!atomic_compare_exchange_weak(&prof.state, &state, to));
	return 0;
}

#define STATE(s) (1u << (s))

/* Settings are read when the library loads; a program that links the
 * runtime's objects without its loader reads them at init instead. */
static void read_settings_once(void)
{
	if (!prof.settings_read)
		settings_read(&prof.settings);
	prof.settings_read = 1;
}

MEMPROF_PUBLIC int memprof_init(uint64_t sampling_rate)
{
	int saved_errno;

	if (sampling_rate == 0)
		return fail(EINVAL);
	if (transition(STATE(UNINITIALIZED), BUSY) < 0)
		return -1;
	read_settings_once();
	saved_errno = enter_runtime();
	if (heap_map_init(&prof.heap, prof.settings.heap_map_capacity) < 0 ||
	    stack_table_init(&prof.stacks, prof.settings.stack_table_max) < 0 ||
	    modules_init() < 0 || strings_init() < 0) {
		heap_map_destroy(&prof.heap);
		atomic_store(&prof.state, UNINITIALIZED);
		leave_runtime(ENOMEM);
		return -1;
	}
	leave_runtime(saved_errno);
	sampler_set_rate(sampling_rate);
	atomic_store(&prof.state, INITIALIZED);
	return 0;
}

MEMPROF_PUBLIC int memprof_start(void)
{
	if (transition(STATE(INITIALIZED) | STATE(STOPPED), ACTIVE) < 0)
		return -1;
	atomic_store(&prof.track_frees, 1);
	atomic_store(&prof.track_allocs, 1);
	return 0;
}

MEMPROF_PUBLIC int memprof_stop(void)
{
	if (transition(STATE(ACTIVE), STOPPED) < 0)
		return -1;
	atomic_store(&prof.track_allocs, 0);
	return 0;
}

MEMPROF_PUBLIC int memprof_shutdown(void)
{
	memprof_stats stats;
	int saved_errno;

	if (transition(STATE(UNINITIALIZED) | STATE(INITIALIZED) |
			       STATE(ACTIVE) | STATE(STOPPED),
		       TERMINATED) < 0)
		return -1;
	atomic_store(&prof.track_allocs, 0);
	saved_errno = enter_runtime();
	if (writer_enabled()) {
		memprof_get_stats(&stats);
		writer_finalise(&stats);
	}
	leave_runtime(saved_errno);
	/* The tables stay mapped: a hook may still be running on another
	 * thread, and the process is about to end anyway. */
	atomic_store(&prof.track_frees, 0);
	return 0;
}

static int initialized(void)
{
	int state = atomic_load(&prof.state);

	return state == INITIALIZED || state == ACTIVE || state == STOPPED;
}

MEMPROF_PUBLIC int memprof_set_sampling_rate(uint64_t sampling_rate)
{
	int saved_errno;

	if (sampling_rate == 0)
		return fail(EINVAL);
	if (!initialized())
		return misuse(atomic_load(&prof.state));
	sampler_set_rate(sampling_rate);
	saved_errno = enter_runtime();
	writer_rate(sampling_rate);
	leave_runtime(saved_errno);
	return 0;
}

/* ---- reading the tables ------------------------------------------------------ */

struct snapshot_fill {
	memprof_sample *samples;
	size_t count, capacity;
};

static void add_to_snapshot(void *ctx, uintptr_t address,
			    const struct heap_record *r)
{
	struct snapshot_fill *f = ctx;

	if (f->count == f->capacity || !is_sample(r))
		return;
	f->samples[f->count++] = (memprof_sample){
		.address = address,
		.size = r->size,
		.sampling_rate = r->sampling_rate,
		.timestamp_ns = r->timestamp_ns,
		.stack_id = r->stack_id,
		.thread_id = r->thread_id,
	};
}

MEMPROF_PUBLIC int memprof_get_snapshot(memprof_sample **out_samples,
					size_t *out_count)
{
	struct snapshot_fill f = { 0 };

	if (!out_samples || !out_count)
		return fail(EINVAL);
	if (!initialized() && atomic_load(&prof.state) != TERMINATED)
		return misuse(atomic_load(&prof.state));
	/* Blocks sampled while we scan are included only if there is room. */
	f.capacity = atomic_load(&prof.heap.live) + 64;
	f.samples = malloc(f.capacity * sizeof(*f.samples));
	if (!f.samples)
		return fail(ENOMEM);
	heap_map_for_each(&prof.heap, add_to_snapshot, &f);
	*out_samples = f.samples;
	*out_count = f.count;
	return 0;
}

MEMPROF_PUBLIC void memprof_free_snapshot(memprof_sample *samples)
{
	free(samples);
}

static uint64_t load(_Atomic uint64_t *counter)
{
	return atomic_load_explicit(counter, relaxed);
}

MEMPROF_PUBLIC int memprof_get_stats(memprof_stats *out)
{
	struct heap_map *h = &prof.heap;
	uint32_t min_depth = atomic_load_explicit(&prof.min_depth, relaxed);

	if (!out)
		return fail(EINVAL);
	memset(out, 0, sizeof(*out));
	out->sampling_rate = sampler_rate();
	if (!heap_map_ready(h))
		return 0;
	out->total_samples = load(&prof.samples);
	out->freed_samples = load(&prof.freed);
	out->live_samples = load(&h->live) - load(&prof.carved_only);
	out->unique_stacks = stack_table_count(&prof.stacks);
	out->stack_table_capacity = stack_table_capacity(&prof.stacks);
	out->stack_table_drops = load(&prof.stacks.drops);
	out->heap_map_capacity = atomic_load_explicit(&h->capacity, relaxed);
	out->heap_map_full_drops = load(&h->full_drops);
	out->heap_map_collisions = load(&h->collisions);
	out->death_during_birth = load(&h->death_during_birth);
	out->tombstones_recycled = load(&h->tombstones_recycled);
	out->max_probe_length = load(&h->max_probe);
	out->skipped_reentrant = load(&prof.skipped_reentrant);
	out->events_written = writer_events_written();
	out->events_dropped = writer_events_dropped();
	out->native_stacks = out->total_samples; /* one capture per sample */
	out->native_frames = load(&prof.native_frames);
	out->shallow_stacks = load(&prof.shallow);
	out->truncated_stacks = load(&prof.truncated);
	out->min_native_depth = min_depth == UINT32_MAX ? 0 : min_depth;
	out->heap_map_load_percent = heap_map_load_percent(h);
	out->estimated_live_bytes = (double)load(&prof.live_estimate);
	return 0;
}

MEMPROF_PUBLIC int memprof_get_stack(uint32_t stack_id, memprof_stack *out)
{
	const struct stack_entry *e;
	const struct stack_names *names;

	if (!out || !heap_map_ready(&prof.heap))
		return fail(EINVAL);
	e = stack_table_get(&prof.stacks, stack_id);
	if (!e)
		return fail(ENOENT);
	names = symbols_get(stack_id);
	out->depth = e->depth;
	out->frames = e->frames;
	out->functions = names ? names->functions : NULL;
	out->modules = names ? names->modules : NULL;
	out->files = names ? names->files : NULL;
	out->lines = names ? names->lines : NULL;
	return 0;
}

MEMPROF_PUBLIC int memprof_set_frame_walker(memprof_frame_walker walker,
					    const void *interpreter_code)
{
	return script_stack_set_walker(walker, interpreter_code);
}

MEMPROF_PUBLIC int memprof_resolve_symbols(void)
{
	if (!heap_map_ready(&prof.heap))
		return misuse(atomic_load(&prof.state));
	return symbols_resolve(&prof.stacks);
}

MEMPROF_PUBLIC int memprof_marker(const char *name)
{
	int saved_errno, r;

	if (!name)
		return fail(EINVAL);
	if (!writer_enabled())
		return fail(ENOTCONN);
	saved_errno = enter_runtime();
	r = writer_marker(name);
	leave_runtime(r < 0 ? errno : saved_errno);
	return r;
}

MEMPROF_PUBLIC int memprof_gc_event(uint64_t objects, uint64_t bytes)
{
	int saved_errno;

	if (!writer_enabled())
		return fail(ENOTCONN);
	saved_errno = enter_runtime();
	writer_gc(objects, bytes);
	leave_runtime(saved_errno);
	return 0;
}

MEMPROF_PUBLIC double memprof_estimate_bytes(uint64_t size,
					     uint64_t sampling_rate,
					     double *count)
{
	double p = sampling_rate ? -expm1(-(double)size / (double)sampling_rate)
				 : 1.0;

	if (p <= 0.0) {
		if (count)
			*count = 0.0;
		return 0.0;
	}
	if (count)
		*count = 1.0 / p;
	return (double)size / p;
}

/* ---- process events ------------------------------------------------------------ */

static void before_fork(void)
{
	writer_prefork();
	strings_prefork();
}

static void after_fork_in_parent(void)
{
	strings_postfork();
	writer_postfork_parent();
}

/* A child's profile starts empty; so do the counters its stats report
 * (the heap map and stack table, and their counters, are inherited). */
static void reset_counters(void)
{
	atomic_store(&prof.samples, 0);
	atomic_store(&prof.freed, 0);
	atomic_store(&prof.skipped_reentrant, 0);
	atomic_store(&prof.native_frames, 0);
	atomic_store(&prof.shallow, 0);
	atomic_store(&prof.truncated, 0);
	atomic_store(&prof.min_depth, UINT32_MAX);
}

static void after_fork_in_child(void)
{
	int follow = prof.settings.follow_fork;

	strings_postfork();
	sampler_reseed_thread(); /* else parent and child sample alike */
	heap_map_after_fork(&prof.heap);
	reset_counters();
	if (!follow) {
		atomic_store(&prof.track_allocs, 0);
		atomic_store(&prof.track_frees, 0);
	}
	writer_postfork_child(follow);
}

/* Drops our entry from LD_PRELOAD and our settings from the environment,
 * so that programs this one executes run without the profiler. */
static void stop_following_children(void)
{
	const char *preload = getenv("LD_PRELOAD");
	char kept[PATH_MAX * 4];
	size_t n = 0;

	unsetenv("SPPROF_OUTPUT");
	unsetenv("SPPROF_MANIFEST");
	if (!preload || strlen(preload) >= sizeof(kept))
		return;
	for (const char *p = preload; *p;) {
		size_t len = strcspn(p, ": ");
		const char *slash = memrchr(p, '/', len);
		const char *base = slash ? slash + 1 : p;

		if (strncmp(base, "libspprof-alloc", 15) != 0) {
			if (n)
				kept[n++] = ':';
			memcpy(kept + n, p, len);
			n += len;
		}
		p += len;
		p += strspn(p, ": ");
	}
	kept[n] = '\0';
	if (n)
		setenv("LD_PRELOAD", kept, 1);
	else
		unsetenv("LD_PRELOAD");
}

static void start_recording(void)
{
	struct runtime_config *s = &prof.settings;
	int descendant = s->root_pid && s->root_pid != getpid();
	char pid[16];

	if (!s->root_pid) {
		snprintf(pid, sizeof(pid), "%ld", (long)getpid());
		setenv("SPPROF_ROOT_PID", pid, 1);
	}
	if (!s->follow_fork)
		stop_following_children();
	if (memprof_init(s->sampling_rate) < 0 ||
	    writer_configure(s, &prof.stacks, s->sampling_rate, descendant) <
		    0 ||
	    memprof_start() < 0)
		runtime_message("cannot start profiling: %s", error_text(errno));
}

/* A Python process started by memprof-wrap gets its frame walker from the
 * language binding named by SPPROF_PYTHON_WALKER, without any change to
 * the program; other programs never load it. */
static void attach_python_walker(void)
{
	const char *plugin = prof.settings.python_walker;
	int (*attach)(void);
	void *handle;

	if (!plugin[0] || !dlsym(RTLD_DEFAULT, "Py_IsInitialized"))
		return;
	handle = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		runtime_message("cannot load the Python frame walker: %s",
				dlerror());
		return;
	}
	*(void **)&attach = dlsym(handle, "memprof_python_attach");
	if (!attach || attach() < 0)
		runtime_message("%s: cannot attach the Python frame walker; "
				"stacks keep native frames only",
				plugin);
}

void profiler_load(void)
{
	int saved_errno = enter_runtime();

	real_alloc_init();
	sampler_init_entropy();
	unwind_init();
	read_settings_once();
	pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
	if (prof.settings.output[0]) {
		start_recording();
		attach_python_walker();
	}
	leave_runtime(saved_errno);
}

void profiler_exit_now(void)
{
	memprof_stats stats;
	int saved_errno;

	if (!writer_enabled())
		return;
	saved_errno = enter_runtime();
	memprof_get_stats(&stats);
	writer_finalise_at_exit(&stats);
	leave_runtime(saved_errno);
}

void profiler_before_exec(const char *program)
{
	memprof_stats stats;
	int saved_errno;

	if (!writer_enabled())
		return;
	saved_errno = enter_runtime();
	memprof_get_stats(&stats);
	writer_before_exec(&stats, program);
	leave_runtime(saved_errno);
}

void profiler_exec_failed(void)
{
	int saved_errno;

	if (!writer_enabled())
		return;
	saved_errno = enter_runtime();
	writer_exec_failed();
	leave_runtime(saved_errno);
}

void profiler_unload(void)
{
	if (writer_enabled())
		memprof_shutdown();
}
