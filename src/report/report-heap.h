/* report-heap.h - replay a profile's events into estimates per stack.
 *
 * Contract: follows the sampled heap through the ALLOC and FREE events of
 * one profile (a block is live when no FREE of its address follows; a FREE
 * of an unknown address is ignored; an ALLOC at a live address replaces
 * the block there) and sums, for every stack, the unbiased estimates of
 * everything allocated and of what was live at two moments: the peak (the
 * largest live heap of the whole profile, cross-fitted as estimator.h
 * says: each half of the samples chooses the first moment its estimate
 * reached its maximum, and the other half estimates every stack there)
 * and the end.  Also keeps the live heap over time (a bounded
 * series of points), the markers and garbage collections with the live
 * heap at their moment, and, when asked, the live bytes of every stack at
 * a bounded number of moments, and, when asked, the trend of the live
 * bytes of every stack over the profile, per second and per marker
 * (report-trend.h), and the readings of the process's resident memory
 * with the live heap at their moment (report-memory.h).
 * A profile that starts at a checkpoint (mlyze(5)) adds the totals it
 * carries to what each stack allocated, and takes the blocks live at it
 * as live from then on: its trends run from the checkpoint on.
 * When asked, also the live bytes of every stack at a moment the user
 * names, and only the blocks allocated in a stretch of the profile.
 * One pass over the events; memory grows
 * with the live sampled blocks and the stacks, not with the events.
 */
#ifndef SPPROF_REPORT_HEAP_H
#define SPPROF_REPORT_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#include "estimator.h"
#include "report-memory.h"
#include "report-moment.h"
#include "report-trend.h"
#include "spprof/mlyze.h"

/* A sum of sample weights (see estimator.h). */
struct estimate {
	uint64_t samples;
	double bytes, bytes_variance;
	double count, count_variance;
};

void estimate_add(struct estimate *into, const struct estimate *from);

/* The moments at which a report counts live memory. */
enum moment {
	AT_PEAK, /* when the estimated live heap was largest */
	AT_END,  /* when the profile ends: what was never freed */
	AT_TIME, /* a moment the user named (replay_options.at) */
	MOMENTS
};

/* "peak", "end", "moment", by enum moment. */
extern const char *const moment_names[MOMENTS];

/* What a stack, a site or a whole profile allocated over the profile,
 * and held at each moment. */
struct heap_estimates {
	struct estimate allocated;
	struct estimate live[MOMENTS];
	struct trend growth[AXES]; /* of the live bytes, by enum axis */
};

void heap_estimates_add(struct heap_estimates *into,
			const struct heap_estimates *from);

/* A peak stands out from the rest of the profile when the live heap was
 * within its interval for less than half of the time; else the
 * heap held about the same level, and no moment is the peak. */
#define SINGLE_PEAK_MAX_SHARE 0.5

/* The estimated live heap at one moment. */
struct heap_point {
	uint64_t time_us;
	double bytes, bytes_variance;
	uint64_t samples;
	double mapped_bytes; /* of bytes, the anonymous mappings' */
};

enum heap_event_kind { HEAP_EVENT_MARKER, HEAP_EVENT_GC };

/* A marker or a garbage collection, and the live heap at its moment. */
struct heap_event {
	enum heap_event_kind kind;
	char *name;                         /* of a marker; else NULL */
	uint64_t gc_objects, gc_bytes;      /* collected by a GC */
	struct heap_point live;
};

/* Estimates of some stacks, in the order of their indexes. */
struct stack_amounts {
	size_t count;
	size_t *stacks; /* by mlyze_stack.index */
	struct estimate *amounts;
};

/* The live bytes of every stack that held some at one moment, and what
 * the stacks allocated since the snapshot before (since the start, for
 * the first). */
struct heap_snapshot {
	struct heap_point live; /* of the whole profile */
	size_t count;
	size_t *stacks;         /* by mlyze_stack.index */
	double *bytes, *bytes_variance;
	uint64_t *samples;
	struct stack_amounts allocated;
};

struct heap_replay {
	struct heap_estimates *by_stack; /* by mlyze_stack.index */
	size_t stack_count;
	struct heap_estimates total;     /* of all stacks */
	uint64_t peak_time_us; /* the start time when nothing was live */
	/* The share of the series of the live heap within the peak's 95 %
	 * interval of its estimate: near 1 when no moment stands out. */
	double peak_level_share;
	uint64_t events;
	uint64_t last_time_us;
	uint64_t markers;
	uint64_t replaced; /* ALLOCs at an address already live */
	uint64_t first_replaced_offset;
	bool rate_changed;
	/* A profile with a size limit kept only its events after its last
	 * checkpoint (0 when it has none): they start at kept_from_us, and
	 * the timeline has one point per earlier checkpoint before. */
	uint64_t checkpoints;
	uint64_t kept_from_us;
	uint64_t events_discarded;
	struct heap_point *timeline; /* in time order, ends with the end */
	size_t timeline_count;
	struct heap_event *events_kept; /* markers and GCs, in time order */
	size_t events_kept_count;
	struct heap_snapshot *snapshots; /* in time order */
	size_t snapshot_count;
	/* With snapshots: what the stacks allocated after the last one. */
	struct stack_amounts allocated_after_snapshots;
	struct memory_series memory; /* the process's resident memory */
	/* By thread (low 16 bits of its id): its last name in the profile
	 * (THREAD events), or NULL; NULL when no thread has one. */
	char **thread_names;
	/* With a thread filter: the TOTALS of a checkpoint, which do not
	 * say by which thread, were left out. */
	bool totals_left_out;
	/* With a thread filter: the sampled blocks (ALLOC, MAP, LIVE) of
	 * the threads it follows, in the stretch or not. */
	uint64_t thread_blocks;
	/* Whether the replay passed the moments of replay_options, and
	 * when (see report-moment.h). */
	struct moment_track at, from, to;
	uint64_t born_outside; /* sampled blocks left out by from and to */
	/* Whether the profile holds anonymous mappings (MAP events),
	 * counted or not, and the part of the peak that the stacks which
	 * mapped them hold. */
	bool has_mappings;
	double mapped_peak_bytes;
	/* By stack (as by_stack): the kinds of memory it holds, enum
	 * memory_kind bits. */
	uint8_t *stack_kinds;
};

/* Called every few thousand events, e.g. to show progress. */
typedef void replay_tick(void *ctx, const mlyze_reader *reader);

/* The life of one sampled block, told when it ends: when it is freed (or
 * replaced), or when the profile ends with it still live.  Only blocks
 * whose ALLOC (or MAP) the profile kept: a checkpoint's LIVE blocks were
 * born among the events it discarded.  A mapping's life ends when any
 * part of it is unmapped (what remains of it is not told again). */
struct block_life {
	size_t stack;           /* by mlyze_stack.index */
	uint64_t size;
	struct estimator_weight weight; /* what the sample stands for */
	uint64_t born_us;       /* allocated */
	uint64_t died_us;       /* freed; the end when still live */
	bool live_at_end;
	uint16_t thread;        /* low 16 bits of its thread's id */
};

typedef void replay_block_ended(void *ctx, const struct block_life *life);

/* Which threads' allocations a replay follows: the thread whose id has
 * these low 16 bits, or the threads that bore this name when they
 * allocated. */
struct thread_filter {
	const char *name;  /* NULL: by id */
	uint16_t id;
};

/* The kinds of memory a report counts, as bits: the malloc heap (ALLOC
 * events), anonymous mappings (MAP events), or both. */
enum memory_kind {
	KIND_HEAP = 1,
	KIND_MAPPED = 2,
	KIND_ALL = KIND_HEAP | KIND_MAPPED,
};

struct replay_options {
	enum memory_kind kinds; /* 0: all */
	replay_tick *tick; /* may be NULL */
	void *tick_ctx;
	size_t snapshots;  /* moments at which to keep every stack's bytes */
	bool growth;       /* measure the trends (else they stay 0) */
	/* Told of the life of every sampled block when it ends; may be
	 * NULL. */
	replay_block_ended *block_ended;
	void *block_ended_ctx;
	/* Only these threads' blocks; NULL: every thread's. */
	const struct thread_filter *thread;
	/* A moment whose live bytes go to live[AT_TIME] (NULL: none), and a
	 * stretch (NULL: unbounded on that side): only the blocks allocated
	 * from `from` on and before `to` are counted, in every estimate and
	 * series, as if the others were never allocated. */
	const struct moment_spec *at, *from, *to;
	/* A moment the process is known to have lived to (the time a
	 * running process is asked about, in the profile's microseconds
	 * since the epoch), or 0: the trends per second run to it when it
	 * is after the last event, so that a site that stopped growing is
	 * seen flat since, not growing to its last sample. */
	uint64_t until_us;
	/* With growth, a window (microseconds) over which the trends per
	 * second are taken, ending where they end (report-trend.h), as a
	 * service's recent growth is watched; 0: over the whole profile. */
	uint64_t growth_window_us;
};

/* Threads have 16-bit ids in a profile. */
#define THREAD_IDS 65536

/* Read every event of r; returns 0, or -1 when the reader failed (out
 * then holds nothing to free).  options may be NULL. */
int heap_replay(mlyze_reader *r, struct heap_replay *out,
		const struct replay_options *options);
void heap_replay_free(struct heap_replay *h);
/* When the profile r read (replayed into h) ends: the time of its end,
 * or that of its last event when it has none (a running process's
 * stream). */
uint64_t heap_replay_end_us(const mlyze_reader *r, const struct heap_replay *h);

/* The same replay, taken up again as a streamed file grows
 * (mlyze_follow()): heap_follower_read() replays every event r has up to
 * its end (0, or -1 when the reader failed: the follower is then of no
 * more use), and heap_follower_result() says, into out (to
 * heap_replay_free()), what heap_replay() would say of the events read
 * so far, with until_us for replay_options.until_us; the follower goes
 * on from there.  It holds the live blocks and the stacks of a replay,
 * never the events. */
struct heap_follower;

struct heap_follower *heap_follower_new(const mlyze_reader *r,
					const struct replay_options *options);
int heap_follower_read(struct heap_follower *f, mlyze_reader *r);
void heap_follower_result(const struct heap_follower *f, uint64_t until_us,
			  struct heap_replay *out);
/* About how much memory f holds (the names of its markers aside). */
size_t heap_follower_bytes(const struct heap_follower *f);
void heap_follower_free(struct heap_follower *f);

#endif /* SPPROF_REPORT_HEAP_H */
