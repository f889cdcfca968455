/* report-heap.c - replay a profile's events into estimates per stack
 * (see report-heap.h).
 *
 * The peak is cross-fitted (estimator.h) in the same single pass.  Every
 * sampled block is dealt into one or both halves by its address and time,
 * and every stack keeps its live estimate in each half as the
 * events go by.  For each half, the stacks whose estimates moved since
 * this half's last peak are listed.  When this half's live total rises
 * above its last peak, only the listed stacks copy their estimate in the
 * other half (and from all the samples, for a profile too small to
 * cross-fit): every other stack holds the same values as at the last
 * peak.  A stack enters a list at most once per event that
 * changes it, so the copies cost no more than the events, however often
 * the peaks move.
 *
 * The series of the live heap over time and the snapshots of every stack
 * are kept at a fixed stride of time; when either is full, every other
 * entry goes and the stride doubles, so their size stays bounded however
 * long the profile runs, and their entries stay evenly spaced.
 *
 * Each live block also keeps where it was born on the axes of growth (its
 * second and the markers passed), so that its FREE, or the end, adds its
 * life to the trend of its stack.
 */
#include "config.h"

#include "compiler.h"
#include "estimator.h"
#include "report-heap.h"
#include "report-util.h"
#include "report-weights.h"
#include "u64map.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define TICK_EVENTS 65536u
/* Points of the live heap over time, at most (then thinned to half). */
#define TIMELINE_POINTS 1024
/* The stride of the series when the duration of the profile is unknown. */
#define DEFAULT_STRIDE_US 1000

const char *const moment_names[MOMENTS] = { "peak", "end", "moment" };

/* What a live block keeps: the count it stood for when it was weighed
 * (1/p), from which its FREE rebuilds the very weight its ALLOC added
 * without weighing it again, and where it was born on the axes of growth;
 * together, so that a FREE reads one place. */
struct slot {
	double count;
	double half_count; /* in each half it joined */
	unsigned halves;   /* enum estimator_half bits */
	double born[AXES];
	uint64_t born_us;
	uint16_t thread;
	/* Listed by a checkpoint: its ALLOC may still follow (written by a
	 * thread that waited while the checkpoint was taken). */
	bool listed;
	/* What remained of a sampled mapping once part of it was unmapped
	 * (a MAP remainder): its life was told with the mapping's. */
	bool piece;
};

/* The sampled blocks still live: address -> size (value.a), and the
 * stack's index and the block's slot (value.b, high and low 32 bits). */
struct live_blocks {
	struct u64map by_address;
	struct slot *slots;
	uint32_t *vacant; /* slots free for reuse */
	size_t slot_count, vacant_count, capacity;
};

/* A stack as the events go by; what an ALLOC changes in one place.  What
 * every ALLOC and FREE touches comes first, in as few cache lines as it
 * takes; what only a peak or the trends touch comes after. */
struct stack_now {
	struct estimate allocated, live;
	bool heap, mapped; /* it has samples of heap blocks, of mappings */
	struct estimate half_live[ESTIMATOR_HALVES];
	/* since each half's last peak (then listed) */
	bool changed[ESTIMATOR_HALVES];
	/* the other half's estimate, and that of all the samples, at each
	 * half's peak */
	struct estimate at_half_peak[ESTIMATOR_HALVES];
	struct estimate whole_at_half_peak[ESTIMATOR_HALVES];
	struct trend_sums growth[AXES];
	struct estimate allocated_at_snapshot; /* at the last one */
};

/* The largest live total one half has seen, and the stacks whose estimate
 * moved since then. */
struct half_peak {
	double bytes, now;
	double other;            /* the other half's total at the peak */
	struct heap_point point; /* the whole live heap at the peak */
	size_t *changed;
	size_t changed_count;
};

struct replay_state {
	struct heap_replay *h;
	struct live_blocks blocks;
	struct weight_memo weights;
	struct stack_now *now; /* by stack index, h->stack_count of them */
	struct half_peak halves[ESTIMATOR_HALVES];
	double live_bytes;     /* all stacks together, now */
	double live_variance;
	double mapped_live_bytes; /* of live_bytes, the mappings' */
	uint64_t live_samples;
	bool growth;           /* measure it (replay_options) */
	/* The trends per second over a trailing window (replay_options),
	 * when its length is not 0 (else over the whole profile), and what
	 * the blocks add to them, by stack. */
	struct trend_window window;
	struct trend_window_sums *recent;
	enum memory_kind kinds; /* counted (replay_options) */
	uint64_t until_us;     /* replay_options */
	double position[AXES]; /* now: seconds since the origin, markers */
	uint64_t origin_us;    /* the start, or the last checkpoint */
	bool in_checkpoint;    /* reading the events of a checkpoint */
	size_t events_capacity;
	uint64_t point_stride_us, next_point_us;
	size_t snapshots_wanted;
	uint64_t snapshot_stride_us, next_snapshot_us;
	replay_block_ended *block_ended; /* replay_options */
	void *block_ended_ctx;
	const struct thread_filter *thread;
	/* What the stacks allocated before a snapshot that thinning
	 * dropped, not yet in a kept one. */
	struct stack_amounts dropped_allocations;
	bool follows_moments; /* replay_options has at, from or to */
	/* The last UNMAP released a counted mapping, whose remainders (the
	 * MAP events that follow it) count too. */
	bool unmapped_counted;
};

void estimate_add(struct estimate *into, const struct estimate *from)
{
	into->samples += from->samples;
	into->bytes += from->bytes;
	into->bytes_variance += from->bytes_variance;
	into->count += from->count;
	into->count_variance += from->count_variance;
}

static struct estimate estimate_less(const struct estimate *a,
				     const struct estimate *b)
{
	return (struct estimate){
		.samples = a->samples - b->samples,
		.bytes = a->bytes - b->bytes,
		.bytes_variance = a->bytes_variance - b->bytes_variance,
		.count = a->count - b->count,
		.count_variance = a->count_variance - b->count_variance,
	};
}

void heap_estimates_add(struct heap_estimates *into,
			const struct heap_estimates *from)
{
	estimate_add(&into->allocated, &from->allocated);
	for (int m = 0; m < MOMENTS; m++)
		estimate_add(&into->live[m], &from->live[m]);
	for (int a = 0; a < AXES; a++) {
		into->growth[a].slope += from->growth[a].slope;
		into->growth[a].slope_variance +=
			from->growth[a].slope_variance;
	}
}

static void add_weight(struct estimate *e, const struct estimator_weight *w)
{
	e->samples++;
	e->bytes += w->bytes;
	e->bytes_variance += w->bytes_variance;
	e->count += w->count;
	e->count_variance += w->count_variance;
}

/* An estimate left without samples is exactly zero, not the rounding
 * left over from adding and taking back large weights. */
static void remove_weight(struct estimate *e, const struct estimator_weight *w)
{
	if (--e->samples == 0) {
		memset(e, 0, sizeof(*e));
		return;
	}
	e->bytes -= w->bytes;
	e->bytes_variance -= w->bytes_variance;
	e->count -= w->count;
	e->count_variance -= w->count_variance;
}

static void *grow_zeroed(void *array, size_t old_count, size_t new_count,
			 size_t size)
{
	char *grown = xrealloc(array, new_count, size);

	memset(grown + old_count * size, 0, (new_count - old_count) * size);
	return grown;
}

/* Room for the stack of this index (called when there is none, seldom:
 * kept out of the path of every event). */
static __attribute__((noinline)) void grow_stacks(struct replay_state *st,
						  uint64_t index)
{
	struct heap_replay *h = st->h;
	size_t n = h->stack_count ? h->stack_count : 256;

	if (index > UINT32_MAX)
		fatal("profile has more than %" PRIu32 " stacks", UINT32_MAX);
	while (n <= index)
		n *= 2;
	h->by_stack = grow_zeroed(h->by_stack, h->stack_count, n,
				  sizeof(*h->by_stack));
	st->now = grow_zeroed(st->now, h->stack_count, n, sizeof(*st->now));
	if (st->window.length > 0)
		st->recent = grow_zeroed(st->recent, h->stack_count, n,
					 sizeof(*st->recent));
	for (int half = 0; half < ESTIMATOR_HALVES; half++)
		st->halves[half].changed = xrealloc(
			st->halves[half].changed, n,
			sizeof(*st->halves[half].changed));
	h->stack_count = n;
}

/* A slot holding the counts of a block in `halves`, born at `position`. */
static uint32_t keep_count(struct live_blocks *b, double count,
			   double half_count, unsigned halves,
			   const double position[AXES])
{
	uint32_t slot;

	if (b->vacant_count) {
		slot = b->vacant[--b->vacant_count];
	} else {
		if (b->slot_count > UINT32_MAX)
			fatal("profile has more than %" PRIu32
			      " sampled blocks live at once", UINT32_MAX);
		if (b->slot_count == b->capacity) {
			b->capacity = b->capacity ? 2 * b->capacity : 1024;
			b->slots = xrealloc(b->slots, b->capacity,
					    sizeof(*b->slots));
			b->vacant = xrealloc(b->vacant, b->capacity,
					     sizeof(*b->vacant));
		}
		slot = (uint32_t)b->slot_count++;
	}
	b->slots[slot].count = count;
	b->slots[slot].half_count = half_count;
	b->slots[slot].halves = halves;
	for (int a = 0; a < AXES; a++)
		b->slots[slot].born[a] = position[a];
	return slot;
}

/* The weight of a live block, from the count it gave. */
static struct estimator_weight block_weight(const struct live_blocks *b,
					    struct u64map_value block)
{
	return estimator_weight_of_count(block.a,
					 b->slots[block.b & UINT32_MAX].count);
}

static struct estimator_weight half_weight(const struct live_blocks *b,
					   struct u64map_value block)
{
	return estimator_weight_of_count(
		block.a, b->slots[block.b & UINT32_MAX].half_count);
}

/* The stack's estimates moved: each half's peak must copy them when it
 * moves. */
static void mark_changed(struct replay_state *st, size_t stack)
{
	for (int half = 0; half < ESTIMATOR_HALVES; half++) {
		struct half_peak *peak = &st->halves[half];

		if (!st->now[stack].changed[half]) {
			st->now[stack].changed[half] = true;
			peak->changed[peak->changed_count++] = stack;
		}
	}
}

/* A block of `stack` joins (sign 1) or leaves (sign -1) its halves.
 * Inlined into each caller, where the sign is a constant: the test of it
 * goes. */
static inline __attribute__((always_inline)) void
move_halves(struct replay_state *st, size_t stack, unsigned halves,
	    const struct estimator_weight *w, int sign)
{
	for (int half = 0; half < ESTIMATOR_HALVES; half++) {
		if (!(halves & (1u << half)))
			continue;
		if (sign > 0)
			add_weight(&st->now[stack].half_live[half], w);
		else
			remove_weight(&st->now[stack].half_live[half], w);
		st->halves[half].now += sign * w->bytes;
	}
	mark_changed(st, stack);
}

static struct heap_point live_now(const struct replay_state *st,
				  uint64_t time_us)
{
	return (struct heap_point){ .time_us = time_us,
				    .bytes = st->live_bytes,
				    .bytes_variance = st->live_variance,
				    .samples = st->live_samples,
				    .mapped_bytes = st->mapped_live_bytes };
}

/* A half's live total is larger than ever: the stacks changed since its
 * last peak hold their estimates at this half's peak. */
static void record_half_peaks(struct replay_state *st, uint64_t time_us)
{
	for (int half = 0; half < ESTIMATOR_HALVES; half++) {
		struct half_peak *peak = &st->halves[half];

		if (!(peak->now > peak->bytes))
			continue;
		for (size_t i = 0; i < peak->changed_count; i++) {
			struct stack_now *now = &st->now[peak->changed[i]];

			now->at_half_peak[half] = now->half_live[1 - half];
			now->whole_at_half_peak[half] = now->live;
			now->changed[half] = false;
		}
		peak->changed_count = 0;
		peak->bytes = peak->now;
		peak->other = st->halves[1 - half].now;
		peak->point = live_now(st, time_us);
	}
}

/* The life of a block, from its birth to now, joins its stack's trend. */
static void add_life(struct replay_state *st, struct u64map_value block,
		     const struct estimator_weight *w)
{
	uint32_t slot = (uint32_t)(block.b & UINT32_MAX);
	struct stack_now *now = &st->now[block.b >> 32];

	if (!st->growth)
		return;
	for (int a = 0; a < AXES; a++)
		trend_add_block(&now->growth[a], w->bytes, w->bytes_variance,
				st->blocks.slots[slot].born[a],
				st->position[a]);
	if (st->recent)
		trend_window_add_block(&st->window, &st->recent[block.b >> 32],
				       w->bytes, w->bytes_variance,
				       st->blocks.slots[slot].born[PER_SECOND],
				       st->position[PER_SECOND]);
}

/* The trends per second are at `seconds` since the origin. */
static void pass_seconds(struct replay_state *st, double seconds)
{
	st->position[PER_SECOND] = seconds;
	if (st->window.length > 0)
		trend_window_pass(&st->window, seconds);
}

/* The end of a block's life, for whoever asked (replay_options): a block
 * allocated by an ALLOC, or a mapping by a MAP (whose life ends when any
 * part of it is unmapped). */
static void tell_life(const struct replay_state *st,
		      struct u64map_value block,
		      const struct estimator_weight *w, uint64_t time_us,
		      bool live_at_end)
{
	const struct slot *slot = &st->blocks.slots[block.b & UINT32_MAX];
	struct block_life life = {
		.stack = block.b >> 32,
		.size = block.a,
		.weight = *w,
		.born_us = slot->born_us,
		.died_us = time_us,
		.live_at_end = live_at_end,
		.thread = slot->thread,
	};

	/* A checkpoint's LIVE block was allocated among the events its
	 * profile discarded: its life is not known. */
	if (st->block_ended && !slot->listed && !slot->piece)
		st->block_ended(st->block_ended_ctx, &life);
}

/* A live block is freed (or replaced) at time_us. */
static void release_block(struct replay_state *st, struct u64map_value block,
			  uint64_t time_us)
{
	size_t stack = block.b >> 32;
	struct estimator_weight w = block_weight(&st->blocks, block);
	struct estimator_weight half = half_weight(&st->blocks, block);

	add_life(st, block, &w);
	tell_life(st, block, &w, time_us, false);
	remove_weight(&st->now[stack].live, &w);
	move_halves(st, stack, st->blocks.slots[block.b & UINT32_MAX].halves,
		    &half, -1);
	if (--st->live_samples) {
		st->live_bytes -= w.bytes;
		st->live_variance -= w.bytes_variance;
		if (st->now[stack].mapped)
			st->mapped_live_bytes -= w.bytes;
	} else {
		st->live_bytes = st->live_variance = 0;
		st->mapped_live_bytes = 0;
	}
	st->blocks.vacant[st->blocks.vacant_count++] =
		(uint32_t)(block.b & UINT32_MAX);
}

/* An ALLOC (or LIVE) at the address of a live block: the block counts as
 * freed.  A block that a checkpoint listed may see its ALLOC follow, which
 * is no error. */
static void replace_block(struct replay_state *st, const struct mlyze_event *ev,
			  struct u64map_value block)
{
	if (!st->blocks.slots[block.b & UINT32_MAX].listed &&
	    !st->h->replaced++)
		st->h->first_replaced_offset = ev->offset;
	release_block(st, block, ev->time_us);
}

/* The index of a stack, with room for it.  (An index beyond 32 bits is
 * beyond every stack_count, which grows only to hold a smaller one, so
 * grow_stacks() sees it.) */
static inline size_t stack_index(struct replay_state *st,
				 const struct mlyze_stack *stack)
{
	if (unlikely(stack->index >= st->h->stack_count))
		grow_stacks(st, stack->index);
	return stack->index;
}

/* A sampled block of `size` bytes, weighing `weights`, is live at
 * `address` from the moment of ev on, born at `born`. */
static void make_live(struct replay_state *st, const struct mlyze_event *ev,
		      uint64_t address, uint64_t size, size_t stack,
		      uint16_t thread, const struct block_weights *weights,
		      const double born[AXES])
{
	const struct estimator_weight *w = &weights->whole;
	unsigned halves = estimator_halves_of_probability(
		weights->half_probability,
		estimator_block_key(address, ev->time_us));
	bool replaced;
	struct u64map_value *block =
		u64map_insert(&st->blocks.by_address, address, &replaced);
	uint32_t slot;

	if (!block)
		out_of_memory();
	if (replaced)
		replace_block(st, ev, *block);
	slot = keep_count(&st->blocks, w->count, weights->half.count, halves,
			  born);
	st->blocks.slots[slot].listed = ev->type == MLYZE_EVENT_LIVE;
	st->blocks.slots[slot].piece =
		ev->type == MLYZE_EVENT_MAP && ev->map.remainder;
	st->blocks.slots[slot].born_us = ev->time_us;
	st->blocks.slots[slot].thread = thread;
	*block = (struct u64map_value){ .a = size,
					.b = (uint64_t)stack << 32 | slot };
	add_weight(&st->now[stack].live, w);
	st->live_bytes += w->bytes;
	if (st->now[stack].mapped)
		st->mapped_live_bytes += w->bytes;
	st->live_variance += w->bytes_variance;
	st->live_samples++;
	move_halves(st, stack, halves, &weights->half, 1);
	record_half_peaks(st, ev->time_us);
}

/* Whether the blocks of `thread` are followed (replay_options); counts
 * those that are in thread_blocks. */
static bool thread_followed(const struct replay_state *st, uint16_t thread)
{
	const struct thread_filter *f = st->thread;
	const char *name;

	if (!f)
		return true;
	if (!f->name) {
		if (thread != f->id)
			return false;
	} else {
		name = st->h->thread_names ? st->h->thread_names[thread] : NULL;
		if (!name || strcmp(name, f->name) != 0)
			return false;
	}
	st->h->thread_blocks++;
	return true;
}

/* Whether a block born now is counted: within the stretch asked for. */
static bool in_stretch(const struct replay_state *st)
{
	const struct heap_replay *h = st->h;

	return (!h->from.spec || h->from.passed) &&
	       !(h->to.spec && h->to.passed);
}

/* An ALLOC or MAP outside the stretch: as if it never was, but for the
 * block it replaces at `address`, which is freed all the same. */
static void leave_out(struct replay_state *st, const struct mlyze_event *ev,
		      uint64_t address)
{
	struct u64map_value replaced;

	st->h->born_outside++;
	if (u64map_take(&st->blocks.by_address, address, &replaced))
		replace_block(st, ev, replaced);
}

static void on_alloc(struct replay_state *st, const struct mlyze_event *ev)
{
	size_t stack;
	const struct block_weights *weights;

	if (!thread_followed(st, ev->alloc.thread))
		return;
	if (!in_stretch(st)) {
		leave_out(st, ev, ev->alloc.address);
		return;
	}
	stack = stack_index(st, ev->alloc.stack);
	weights = weights_of(&st->weights, ev->alloc.size,
			     ev->alloc.sampling_rate);
	st->now[stack].heap = true;
	add_weight(&st->now[stack].allocated, &weights->whole);
	make_live(st, ev, ev->alloc.address, ev->alloc.size, stack,
		  ev->alloc.thread, weights, st->position);
}

/* A thread's name from now on. */
static void on_thread(struct replay_state *st, const struct mlyze_event *ev)
{
	struct heap_replay *h = st->h;
	size_t thread = ev->thread.tid % THREAD_IDS;

	if (!h->thread_names)
		h->thread_names = xcalloc(THREAD_IDS, sizeof(char *));
	free(h->thread_names[thread]);
	h->thread_names[thread] = xstrdup(ev->thread.name);
}

/* A sampled mapping is a block as a sampled allocation is, weighed by
 * the rate it carries, counted when it is born in the stretch; what
 * remains of a mapping once part of it was unmapped allocated nothing,
 * and counts when the mapping did (the UNMAP just before released it),
 * wherever the stretch ends. */
static void on_map(struct replay_state *st, const struct mlyze_event *ev)
{
	size_t stack;
	const struct block_weights *weights;

	if (!thread_followed(st, ev->map.thread))
		return;
	if (ev->map.remainder && !st->unmapped_counted)
		return;
	if (!ev->map.remainder && !in_stretch(st)) {
		leave_out(st, ev, ev->map.address);
		return;
	}
	stack = stack_index(st, ev->map.stack);
	weights = weights_of(&st->weights, ev->map.size, ev->map.sampling_rate);
	st->now[stack].mapped = true;
	if (!ev->map.remainder)
		add_weight(&st->now[stack].allocated, &weights->whole);
	make_live(st, ev, ev->map.address, ev->map.size, stack,
		  ev->map.thread, weights, st->position);
}

/* Whether a counted block lived at `address`, now released. */
static bool release_at(struct replay_state *st, uint64_t address,
		       uint64_t time_us)
{
	struct u64map_value freed;

	if (!u64map_take(&st->blocks.by_address, address, &freed))
		return false;
	release_block(st, freed, time_us);
	return true;
}

/* Whether the replay counts events of this type: those of a kind of
 * memory not asked for are left out. */
static bool counted(const struct replay_state *st, enum mlyze_event_kind type)
{
	switch (type) {
	case MLYZE_EVENT_ALLOC:
	case MLYZE_EVENT_FREE:
	case MLYZE_EVENT_LIVE:
	case MLYZE_EVENT_TOTALS:
		return st->kinds & KIND_HEAP;
	case MLYZE_EVENT_MAP:
	case MLYZE_EVENT_UNMAP:
		return st->kinds & KIND_MAPPED;
	default:
		return true;
	}
}

static void keep_event(struct replay_state *st, const struct mlyze_event *ev)
{
	struct heap_replay *h = st->h;
	struct heap_event *kept;

	h->events_kept = xgrow(h->events_kept, &st->events_capacity,
			       h->events_kept_count + 1,
			       sizeof(*h->events_kept));
	kept = &h->events_kept[h->events_kept_count++];
	memset(kept, 0, sizeof(*kept));
	kept->live = live_now(st, ev->time_us);
	if (ev->type == MLYZE_EVENT_MARKER) {
		kept->kind = HEAP_EVENT_MARKER;
		kept->name = xstrdup(ev->marker.name ? ev->marker.name->text
						     : "?");
	} else {
		kept->kind = HEAP_EVENT_GC;
		kept->gc_objects = ev->gc.objects;
		kept->gc_bytes = ev->gc.bytes;
	}
}

static void add_point(struct heap_replay *h, struct heap_point point)
{
	h->timeline = xrealloc(h->timeline, h->timeline_count + 1,
			       sizeof(*h->timeline));
	h->timeline[h->timeline_count++] = point;
}

/* Keep every other point of the series (the first one among them). */
static void thin_timeline(struct heap_replay *h)
{
	size_t kept = 0;

	for (size_t i = 0; i < h->timeline_count; i += 2)
		h->timeline[kept++] = h->timeline[i];
	h->timeline_count = kept;
}

/* Empty, with room for `room` stacks. */
static struct stack_amounts amounts_with_room(size_t room)
{
	return (struct stack_amounts){
		.stacks = xcalloc(room + 1, sizeof(size_t)),
		.amounts = xcalloc(room + 1, sizeof(struct estimate)),
	};
}

/* Into the room made by amounts_with_room(). */
static void add_amount(struct stack_amounts *a, size_t stack,
		       const struct estimate *e)
{
	a->stacks[a->count] = stack;
	a->amounts[a->count++] = *e;
}

static void free_amounts(struct stack_amounts *a)
{
	free(a->stacks);
	free(a->amounts);
	memset(a, 0, sizeof(*a));
}

/* `from` added into `into`, both in the order of their stacks; `from` is
 * emptied. */
static void merge_amounts(struct stack_amounts *into, struct stack_amounts *from)
{
	struct stack_amounts merged =
		amounts_with_room(into->count + from->count);
	size_t i = 0, k = 0;

	while (i < into->count || k < from->count) {
		if (k == from->count ||
		    (i < into->count && into->stacks[i] < from->stacks[k])) {
			add_amount(&merged, into->stacks[i], &into->amounts[i]);
			i++;
		} else if (i == into->count ||
			   from->stacks[k] < into->stacks[i]) {
			add_amount(&merged, from->stacks[k], &from->amounts[k]);
			k++;
		} else {
			add_amount(&merged, into->stacks[i], &into->amounts[i]);
			estimate_add(&merged.amounts[merged.count - 1],
				     &from->amounts[k]);
			i++, k++;
		}
	}
	free_amounts(into);
	free_amounts(from);
	*into = merged;
}

/* What the stacks allocated since the last snapshot, and before those
 * that thinning dropped since. */
static struct stack_amounts allocated_since_snapshot(struct replay_state *st)
{
	struct stack_amounts since;
	size_t changed = 0;

	for (size_t i = 0; i < st->h->stack_count; i++)
		changed += st->now[i].allocated.samples !=
			   st->now[i].allocated_at_snapshot.samples;
	since = amounts_with_room(changed);
	for (size_t i = 0; i < st->h->stack_count; i++) {
		struct stack_now *now = &st->now[i];
		struct estimate change;

		if (now->allocated.samples == now->allocated_at_snapshot.samples)
			continue;
		change = estimate_less(&now->allocated,
				       &now->allocated_at_snapshot);
		add_amount(&since, i, &change);
		now->allocated_at_snapshot = now->allocated;
	}
	merge_amounts(&since, &st->dropped_allocations);
	return since;
}

static void take_snapshot(struct replay_state *st, uint64_t time_us)
{
	struct heap_replay *h = st->h;
	struct heap_snapshot *snap;
	size_t n = 0;

	h->snapshots = xrealloc(h->snapshots, h->snapshot_count + 1,
				sizeof(*h->snapshots));
	snap = &h->snapshots[h->snapshot_count++];
	snap->live = live_now(st, time_us);
	snap->stacks = xcalloc(st->live_samples, sizeof(*snap->stacks));
	snap->bytes = xcalloc(st->live_samples, sizeof(*snap->bytes));
	snap->bytes_variance = xcalloc(st->live_samples,
				       sizeof(*snap->bytes_variance));
	snap->samples = xcalloc(st->live_samples, sizeof(*snap->samples));
	for (size_t i = 0; i < h->stack_count && n < st->live_samples; i++) {
		const struct estimate *live = &st->now[i].live;

		if (live->samples == 0)
			continue;
		snap->stacks[n] = i;
		snap->bytes[n] = live->bytes;
		snap->bytes_variance[n] = live->bytes_variance;
		snap->samples[n++] = live->samples;
	}
	snap->count = n;
	snap->allocated = allocated_since_snapshot(st);
}

static void free_snapshot(struct heap_snapshot *snap)
{
	free(snap->stacks);
	free(snap->bytes);
	free(snap->bytes_variance);
	free(snap->samples);
	free_amounts(&snap->allocated);
}

/* Every other snapshot goes; what the stacks allocated before one that
 * goes joins the next one. */
static void thin_snapshots(struct replay_state *st)
{
	struct heap_replay *h = st->h;
	size_t kept = 0;

	for (size_t i = 0; i < h->snapshot_count; i++) {
		struct heap_snapshot *snap = &h->snapshots[i];

		if (i % 2 == 0) {
			h->snapshots[kept++] = *snap;
			continue;
		}
		merge_amounts(i + 1 < h->snapshot_count
				      ? &h->snapshots[i + 1].allocated
				      : &st->dropped_allocations,
			      &snap->allocated);
		free_snapshot(snap);
	}
	h->snapshot_count = kept;
}

/* The series and the snapshots, at their strides. */
static void follow_time(struct replay_state *st, uint64_t time_us)
{
	struct heap_replay *h = st->h;

	if (time_us >= st->next_point_us) {
		if (h->timeline_count == TIMELINE_POINTS) {
			thin_timeline(h);
			st->point_stride_us *= 2;
		}
		add_point(h, live_now(st, time_us));
		st->next_point_us = time_us + st->point_stride_us;
	}
	if (st->snapshots_wanted && time_us >= st->next_snapshot_us) {
		if (h->snapshot_count == st->snapshots_wanted) {
			thin_snapshots(st);
			st->snapshot_stride_us *= 2;
		}
		take_snapshot(st, time_us);
		st->next_snapshot_us = time_us + st->snapshot_stride_us;
	}
}

/* The first strides: even over the profile when its end is known. */
static void start_time_series(struct replay_state *st, const mlyze_reader *r,
			      const struct replay_options *options)
{
	const struct mlyze_info *info = mlyze_info(r);
	uint64_t duration = info->end_time_us > info->start_time_us
				    ? info->end_time_us - info->start_time_us
				    : 0;

	st->point_stride_us = duration / TIMELINE_POINTS;
	if (st->point_stride_us == 0)
		st->point_stride_us = DEFAULT_STRIDE_US;
	st->snapshots_wanted = options ? options->snapshots : 0;
	st->growth = options && options->growth;
	if (st->growth && options->growth_window_us)
		trend_window_init(&st->window,
				  (double)options->growth_window_us / 1e6);
	if (options) {
		st->block_ended = options->block_ended;
		st->block_ended_ctx = options->block_ended_ctx;
		st->thread = options->thread;
	}
	st->kinds = options && options->kinds ? options->kinds : KIND_ALL;
	st->until_us = options ? options->until_us : 0;
	if (st->snapshots_wanted) {
		st->snapshot_stride_us = duration / st->snapshots_wanted;
		if (st->snapshot_stride_us == 0)
			st->snapshot_stride_us = DEFAULT_STRIDE_US;
	}
	for (int half = 0; half < ESTIMATOR_HALVES; half++)
		st->halves[half].point.time_us = info->start_time_us;
	add_point(st->h, st->halves[0].point);
	st->next_point_us = info->start_time_us + st->point_stride_us;
	st->next_snapshot_us = info->start_time_us;
}

/* A moment a half chose joins the series in its place, so that a chart
 * shows the heap there however short its stay. */
static void add_peak_point(struct heap_replay *h, struct heap_point peak)
{
	size_t at = h->timeline_count;

	while (at > 0 && h->timeline[at - 1].time_us > peak.time_us)
		at--;
	if (at > 0 && h->timeline[at - 1].time_us == peak.time_us) {
		h->timeline[at - 1] = peak;
		return;
	}
	add_point(h, peak);
	memmove(&h->timeline[at + 1], &h->timeline[at],
		(h->timeline_count - 1 - at) * sizeof(*h->timeline));
	h->timeline[at] = peak;
}

static struct estimate cross_fit(const struct estimate *b_at_a,
				 const struct estimate *a_at_b)
{
	struct estimator_weight b = { b_at_a->count, b_at_a->count_variance,
				      b_at_a->bytes, b_at_a->bytes_variance };
	struct estimator_weight a = { a_at_b->count, a_at_b->count_variance,
				      a_at_b->bytes, a_at_b->bytes_variance };
	struct estimator_weight peak = estimator_cross_fit(&b, &a);

	return (struct estimate){
		.samples = (b_at_a->samples + a_at_b->samples + 1) / 2,
		.bytes = peak.bytes,
		.bytes_variance = peak.bytes_variance,
		.count = peak.count,
		.count_variance = peak.count_variance,
	};
}

/* The half that alone ever held anything, or -1.  A half that never did
 * (in a profile of a sample or two) leaves the other nothing to estimate
 * and has no moment to choose itself: the peak is then all the samples
 * at the moment the other half chose. */
static int lone_half(const struct replay_state *st)
{
	for (int half = 0; half < ESTIMATOR_HALVES; half++)
		if (st->halves[1 - half].bytes == 0)
			return half;
	return -1;
}

static struct estimate peak_of_stack(const struct replay_state *st,
				     size_t stack)
{
	const struct stack_now *now = &st->now[stack];
	int lone = lone_half(st);

	if (lone >= 0)
		return now->whole_at_half_peak[lone];
	return cross_fit(&now->at_half_peak[0], &now->at_half_peak[1]);
}

/* The moment named as the peak: of the two the halves chose, the one
 * where the other half found more. */
static uint64_t peak_moment(const struct replay_state *st)
{
	const struct half_peak *a = &st->halves[0], *b = &st->halves[1];
	int lone = lone_half(st);

	if (lone >= 0)
		return st->halves[lone].point.time_us;
	return (b->other > a->other ? b : a)->point.time_us;
}

/* The share of the time the series spent within the peak's interval of
 * its estimate (each point holding until the next); 0 for a profile
 * without duration, where no moment can be told from another. */
static double share_at_peak_level(const struct heap_replay *h)
{
	const struct estimate *peak = &h->total.live[AT_PEAK];
	double interval = estimator_interval95(peak->bytes_variance);
	uint64_t within = 0, first = h->timeline[0].time_us,
		 last = h->timeline[h->timeline_count - 1].time_us;

	if (last == first)
		return 0;
	for (size_t i = 0; i + 1 < h->timeline_count; i++)
		if (fabs(h->timeline[i].bytes - peak->bytes) <= interval)
			within += h->timeline[i + 1].time_us -
				  h->timeline[i].time_us;
	return (double)within / (double)(last - first);
}

static void keep_memory(struct replay_state *st, const struct mlyze_event *ev)
{
	struct memory_point point = {
		.time_us = ev->time_us,
		.resident = ev->memory.resident,
		.anonymous = ev->memory.anonymous,
		.resident_peak = ev->memory.resident_peak,
		.malloc_bytes = st->live_bytes - st->mapped_live_bytes,
		.mapped_bytes = st->mapped_live_bytes,
	};

	memory_series_add(&st->h->memory, &point);
}

/* A checkpoint starts the profile anew: its trends, and the series of
 * the live heap at its stride over what is left of the profile. */
static void on_checkpoint(struct replay_state *st, const mlyze_reader *r,
			  const struct mlyze_event *ev)
{
	const struct mlyze_info *info = mlyze_info(r);
	struct heap_replay *h = st->h;

	h->checkpoints = ev->checkpoint.number;
	h->events_discarded = ev->checkpoint.events_before;
	h->kept_from_us = st->origin_us = ev->time_us;
	/* The window's starts are counted from the new origin. */
	if (st->window.length > 0)
		trend_window_init(&st->window, st->window.length);
	st->in_checkpoint = true;
	if (info->end_time_us > ev->time_us)
		st->point_stride_us =
			(info->end_time_us - ev->time_us) / TIMELINE_POINTS;
	if (st->point_stride_us == 0)
		st->point_stride_us = DEFAULT_STRIDE_US;
	st->next_point_us = ev->time_us;
}

/* What a stack allocated before the checkpoint: at no moment the
 * snapshots can tell. */
static void on_totals(struct replay_state *st, const struct mlyze_event *ev)
{
	size_t stack;
	struct estimate totals = {
		.samples = ev->totals.samples,
		.bytes = ev->totals.sum->bytes,
		.bytes_variance = ev->totals.sum->bytes_variance,
		.count = ev->totals.sum->count,
		.count_variance = ev->totals.sum->count_variance,
	};

	if (!in_stretch(st))
		return;
	if (st->thread) {
		st->h->totals_left_out = true;
		return;
	}
	stack = stack_index(st, ev->totals.stack);
	estimate_add(&st->now[stack].allocated, &totals);
	estimate_add(&st->now[stack].allocated_at_snapshot, &totals);
}

static void on_live(struct replay_state *st, const struct mlyze_event *ev)
{
	/* Live since before the checkpoint, where the trends start. */
	static const double origin[AXES];
	size_t stack;
	const struct block_weights *weights;

	if (!thread_followed(st, ev->live.thread))
		return;
	if (!in_stretch(st)) {
		st->h->born_outside++;
		return;
	}
	stack = stack_index(st, ev->live.stack);
	weights = weights_of(&st->weights, ev->live.size,
			     ev->live.sampling_rate);
	make_live(st, ev, ev->live.address, ev->live.size, stack,
		  ev->live.thread, weights, origin);
}

/* The whole live heap at an earlier checkpoint: not what a stretch
 * from a moment on holds. */
static void on_heap_point(struct replay_state *st,
			  const struct mlyze_event *ev)
{
	if (st->h->from.spec)
		return;
	add_point(st->h, (struct heap_point){
				 .time_us = ev->heap_point.time_us,
				 .bytes = ev->heap_point.sum->bytes,
				 .bytes_variance =
					 ev->heap_point.sum->bytes_variance,
				 .samples = ev->heap_point.samples });
}

/* The live bytes of every stack now are those at the moment asked for. */
static void take_moment(struct replay_state *st)
{
	for (size_t i = 0; i < st->h->stack_count; i++)
		st->h->by_stack[i].live[AT_TIME] = st->now[i].live;
}

/* The moments asked for in seconds that ev passes, before its replay. */
static void follow_times(struct replay_state *st, const struct mlyze_event *ev)
{
	struct heap_replay *h = st->h;

	if (moment_passes_before(&h->at, ev))
		take_moment(st);
	moment_passes_before(&h->from, ev);
	moment_passes_before(&h->to, ev);
}

/* The moments asked for by the name of the MARKER ev. */
static void follow_markers(struct replay_state *st,
			   const struct mlyze_event *ev)
{
	struct heap_replay *h = st->h;

	if (moment_passes_marker(&h->at, ev))
		take_moment(st);
	moment_passes_marker(&h->from, ev);
	moment_passes_marker(&h->to, ev);
}

static void replay_event(struct replay_state *st, const mlyze_reader *r,
			 const struct mlyze_event *ev, uint64_t first_rate)
{
	if (ev->type <= MLYZE_EVENT_MARKER)
		st->in_checkpoint = false;
	if (ev->type == MLYZE_EVENT_MAP)
		st->h->has_mappings = true;
	if (!counted(st, ev->type))
		return;
	switch (ev->type) {
	case MLYZE_EVENT_ALLOC:
		on_alloc(st, ev);
		break;
	case MLYZE_EVENT_FREE:
		release_at(st, ev->free.address, ev->time_us);
		break;
	case MLYZE_EVENT_MAP:
		on_map(st, ev);
		break;
	case MLYZE_EVENT_UNMAP:
		st->unmapped_counted =
			release_at(st, ev->unmap.address, ev->time_us);
		break;
	case MLYZE_EVENT_THREAD:
		on_thread(st, ev);
		break;
	case MLYZE_EVENT_RATE:
		st->h->rate_changed |= ev->rate.sampling_rate != first_rate;
		break;
	case MLYZE_EVENT_MARKER:
		st->position[PER_MARKER] = (double)++st->h->markers;
		keep_event(st, ev);
		follow_markers(st, ev);
		break;
	case MLYZE_EVENT_GC:
		keep_event(st, ev);
		break;
	case MLYZE_EVENT_CHECKPOINT:
		on_checkpoint(st, r, ev);
		break;
	case MLYZE_EVENT_TOTALS:
		on_totals(st, ev);
		break;
	case MLYZE_EVENT_LIVE:
		on_live(st, ev);
		break;
	case MLYZE_EVENT_HEAP_POINT:
		on_heap_point(st, ev);
		break;
	case MLYZE_EVENT_MEMORY:
		keep_memory(st, ev);
		break;
	default:
		break;
	}
}

static double seconds_since(uint64_t origin_us, uint64_t time_us)
{
	return time_us > origin_us ? (double)(time_us - origin_us) / 1e6 : 0.0;
}

/* The trends per second end when the process is known to have lived
 * to, if that is after its last event. */
static void run_trends_until(struct replay_state *st)
{
	double until = seconds_since(st->origin_us, st->until_us);

	if (st->growth && until > st->position[PER_SECOND])
		pass_seconds(st, until);
}

/* The kinds of memory a stack's samples held: a line of Python whose
 * objects live in arenas that it mapped holds both; a stack without
 * samples (a stretch left them out) counts as heap. */
static unsigned stack_kinds_of(const struct stack_now *now)
{
	unsigned kinds = (now->heap ? KIND_HEAP : 0) |
			 (now->mapped ? KIND_MAPPED : 0);

	return kinds ? kinds : KIND_HEAP;
}

/* What was allocated, what is still live at the end, and the totals. */
static void finish(struct replay_state *st)
{
	struct heap_replay *h = st->h;
	const struct u64map_slot *slot;
	struct estimator_weight w;
	size_t cursor = 0;

	/* A moment after the last event: the state at the end. */
	if (h->at.spec && h->at.spec->kind == MOMENT_SECONDS && !h->at.passed) {
		take_moment(st);
		h->at.passed = true;
		h->at.passed_us = h->at.time_us;
	}
	if (st->snapshots_wanted)
		h->allocated_after_snapshots = allocated_since_snapshot(st);
	run_trends_until(st);
	while ((slot = u64map_next(&st->blocks.by_address, &cursor))) {
		w = block_weight(&st->blocks, slot->value);
		add_weight(&h->by_stack[slot->value.b >> 32].live[AT_END], &w);
		add_life(st, slot->value, &w);
		tell_life(st, slot->value, &w, h->last_time_us, true);
	}
	h->stack_kinds = xcalloc(h->stack_count ? h->stack_count : 1,
				 sizeof(*h->stack_kinds));
	for (size_t i = 0; i < h->stack_count; i++) {
		h->stack_kinds[i] = stack_kinds_of(&st->now[i]);
		h->by_stack[i].allocated = st->now[i].allocated;
		h->by_stack[i].live[AT_PEAK] = peak_of_stack(st, i);
		for (int a = 0; a < AXES; a++)
			h->by_stack[i].growth[a] = trend_of(
				&st->now[i].growth[a], st->position[a]);
		if (st->recent)
			h->by_stack[i].growth[PER_SECOND] = trend_window_of(
				&st->window, &st->recent[i],
				st->position[PER_SECOND]);
		heap_estimates_add(&h->total, &h->by_stack[i]);
		if (st->now[i].mapped)
			h->mapped_peak_bytes += h->by_stack[i].live[AT_PEAK].bytes;
	}
	if (h->timeline[h->timeline_count - 1].time_us < h->last_time_us)
		add_point(h, live_now(st, h->last_time_us));
	for (int half = 0; half < ESTIMATOR_HALVES; half++)
		add_peak_point(h, st->halves[half].point);
	h->peak_time_us = peak_moment(st);
	h->peak_level_share = share_at_peak_level(h);
}

static void free_state(struct replay_state *st)
{
	u64map_free(&st->blocks.by_address);
	weight_memo_free(&st->weights);
	free(st->blocks.slots);
	free(st->blocks.vacant);
	free(st->now);
	free(st->recent);
	for (int half = 0; half < ESTIMATOR_HALVES; half++)
		free(st->halves[half].changed);
	free_amounts(&st->dropped_allocations);
}

/* Events are read in batches (mlyze_next_events()).  The block an ALLOC
 * or FREE looks up is seldom in cache: it starts loading a few events
 * ahead of its replay, and halfway there, what the block leads to (a
 * freed block's slot, the stack's estimates) starts loading too.  Only
 * ALLOCs and FREEs: they alone are followed by others in a batch. */
#define BATCH_EVENTS 64
#define READ_AHEAD 8
#define LOAD_AHEAD (READ_AHEAD / 2)

static bool looks_up_block(const struct mlyze_event *ev)
{
	return ev->type == MLYZE_EVENT_ALLOC || ev->type == MLYZE_EVENT_FREE;
}

static void prefetch_block(const struct replay_state *st,
			   const struct mlyze_event *ev)
{
	if (ev->type == MLYZE_EVENT_ALLOC) {
		u64map_prefetch(&st->blocks.by_address, ev->alloc.address);
		__builtin_prefetch(ev->alloc.stack); /* for its index */
	} else {
		u64map_prefetch(&st->blocks.by_address, ev->free.address);
	}
}

#define CACHE_LINE 64

/* Every cache line of [start, start + bytes): a slot or the part of a
 * stack_now that an event touches may straddle two lines or more. */
static void prefetch_range(const void *start, size_t bytes)
{
	const char *line = start, *end = line + bytes;

	for (; line < end; line += CACHE_LINE)
		__builtin_prefetch(line);
	__builtin_prefetch(end - 1);
}

/* The slot and the stack's estimates that ev will touch (of a
 * stack_now, the part that every ALLOC and FREE does). */
static void prefetch_touched(const struct replay_state *st,
			     const struct mlyze_event *ev)
{
	const struct u64map_value *block;
	size_t stack;

	if (ev->type == MLYZE_EVENT_ALLOC) {
		stack = ev->alloc.stack->index;
	} else {
		block = u64map_get(&st->blocks.by_address, ev->free.address);
		if (!block)
			return;
		prefetch_range(&st->blocks.slots[block->b & UINT32_MAX],
			       sizeof(*st->blocks.slots));
		stack = block->b >> 32;
	}
	if (stack < st->h->stack_count)
		prefetch_range(&st->now[stack],
			       offsetof(struct stack_now, at_half_peak));
}

/* Starts loading what the events READ_AHEAD and LOAD_AHEAD after the
 * i-th will look up. */
static void prefetch_ahead(const struct replay_state *st,
			   const struct mlyze_event *events, int count, int i)
{
	if (i + READ_AHEAD < count && looks_up_block(&events[i + READ_AHEAD]))
		prefetch_block(st, &events[i + READ_AHEAD]);
	if (i + LOAD_AHEAD < count && looks_up_block(&events[i + LOAD_AHEAD]))
		prefetch_touched(st, &events[i + LOAD_AHEAD]);
}

static void replay_batch(struct replay_state *st, mlyze_reader *r,
			 const struct mlyze_event *events, int count,
			 const struct replay_options *options,
			 uint64_t first_rate)
{
	struct heap_replay *h = st->h;

	for (int i = 0; i < count && i < READ_AHEAD; i++)
		if (looks_up_block(&events[i]))
			prefetch_block(st, &events[i]);
	for (int i = 0; i < count; i++) {
		const struct mlyze_event *ev = &events[i];

		prefetch_ahead(st, events, count, i);
		if (st->follows_moments)
			follow_times(st, ev);
		if (st->growth)
			pass_seconds(st, seconds_since(st->origin_us,
						       ev->time_us));
		replay_event(st, r, ev, first_rate);
		if (!st->in_checkpoint)
			follow_time(st, ev->time_us);
	}
	/* The events the process wrote: not the SYMBOL events that
	 * memprof-report --symbolize adds, which say what its code is (an
	 * event of a type other than ALLOC and FREE ends a batch, so only
	 * the last can be one).  A tick when the batch passes a multiple
	 * of TICK_EVENTS. */
	h->events += (uint64_t)count -
		     (events[count - 1].type == MLYZE_EVENT_SYMBOL);
	if (h->events % TICK_EVENTS < (uint64_t)count && options &&
	    options->tick)
		options->tick(options->tick_ctx, r);
	h->last_time_us = events[count - 1].time_us;
}

static void start_moments(struct heap_replay *h,
			  const struct replay_options *options,
			  uint64_t start_us)
{
	moment_track_start(&h->at, options ? options->at : NULL, PASSED_AFTER,
			   start_us);
	moment_track_start(&h->from, options ? options->from : NULL,
			   PASSED_AT, start_us);
	moment_track_start(&h->to, options ? options->to : NULL, PASSED_AT,
			   start_us);
}

struct heap_follower {
	struct replay_state st;
	struct heap_replay h; /* what the events so far made, unfinished */
	struct replay_options options;
	uint64_t first_rate;
};

struct heap_follower *heap_follower_new(const mlyze_reader *r,
					const struct replay_options *options)
{
	struct heap_follower *f = xcalloc(1, sizeof(*f));

	if (options)
		f->options = *options;
	f->st.h = &f->h;
	u64map_init(&f->st.blocks.by_address);
	weight_memo_init(&f->st.weights);
	f->h.last_time_us = f->h.peak_time_us = mlyze_info(r)->start_time_us;
	f->st.origin_us = mlyze_info(r)->start_time_us;
	f->first_rate = mlyze_info(r)->sampling_rate;
	start_time_series(&f->st, r, &f->options);
	start_moments(&f->h, &f->options, f->st.origin_us);
	f->st.follows_moments = f->h.at.spec || f->h.from.spec || f->h.to.spec;
	return f;
}

int heap_follower_read(struct heap_follower *f, mlyze_reader *r)
{
	struct mlyze_event events[BATCH_EVENTS];
	int rc;

	while ((rc = mlyze_next_events(r, events, BATCH_EVENTS)) > 0)
		replay_batch(&f->st, r, events, rc, &f->options, f->first_rate);
	return rc;
}

static void *copy_of(const void *from, size_t count, size_t size)
{
	void *to = xcalloc(count + 1, size);

	if (count)
		memcpy(to, from, count * size);
	return to;
}

static void copy_amounts(struct stack_amounts *to,
			 const struct stack_amounts *from)
{
	to->count = from->count;
	to->stacks = copy_of(from->stacks, from->count, sizeof(*to->stacks));
	to->amounts = copy_of(from->amounts, from->count, sizeof(*to->amounts));
}

static void copy_snapshot(struct heap_snapshot *to,
			  const struct heap_snapshot *from)
{
	*to = *from;
	to->stacks = copy_of(from->stacks, from->count, sizeof(*to->stacks));
	to->bytes = copy_of(from->bytes, from->count, sizeof(*to->bytes));
	to->bytes_variance = copy_of(from->bytes_variance, from->count,
				     sizeof(*to->bytes_variance));
	to->samples = copy_of(from->samples, from->count, sizeof(*to->samples));
	copy_amounts(&to->allocated, &from->allocated);
}

/* A copy of `from` that owns all it points to. */
static void copy_replay(struct heap_replay *to, const struct heap_replay *from)
{
	*to = *from;
	to->by_stack = copy_of(from->by_stack, from->stack_count,
			       sizeof(*to->by_stack));
	to->timeline = copy_of(from->timeline, from->timeline_count,
			       sizeof(*to->timeline));
	to->events_kept = copy_of(from->events_kept, from->events_kept_count,
				  sizeof(*to->events_kept));
	for (size_t i = 0; i < to->events_kept_count; i++)
		if (from->events_kept[i].name)
			to->events_kept[i].name =
				xstrdup(from->events_kept[i].name);
	to->snapshots = copy_of(from->snapshots, from->snapshot_count,
				sizeof(*to->snapshots));
	for (size_t i = 0; i < to->snapshot_count; i++)
		copy_snapshot(&to->snapshots[i], &from->snapshots[i]);
	to->memory.points = copy_of(from->memory.points, from->memory.count,
				    sizeof(*to->memory.points));
	to->memory.capacity = from->memory.count;
	copy_amounts(&to->allocated_after_snapshots,
		     &from->allocated_after_snapshots);
	if (from->thread_names) {
		to->thread_names = xcalloc(THREAD_IDS, sizeof(char *));
		for (size_t i = 0; i < THREAD_IDS; i++)
			if (from->thread_names[i])
				to->thread_names[i] =
					xstrdup(from->thread_names[i]);
	}
	to->stack_kinds = from->stack_kinds
				  ? copy_of(from->stack_kinds, from->stack_count,
					    sizeof(*to->stack_kinds))
				  : NULL;
}

void heap_follower_result(const struct heap_follower *f, uint64_t until_us,
			  struct heap_replay *out)
{
	/* finish() adds the lives of the blocks still live to the trends
	 * of their stacks, and the end to the series: on copies, so that
	 * the events to come find the follower as the events so far left
	 * it.  The live blocks and the halves' peaks are only read. */
	struct replay_state st = f->st;

	copy_replay(out, &f->h);
	st.h = out;
	st.now = copy_of(f->st.now, f->h.stack_count, sizeof(*st.now));
	if (f->st.recent)
		st.recent = copy_of(f->st.recent, f->h.stack_count,
				    sizeof(*st.recent));
	st.until_us = until_us;
	finish(&st);
	free(st.now);
	free(st.recent);
}

size_t heap_follower_bytes(const struct heap_follower *f)
{
	const struct replay_state *st = &f->st;
	size_t map = st->blocks.by_address.slots
			     ? (st->blocks.by_address.mask + 1) *
				       (sizeof(struct u64map_slot) + 1)
			     : 0;

	return sizeof(*f) + map +
	       st->blocks.capacity * (sizeof(struct slot) + sizeof(uint32_t)) +
	       (st->recent ? f->h.stack_count * sizeof(*st->recent) : 0) +
	       f->h.stack_count * (sizeof(struct stack_now) +
				   sizeof(struct heap_estimates) +
				   ESTIMATOR_HALVES * sizeof(size_t)) +
	       f->h.timeline_count * sizeof(struct heap_point) +
	       st->events_capacity * sizeof(struct heap_event) +
	       f->h.memory.capacity * sizeof(struct memory_point);
}

void heap_follower_free(struct heap_follower *f)
{
	if (!f)
		return;
	free_state(&f->st);
	heap_replay_free(&f->h);
	free(f);
}

int heap_replay(mlyze_reader *r, struct heap_replay *h,
		const struct replay_options *options)
{
	struct heap_follower *f = heap_follower_new(r, options);
	int rc = heap_follower_read(f, r);

	if (rc == 0)
		heap_follower_result(f, f->options.until_us, h);
	else
		memset(h, 0, sizeof(*h));
	heap_follower_free(f);
	return rc;
}

uint64_t heap_replay_end_us(const mlyze_reader *r, const struct heap_replay *h)
{
	const struct mlyze_info *info = mlyze_info(r);

	return info->end_time_us ? info->end_time_us : h->last_time_us;
}

void heap_replay_free(struct heap_replay *h)
{
	for (size_t i = 0; i < h->events_kept_count; i++)
		free(h->events_kept[i].name);
	for (size_t i = 0; i < h->snapshot_count; i++)
		free_snapshot(&h->snapshots[i]);
	free(h->events_kept);
	free(h->snapshots);
	free(h->timeline);
	free(h->by_stack);
	if (h->thread_names)
		for (size_t i = 0; i < THREAD_IDS; i++)
			free(h->thread_names[i]);
	free(h->thread_names);
	free_amounts(&h->allocated_after_snapshots);
	free(h->stack_kinds);
	memory_series_free(&h->memory);
	memset(h, 0, sizeof(*h));
}
