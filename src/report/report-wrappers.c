/* report-wrappers.c - allocation wrappers (see report-wrappers.h). */
#include "config.h"

#include "report-wrappers.h"
#include "report-util.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Wrappers known by name, for profiles too small to show enough of
 * their callers: exact names, then prefixes. */
static const char *const known_wrappers[] = {
	"xmalloc", "xcalloc", "xrealloc", "xstrdup", "xzalloc",
	"strdup", "strndup", "__strdup", "__strndup",
	"g_malloc", "g_malloc0", "g_realloc", "g_try_malloc",
	"g_try_malloc0", "g_malloc_n", "g_malloc0_n", "g_realloc_n",
	"g_strdup", "g_strndup", "g_memdup2", "g_slice_alloc",
	"g_slice_alloc0",
	"palloc", "palloc0", "palloc_extended",
	"ngx_alloc", "ngx_calloc", "ngx_memalign", "ngx_pnalloc",
	"ngx_pcalloc", NULL
};
static const char *const known_wrapper_prefixes[] = {
	"zmalloc", "zcalloc", "zrealloc", "ztry", /* Redis */
	"MemoryContextAlloc", "AllocSetAlloc", "AllocSetRealloc", /* PostgreSQL */
	"repalloc",
	"Perl_safesys",
	"ngx_palloc",
	"CRYPTO_malloc", "CRYPTO_zalloc", "CRYPTO_realloc", "CRYPTO_strdup",
	"CRYPTO_strndup", "CRYPTO_memdup", "CRYPTO_clear_realloc", NULL
};

/* Code a wrapper may run on its way to the allocator: inlined into the
 * frame after it, or known by its address only (which cannot be judged;
 * a stripped library's static helpers). */
static bool on_the_way(const struct report_frame *f)
{
	return f->inlined || (f->kind == FRAME_NATIVE && !frame_is_named(f));
}

size_t stack_first_past_wrappers(const struct stack_table *table,
				 const struct report_stack *stack)
{
	size_t first = stack_first_shown(table, stack);

	for (size_t i = first; i < stack->depth; i++) {
		const struct report_frame *f = &table->frames[stack->frames[i]];

		if (f->wrapper)
			first = i + 1;
		else if (!on_the_way(f))
			break;
	}
	if (first < stack->depth)
		return first;
	return stack->depth ? stack->depth - 1 : 0;
}

/* No caller: the outermost frame of a stack. */
#define NO_CALLER SIZE_MAX

/* A name that says its function allocates: the stem every allocating
 * function of C libraries carries (malloc, calloc, palloc, alloc_root,
 * pool_alloc), of any case, in the function's own name: not in its
 * parameters, its template arguments or its class (a C++ name such as
 * grow_series(std::vector<double, std::allocator<double> >&) says
 * nothing of the kind). */
static bool name_says_it_allocates(const char *name)
{
	size_t end = strcspn(name, "(<"), start = end;

	while (start > 0 && name[start - 1] != ':' && name[start - 1] != ' ')
		start--;
	for (size_t i = start; i + 5 <= end; i++)
		if (!strncasecmp(name + i, "alloc", 5))
			return true;
	return false;
}

/* What the sampled stacks show of a function. */
struct function {
	bool candidate;   /* named native code, no allocator */
	bool named;       /* its name says it allocates */
	bool wrapper;
	enum wrapper_reason reason;
	/* In this round: some stack goes through it elsewhere than
	 * straight into the allocator. */
	bool does_more;
	size_t callers[WRAPPER_CALLERS]; /* the first distinct ones */
	size_t caller_count;
	uint64_t samples_passed; /* samples whose site passed over it */
};

struct functions {
	struct function *at;    /* by function index */
	size_t *of_frame;       /* by frame of the stack table */
	size_t count;
};

static void functions_build(struct functions *fns,
			    const struct stack_table *stacks)
{
	struct text_index names;

	text_index_init(&names);
	fns->of_frame = xcalloc(stacks->frame_count + 1,
				sizeof(*fns->of_frame));
	for (size_t i = 0; i < stacks->frame_count; i++) {
		char *name = frame_display_name(&stacks->frames[i],
						stacks->modules);

		bool added;

		fns->of_frame[i] = text_index_intern(&names, name, &added);
		free(name);
	}
	fns->count = names.count;
	fns->at = xcalloc(fns->count + 1, sizeof(*fns->at));
	for (size_t i = 0; i < stacks->frame_count; i++) {
		const struct report_frame *f = &stacks->frames[i];
		struct function *fn = &fns->at[fns->of_frame[i]];

		fn->candidate = f->kind == FRAME_NATIVE && frame_is_named(f) &&
				!f->allocator;
		/* The C++ library's allocation plumbing is inlined into
		 * its callers, and never a site anyway. */
		fn->named = fn->candidate && !f->inlined && !f->library_inline &&
			    name_says_it_allocates(f->function);
		fn->wrapper = fn->candidate && function_listed(f->function, known_wrappers,
						     known_wrapper_prefixes);
		fn->reason = fn->wrapper ? WRAPPER_BY_LIST : WRAPPER_NOT;
	}
	text_index_free(&names);
}

static void add_caller(struct function *fn, size_t caller)
{
	for (size_t i = 0; i < fn->caller_count; i++)
		if (fn->callers[i] == caller)
			return;
	if (fn->caller_count < WRAPPER_CALLERS)
		fn->callers[fn->caller_count++] = caller;
}

/* One stack, with the wrappers known so far: the frames up to the end of
 * the first function past the wrappers go straight into the allocator
 * (and their callers count); the frames after it do more.  A function
 * that allocates through code known by its address only does more, for
 * all one knows. */
static void observe(struct functions *fns, const struct stack_table *stacks,
		    const struct report_stack *stack)
{
	size_t first = stack_first_shown(stacks, stack);
	size_t last = stack_first_past_wrappers(stacks, stack);

	if (stacks->frames[stack->frames[first]].allocator)
		return;
	while (last + 1 < stack->depth &&
	       stacks->frames[stack->frames[last]].inlined)
		last++;
	for (size_t i = first; i < stack->depth; i++) {
		struct function *fn = &fns->at[fns->of_frame[stack->frames[i]]];

		if (i > last)
			fn->does_more = true;
		else
			add_caller(fn, i + 1 < stack->depth
					       ? fns->of_frame[stack->frames[i + 1]]
					       : NO_CALLER);
	}
}

/* Sets the frames' flags from their functions'. */
static void mark_frames(const struct functions *fns, struct stack_table *stacks)
{
	for (size_t i = 0; i < stacks->frame_count; i++) {
		const struct function *fn = &fns->at[fns->of_frame[i]];

		stacks->frames[i].wrapper = fn->wrapper;
		stacks->frames[i].wrapper_reason = (uint8_t)fn->reason;
		stacks->frames[i].wrapper_callers = (uint8_t)fn->caller_count;
	}
}

/* What this round's stacks make of a function that is no wrapper yet. */
static enum wrapper_reason judge(const struct function *fn)
{
	if (!fn->candidate || fn->does_more || fn->caller_count == 0)
		return WRAPPER_NOT;
	if (fn->caller_count >= WRAPPER_CALLERS)
		return WRAPPER_BY_CALLERS;
	if (fn->named)
		return WRAPPER_BY_NAME;
	/* One caller short: another window's samples may show one more. */
	return fn->caller_count + 1 == WRAPPER_CALLERS ? WRAPPER_FEW_CALLERS
						       : WRAPPER_NOT;
}

/* Looks at every stack with the wrappers known so far; returns whether it
 * found more.  Each round can only add wrappers (what goes straight into
 * the allocator only grows with them), so that rounds end. */
static bool find_more(struct functions *fns, struct stack_table *stacks)
{
	bool found = false;

	for (size_t i = 0; i < fns->count; i++) {
		fns->at[i].does_more = false;
		fns->at[i].caller_count = 0;
	}
	for (size_t i = 0; i < stacks->stack_count; i++)
		if (!stack_placeholder(&stacks->stacks[i]))
			observe(fns, stacks, &stacks->stacks[i]);
	for (size_t i = 0; i < fns->count; i++) {
		struct function *fn = &fns->at[i];

		if (fn->wrapper)
			continue;
		fn->reason = judge(fn);
		if (fn->reason != WRAPPER_NOT &&
		    fn->reason != WRAPPER_FEW_CALLERS) {
			fn->wrapper = true;
			found = true;
		}
	}
	mark_frames(fns, stacks);
	return found;
}

void wrappers_mark(struct stack_table *stacks)
{
	struct functions fns;

	functions_build(&fns, stacks);
	mark_frames(&fns, stacks);
	while (find_more(&fns, stacks))
		;
	free(fns.at);
	free(fns.of_frame);
}

/* Wrappers named in the note; the others are counted. */
#define NOTE_WRAPPERS 5

/* The samples whose site passed over each wrapper, and why it is one (by
 * index in names). */
struct passed {
	uint64_t samples;
	enum wrapper_reason reason;
};

static struct passed *samples_passed(const struct stack_table *stacks,
				     struct text_index *names)
{
	struct passed *passed = NULL;
	size_t capacity = 0;

	for (size_t i = 0; i < stacks->stack_count; i++) {
		const struct report_stack *s = &stacks->stacks[i];
		size_t past = stack_placeholder(s)
				      ? 0 : stack_first_past_wrappers(stacks, s);

		for (size_t k = stack_first_shown(stacks, s); k < past; k++) {
			const struct report_frame *f =
				&stacks->frames[s->frames[k]];
			char *name;
			bool added;
			size_t at;

			if (!f->wrapper)
				continue;
			name = frame_display_name(f, stacks->modules);
			at = text_index_intern(names, name, &added);
			free(name);
			passed = xgrow(passed, &capacity, at + 1,
				       sizeof(*passed));
			if (added)
				passed[at] = (struct passed){
					0, (enum wrapper_reason)f->wrapper_reason
				};
			passed[at].samples += s->heap.allocated.samples;
		}
	}
	return passed;
}

/* qsort has no context argument */
static const struct passed *sorting_passed;

static int more_samples_first(const void *pa, const void *pb)
{
	uint64_t a = sorting_passed[*(const size_t *)pa].samples,
		 b = sorting_passed[*(const size_t *)pb].samples;

	if (a != b)
		return a > b ? -1 : 1;
	return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

/* Why a wrapper is one, by enum wrapper_reason. */
static const char *const reason_texts[] = {
	[WRAPPER_BY_LIST] = "a known wrapper",
	[WRAPPER_BY_NAME] = "its name says it allocates",
	[WRAPPER_BY_CALLERS] = "3 callers or more",
};
_Static_assert(WRAPPER_CALLERS == 3, "reason_texts counts the callers");

static void note_wrappers(struct strbuf *note, const struct text_index *names,
			  const struct passed *passed)
{
	size_t *order = xcalloc(names->count, sizeof(*order));

	for (size_t i = 0; i < names->count; i++)
		order[i] = i;
	sorting_passed = passed;
	qsort(order, names->count, sizeof(*order), more_samples_first);
	sb_add(note, "Allocations through");
	for (size_t i = 0; i < names->count && i < NOTE_WRAPPERS; i++)
		sb_printf(note, "%s %s (%s)", i ? "," : "",
			  names->texts[order[i]],
			  reason_texts[passed[order[i]].reason]);
	if (names->count > NOTE_WRAPPERS)
		sb_printf(note, " and %zu more", names->count - NOTE_WRAPPERS);
	sb_add(note, ", which only pass allocations on to the allocator, "
		     "are charged to their callers; --keep-wrappers shows "
		     "them as sites.");
	free(order);
}

/* The functions that only hand allocations on, but from one caller too
 * few and without a name that says they allocate: the reason they are
 * sites where another profile of the same code, with one more caller in
 * its samples, finds wrappers. */
static void note_sites_for_want_of_callers(struct strbuf *note,
					   const struct stack_table *stacks)
{
	struct text_index names;

	text_index_init(&names);
	for (size_t i = 0; i < stacks->frame_count; i++) {
		const struct report_frame *f = &stacks->frames[i];
		char *name;
		bool added;

		if (f->wrapper_reason != WRAPPER_FEW_CALLERS)
			continue;
		name = frame_display_name(f, stacks->modules);
		text_index_intern(&names, name, &added);
		free(name);
		if (added && names.count <= NOTE_WRAPPERS)
			sb_printf(note, "%s%s (%u caller%s)",
				  names.count == 1 ? (note->length ? " " : "")
						   : ", ",
				  names.texts[names.count - 1],
				  f->wrapper_callers,
				  f->wrapper_callers == 1 ? "" : "s");
	}
	if (names.count > NOTE_WRAPPERS)
		sb_printf(note, " and %zu more", names.count - NOTE_WRAPPERS);
	if (names.count)
		sb_printf(note, " only pass%s allocations on to the allocator "
			  "too, but %s: a function whose name does not "
			  "say it allocates is a wrapper when %d callers or "
			  "more are sampled.", names.count == 1 ? "es" : "",
			  names.count == 1 ? "is a site" : "are sites",
			  WRAPPER_CALLERS);
	text_index_free(&names);
}

char *wrappers_note(const struct stack_table *stacks)
{
	struct text_index names;
	struct passed *passed;
	struct strbuf note = { 0 };

	text_index_init(&names);
	passed = samples_passed(stacks, &names);
	if (names.count)
		note_wrappers(&note, &names, passed);
	note_sites_for_want_of_callers(&note, stacks);
	free(passed);
	text_index_free(&names);
	return note.length ? sb_take(&note) : NULL;
}
