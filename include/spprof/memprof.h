/* spprof/memprof.h - public C API of libspprof-alloc.
 *
 * The runtime samples heap allocations (one sample per SAMPLING_RATE bytes
 * on average, Poisson process), keeps the sampled blocks that are still
 * live, and can stream a .mlyze profile.  It is loaded either with
 * LD_PRELOAD (see memprof-wrap(1)) or by linking with -lspprof-alloc.
 *
 * Lifecycle (every call returns 0 on success, -1 with errno on misuse):
 *
 *   UNINITIALIZED --init--> INITIALIZED --start--> ACTIVE <--start-- STOPPED
 *                                                   |--stop-->-----^
 *   any state --shutdown--> TERMINATED (one way: every later call fails)
 *
 * stop() ends the sampling of new allocations but keeps tracking the frees
 * of blocks already sampled, so the live set stays true.
 *
 * errno values: EINVAL (bad argument or not initialized), EALREADY (already
 * initialized / already running / not running), ESHUTDOWN (after shutdown),
 * ENOMEM (no memory for the tables).
 */
#ifndef SPPROF_MEMPROF_H
#define SPPROF_MEMPROF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MEMPROF_DEFAULT_SAMPLING_RATE (512u * 1024u)
#define MEMPROF_MAX_STACK_DEPTH 64

/* One sampled block that is still live. */
typedef struct memprof_sample {
	uint64_t address;       /* block address */
	uint64_t size;          /* requested size in bytes (never clamped) */
	uint64_t sampling_rate; /* mean sampling interval when it was sampled */
	uint64_t timestamp_ns;  /* CLOCK_MONOTONIC time of the allocation */
	uint32_t stack_id;      /* see memprof_get_stack() */
	uint32_t thread_id;     /* kernel thread id of the allocating thread */
} memprof_sample;

/* Runtime statistics (counters are approximate under concurrency): one
 * member per line of memprof-stats.def, which says what each counts. */
typedef struct memprof_stats {
#define MEMPROF_STAT(type, field, key, source, kind, unit, description) \
	type field;
#include <spprof/memprof-stats.def>
#undef MEMPROF_STAT
} memprof_stats;

/* An interned call stack, leaf first.  frames[i] is a native return
 * address (the leaf's is the allocation call site), or, with its top bit
 * set, an opaque script-frame value.  The name arrays are NULL until
 * memprof_resolve_symbols() has run; then a native frame has functions[i]
 * and modules[i] (NULL when unknown), a script frame has functions[i],
 * files[i] and lines[i]. */
typedef struct memprof_stack {
	uint32_t depth;
	const uint64_t *frames;
	const char *const *functions;
	const char *const *modules;
	const char *const *files;
	const uint32_t *lines;
} memprof_stack;

int memprof_init(uint64_t sampling_rate);
int memprof_start(void);
int memprof_stop(void);
int memprof_shutdown(void);

/* Change the mean sampling interval (bytes, > 0) for future samples. */
int memprof_set_sampling_rate(uint64_t sampling_rate);

/* Copy the live sampled blocks; free the array with memprof_free_snapshot. */
int memprof_get_snapshot(memprof_sample **out_samples, size_t *out_count);
void memprof_free_snapshot(memprof_sample *samples);

int memprof_get_stats(memprof_stats *out);

/* Look up an interned stack; the memory stays valid until process exit. */
int memprof_get_stack(uint32_t stack_id, memprof_stack *out);

/* Resolve every interned stack with dladdr(); returns stacks resolved. */
int memprof_resolve_symbols(void);

/* Write a MARKER event with this name to the profile being recorded. */
int memprof_marker(const char *name);

/* Record a garbage collection (objects and bytes collected). */
int memprof_gc_event(uint64_t objects, uint64_t bytes);

/* One frame of an interpreted language (Python), innermost first.  The
 * strings need not be NUL-terminated; the runtime copies them. */
typedef struct memprof_script_frame {
	const char *file;
	size_t file_len;
	const char *function;
	size_t function_len;
	uint32_t line;
} memprof_script_frame;

/* Fills up to max frames of the calling thread's script stack, innermost
 * first, and returns how many (0 when it cannot be done safely, e.g. the
 * thread does not hold the interpreter lock).  Called when an allocation
 * is sampled, inside the runtime's re-entrancy guard: it must not
 * allocate, lock, or run interpreter code. */
typedef int (*memprof_frame_walker)(memprof_script_frame *frames, int max);

/* Installs (NULL removes) the walker.  interpreter_code is any address in
 * the interpreter's code: its native frames are replaced by the script
 * frames (native frames below the interpreter, then the script frames,
 * then the native frames above the interpreter). */
int memprof_set_frame_walker(memprof_frame_walker walker,
			     const void *interpreter_code);

/* Unbiased estimate of the bytes (and, through *count, the number of
 * blocks) that one sample of `size` bytes stands for at `sampling_rate`:
 * size / p and 1 / p, with p = 1 - exp(-size / sampling_rate). */
double memprof_estimate_bytes(uint64_t size, uint64_t sampling_rate,
			      double *count);
/* The variance that one such sample adds to a sum of estimated bytes,
 * w(w - size) with w = size / p: the square of the standard error of a
 * sum is the sum of these. */
double memprof_estimate_variance(uint64_t size, uint64_t sampling_rate);
/* Half the width of the 95 % interval of a sum with this variance (a sum
 * of memprof_estimate_variance()): 1.96 standard deviations, and 0 for
 * the rounding noise that may leave a variance a little below 0. */
double memprof_estimate_interval95(double variance);

#ifdef __cplusplus
}
#endif

#endif /* SPPROF_MEMPROF_H */
