/* report-stacks.h - the stacks of a report, symbolized, merged across
 * profiles.
 *
 * Contract: keeps every stack of the profiles that allocated something
 * (only those: symbolizing is the costly part), as frames that say what
 * they are (function, file, line, module, kind), not as display text, so
 * that every view sees the same data.  A native frame of a profile becomes
 * one frame per function the compiler inlined at its address, then the
 * function that holds them.  Each stack knows where it ends: at an entry
 * point, or short of it (stacks_health_note).  Modules, frames and stacks
 * are each stored once: the same code in two profiles (other processes,
 * other addresses) is one frame, the same frames one stack, whose
 * estimates add up.
 */
#ifndef SPPROF_REPORT_STACKS_H
#define SPPROF_REPORT_STACKS_H

#include <stdbool.h>
#include <stddef.h>

#include "report-frames.h"
#include "report-heap.h"
#include "report-index.h"
#include "report-util.h"

/* Where a stack ends, from the leaf out. */
enum stack_end {
	STACK_END_ENTRY,  /* at the program's or a thread's entry point, or
			   * with Python frames (the interpreter's stack
			   * down to its outermost frame) */
	STACK_END_LIMIT,  /* cut by the runtime at its depth limit */
	STACK_END_BROKEN, /* short of both: callers are missing */
	STACK_END_UNKNOWN, /* in code without a name: nothing to judge by */
};

struct report_stack {
	size_t *frames; /* indexes in the table's frames, leaf first */
	size_t depth;
	bool damaged;   /* the profile could not define it: no frames */
	enum stack_end end;
	struct heap_estimates heap;
	unsigned kinds; /* enum memory_kind bits: what memory it holds */
};

/* The frames one frame of a profile became: `count` consecutive indexes
 * in the table's frames from `first` (a native frame is one frame per
 * function inlined at its address, then the function that holds them). */
struct frame_run {
	size_t first, count;
};

struct stack_table {
	struct report_module *modules;
	size_t module_count, module_capacity;
	struct report_frame *frames;
	size_t frame_count, frame_capacity;
	/* By index in frame_keys: the frames of a frame of a profile. */
	struct frame_run *runs;
	size_t run_capacity;
	struct report_stack *stacks;
	size_t stack_count, stack_capacity;
	struct heap_estimates heap; /* all stacks */
	struct text_index module_keys, frame_keys, stack_keys;
	/* Runs of native frames by module index (high 16 bits) and address:
	 * most frames are found here without building a text key. */
	struct u64map native_frames;
};

void stacks_init(struct stack_table *table);
void stacks_free(struct stack_table *table);
/* Add the estimates of one replayed profile (its reader still open).
 * Returns, by mlyze_stack.index, the index of each stack in the table
 * (SIZE_MAX for those that allocated nothing); the caller frees it. */
size_t *stacks_add_profile(struct stack_table *table,
			   struct frame_namer *namer,
			   const mlyze_reader *reader,
			   const struct heap_replay *replay);

/* "[no stack]" or "[unattributed: damaged stack]" for a stack without
 * frames, else NULL. */
const char *stack_placeholder(const struct report_stack *stack);
/* The first frame past the allocators at the leaf: where a view starts
 * (0 when every frame is an allocator). */
size_t stack_first_shown(const struct stack_table *table,
			 const struct report_stack *stack);

/* A note on the stacks that stop short of the entry point, naming the
 * modules they end in and what to do about them; NULL when too few do to
 * matter (however short the stacks are).  Belongs to the caller. */
char *stacks_health_note(const struct stack_table *table);
/* Appends ", "-separated "module (N %)" for the few modules with the most
 * of `samples` (by module index), as shares of `all`. */
void sb_add_module_shares(struct strbuf *sb, const struct stack_table *table,
			  const uint64_t *samples, uint64_t all);

#endif /* SPPROF_REPORT_STACKS_H */
