/* report-stacks.c - the stacks of a report (see report-stacks.h). */
#include "config.h"

#include "report-stacks.h"
#include "report-util.h"
#include "spprof/memprof.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NO_STACK "[no stack]"
/* A stack the profile could not define (see mlyze_stack.damaged): its
 * samples still count, so that the totals stay right. */
#define DAMAGED_STACK "[unattributed: damaged stack]"
/* Stacks short of the entry point in more than this share of the samples
 * are worth a note: a site here and there named without its callers is
 * not. */
#define BROKEN_STACKS_LIMIT 0.05
/* The modules a note names, the most frequent first. */
#define MODULES_NAMED 3

void stacks_init(struct stack_table *table)
{
	memset(table, 0, sizeof(*table));
	text_index_init(&table->module_keys);
	text_index_init(&table->frame_keys);
	text_index_init(&table->stack_keys);
	u64map_init(&table->native_frames);
}

void stacks_free(struct stack_table *table)
{
	for (size_t i = 0; i < table->module_count; i++) {
		free(table->modules[i].path);
		free(table->modules[i].build_id);
	}
	for (size_t i = 0; i < table->frame_count; i++)
		report_frame_free(&table->frames[i]);
	for (size_t i = 0; i < table->stack_count; i++)
		free(table->stacks[i].frames);
	free(table->modules);
	free(table->frames);
	free(table->runs);
	free(table->stacks);
	text_index_free(&table->module_keys);
	text_index_free(&table->frame_keys);
	text_index_free(&table->stack_keys);
	u64map_free(&table->native_frames);
	stacks_init(table);
}

/* Module indexes by the module ids of the profile being added, and its
 * reader, which holds the symbols the profile carries. */
struct profile_modules {
	struct u64map by_id;
	const mlyze_reader *reader;
};

/* The index of a module, added when new. */
static size_t new_module_index(struct stack_table *table,
			       const struct mlyze_module *m)
{
	char *key = xasprintf("%s\n%s", m->path, m->build_id ? m->build_id : "");
	bool added;
	size_t i = text_index_intern(&table->module_keys, key, &added);

	free(key);
	if (added) {
		table->modules = xgrow(table->modules, &table->module_capacity,
				       i + 1, sizeof(*table->modules));
		table->modules[i] = (struct report_module){
			.path = xstrdup(m->path),
			.build_id = m->build_id ? xstrdup(m->build_id) : NULL,
			.start = m->start,
			.end = m->end,
			.load_bias = m->load_bias,
		};
		table->module_count = i + 1;
	}
	return i;
}

static size_t module_index(struct stack_table *table,
			   struct profile_modules *seen,
			   const struct mlyze_module *m)
{
	const struct u64map_value *known = u64map_get(&seen->by_id, m->id);
	size_t i;

	if (known)
		return known->a;
	i = new_module_index(table, m);
	if (u64map_put(&seen->by_id, m->id, (struct u64map_value){ .a = i }) < 0)
		out_of_memory();
	return i;
}

/* The identity of a frame's code: its module and address, or its Python
 * file, function and line. */
static char *frame_key(const struct mlyze_frame *f, size_t module)
{
	struct strbuf key = { 0 };

	switch (f->form) {
	case MLYZE_FORM_MODULE:
		sb_add(&key, "N");
		sb_add_uint(&key, module, 10);
		sb_add(&key, ":");
		sb_add_uint(&key, f->offset, 16);
		break;
	case MLYZE_FORM_PYTHON:
		sb_printf(&key, "P%s\n%s\n%" PRIu64, f->file->text,
			  f->function->text, f->line);
		break;
	default:
		sb_add(&key, "A");
		sb_add_uint(&key, f->offset, 16);
	}
	return sb_take(&key);
}

/* A native frame as one number, when its module index and address fit. */
static bool native_number(const struct mlyze_frame *f, size_t module,
			  uint64_t *number)
{
	if (f->form != MLYZE_FORM_MODULE || module >= 1u << 16 ||
	    f->offset >= UINT64_C(1) << 48)
		return false;
	*number = (uint64_t)module << 48 | f->offset;
	return true;
}

/* Resolve `f` into new frames at the end of the table. */
static struct frame_run add_frames(struct stack_table *table,
				   struct frame_namer *namer,
				   const mlyze_reader *reader,
				   const struct mlyze_frame *f, size_t module)
{
	struct report_frame resolved[FRAME_CHAIN_MAX];
	struct frame_run run = { table->frame_count, 0 };

	run.count = frame_resolve(namer, reader, f, module, resolved);
	table->frames = xgrow(table->frames, &table->frame_capacity,
			      run.first + run.count, sizeof(*table->frames));
	memcpy(&table->frames[run.first], resolved,
	       run.count * sizeof(*resolved));
	table->frame_count = run.first + run.count;
	return run;
}

/* The frames of `f` in the table, resolved when new. */
static struct frame_run frame_run(struct stack_table *table,
				  struct frame_namer *namer,
				  struct profile_modules *seen,
				  const struct mlyze_frame *f)
{
	size_t module = f->form == MLYZE_FORM_MODULE
				? module_index(table, seen, f->module)
				: 0;
	const struct u64map_value *known;
	uint64_t number;
	bool numbered = native_number(f, module, &number), added;
	char *key;
	size_t i;

	if (numbered && (known = u64map_get(&table->native_frames, number)))
		return (struct frame_run){ known->a, known->b };
	key = frame_key(f, module);
	i = text_index_intern(&table->frame_keys, key, &added);
	free(key);
	if (added) {
		table->runs = xgrow(table->runs, &table->run_capacity, i + 1,
				    sizeof(*table->runs));
		table->runs[i] = add_frames(table, namer, seen->reader, f,
					    module);
	}
	if (numbered &&
	    u64map_put(&table->native_frames, number,
		       (struct u64map_value){ .a = table->runs[i].first,
					      .b = table->runs[i].count }) < 0)
		out_of_memory();
	return table->runs[i];
}

/* Where a complete native stack ends: the program's entry point, the C
 * library's functions that call main (a walk by frame pointers stops in
 * the one that calls main: the C library keeps none) and those that start
 * a thread. */
static const char *const entry_functions[] = {
	"_start", "__libc_start_main", "__libc_start_call_main",
	"start_thread", "clone", "clone3", "__clone", "__clone3",
	"__clone_internal",
};

static bool is_entry(const struct report_frame *f)
{
	if (f->kind != FRAME_NATIVE || !f->function)
		return false;
	for (size_t i = 0; i < sizeof(entry_functions) /
				       sizeof(entry_functions[0]); i++)
		if (strcmp(f->function, entry_functions[i]) == 0)
			return true;
	return false;
}

/* Whether the stack has Python frames: the interpreter gives all of its
 * stack, down to its outermost frame, so the callers of the site are
 * known whatever the native frames below them. */
static bool has_python_frames(const struct stack_table *table,
			      const size_t *frames, size_t depth)
{
	for (size_t i = 0; i < depth; i++)
		if (table->frames[frames[i]].kind == FRAME_PYTHON)
			return true;
	return false;
}

/* `recorded_depth`: the frames the profile recorded, before inlined
 * functions made more.  The frame before the outermost counts too: in a
 * stripped program, _start has no name, but what it calls has.  A stack
 * ending in code without a name (a module not found, stripped of its
 * symbols, or no module) cannot be judged. */
static enum stack_end stack_end(const struct stack_table *table,
				const size_t *frames, size_t depth,
				size_t recorded_depth)
{
	const struct report_frame *outermost;

	if (depth == 0)
		return STACK_END_ENTRY; /* nothing to judge */
	outermost = &table->frames[frames[depth - 1]];
	if (has_python_frames(table, frames, depth) || is_entry(outermost) ||
	    (depth > 1 && is_entry(&table->frames[frames[depth - 2]])))
		return STACK_END_ENTRY;
	if (recorded_depth >= MEMPROF_MAX_STACK_DEPTH)
		return STACK_END_LIMIT;
	return frame_is_named(outermost) ? STACK_END_BROKEN : STACK_END_UNKNOWN;
}

/* The index of a stack, added when new. */
static size_t stack_index(struct stack_table *table, struct frame_namer *namer,
			  struct profile_modules *seen,
			  const struct mlyze_stack *s)
{
	size_t *frames = NULL, depth = 0, capacity = 0;
	struct strbuf key = { 0 };
	bool added;
	size_t i;

	sb_add(&key, s->damaged ? "D" : "S");
	for (size_t k = 0; k < s->depth; k++) {
		struct frame_run run = frame_run(table, namer, seen,
						 &s->frames[k]);

		frames = xgrow(frames, &capacity, depth + run.count,
			       sizeof(*frames));
		for (size_t r = 0; r < run.count; r++) {
			frames[depth] = run.first + r;
			if (depth)
				sb_add(&key, ",");
			sb_add_uint(&key, frames[depth], 10);
			depth++;
		}
	}
	i = text_index_intern(&table->stack_keys, key.text, &added);
	free(key.text);
	if (!added) {
		free(frames);
		return i;
	}
	table->stacks = xgrow(table->stacks, &table->stack_capacity, i + 1,
			      sizeof(*table->stacks));
	table->stacks[i] = (struct report_stack){
		.frames = frames,
		.depth = depth,
		.damaged = s->damaged,
		.end = stack_end(table, frames, depth, s->depth),
	};
	table->stack_count = i + 1;
	return i;
}

size_t *stacks_add_profile(struct stack_table *table,
			   struct frame_namer *namer,
			   const mlyze_reader *reader,
			   const struct heap_replay *replay)
{
	size_t n = mlyze_stack_count(reader);
	size_t *map = xcalloc(replay->stack_count, sizeof(*map));
	struct profile_modules seen = { .reader = reader };

	u64map_init(&seen.by_id);
	for (size_t i = 0; i < replay->stack_count; i++) {
		const struct heap_estimates *e = &replay->by_stack[i];

		map[i] = SIZE_MAX;
		if (i >= n || e->allocated.samples == 0)
			continue;
		map[i] = stack_index(table, namer, &seen,
				     mlyze_stack_at(reader, i));
		heap_estimates_add(&table->stacks[map[i]].heap, e);
		table->stacks[map[i]].kinds |= replay->stack_kinds[i];
	}
	u64map_free(&seen.by_id);
	heap_estimates_add(&table->heap, &replay->total);
	return map;
}

const char *stack_placeholder(const struct report_stack *stack)
{
	if (stack->damaged)
		return DAMAGED_STACK;
	return stack->depth == 0 ? NO_STACK : NULL;
}

size_t stack_first_shown(const struct stack_table *table,
			 const struct report_stack *stack)
{
	for (size_t i = 0; i < stack->depth; i++)
		if (!table->frames[stack->frames[i]].allocator)
			return i;
	return 0;
}

/* One module's samples, to sort. */
struct module_samples {
	size_t module;
	uint64_t samples;
};

static int more_samples_first(const void *pa, const void *pb)
{
	const struct module_samples *a = pa, *b = pb;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return a->module < b->module ? -1 : a->module > b->module;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

void sb_add_module_shares(struct strbuf *sb, const struct stack_table *table,
			  const uint64_t *samples, uint64_t all)
{
	size_t n = table->module_count;
	struct module_samples *sorted = xcalloc(n + 1, sizeof(*sorted));

	for (size_t i = 0; i < n; i++)
		sorted[i] = (struct module_samples){ i, samples[i] };
	qsort(sorted, n, sizeof(*sorted), more_samples_first);
	for (size_t i = 0; i < MODULES_NAMED && sorted[i].samples; i++)
		sb_printf(sb, "%s %s (%.0f %%)", i ? "," : "",
			  base_name(table->modules[sorted[i].module].path),
			  100.0 * (double)sorted[i].samples / (double)all);
	free(sorted);
}

/* By module, the samples of the broken stacks that end there; *all and
 * *broken get the samples of every stack with frames and of the broken
 * ones. */
static uint64_t *broken_by_module(const struct stack_table *table,
				  uint64_t *all, uint64_t *broken)
{
	uint64_t *by_module = xcalloc(table->module_count + 1,
				      sizeof(*by_module));

	*all = *broken = 0;
	for (size_t i = 0; i < table->stack_count; i++) {
		const struct report_stack *stack = &table->stacks[i];
		uint64_t samples = stack->heap.allocated.samples;
		const struct report_frame *outermost;

		if (stack->depth == 0)
			continue;
		*all += samples;
		if (stack->end != STACK_END_BROKEN)
			continue;
		*broken += samples;
		/* Named: a native frame in a module. */
		outermost = &table->frames[stack->frames[stack->depth - 1]];
		by_module[outermost->module] += samples;
	}
	return by_module;
}

char *stacks_health_note(const struct stack_table *table)
{
	uint64_t all, broken;
	uint64_t *by_module = broken_by_module(table, &all, &broken);
	struct strbuf note = { 0 };

	if (broken == 0 || (double)broken <= BROKEN_STACKS_LIMIT * (double)all) {
		free(by_module);
		return NULL;
	}
	sb_printf(&note, "%.0f %% of the sampled allocations have stacks that "
		  "stop short of the program's entry point, so their sites may "
		  "miss callers. They end in",
		  100.0 * (double)broken / (double)all);
	sb_add_module_shares(&note, table, by_module, all);
	sb_add(&note, ": the runtime found no way out of that code, neither "
		      "frame pointers nor unwind tables it could follow "
		      "(SPPROF_UNWIND=fp reads none); rebuild it with "
		      "-fno-omit-frame-pointer or -fasynchronous-unwind-tables.");
	free(by_module);
	return sb_take(&note);
}
