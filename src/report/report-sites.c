/* report-sites.c - allocation sites (see report-sites.h). */
#include "config.h"

#include "estimator.h"
#include "report-sites.h"
#include "report-util.h"
#include "report-wrappers.h"

#include <stdlib.h>
#include <string.h>

const char *const sort_names[3] = { "live", "allocated", "count" };

const char *site_kind_name(unsigned kinds)
{
	static const char *const names[] = {
		[KIND_HEAP] = "heap",
		[KIND_MAPPED] = "mapped",
		[KIND_ALL] = "heap and mapped",
	};

	return names[kinds & KIND_ALL] ? names[kinds & KIND_ALL] : "heap";
}

/* The site of `key`, created with `text` when new. */
static struct site *find_site(struct site_table *table, const char *key,
			      const char *text)
{
	bool added;
	size_t i = text_index_intern(&table->keys, key, &added);
	struct site *s;

	if (!added) {
		s = &table->sites[i];
		/* Different texts under one key: show the key. */
		if (strcmp(s->text, text) != 0 && strcmp(s->text, s->key) != 0) {
			free(s->text);
			s->text = xstrdup(s->key);
		}
		return s;
	}
	table->sites = xgrow(table->sites, &table->capacity, i + 1,
			     sizeof(*table->sites));
	s = &table->sites[i];
	memset(s, 0, sizeof(*s));
	s->key = xstrdup(key);
	s->text = xstrdup(text);
	table->count = i + 1;
	return s;
}

/* The innermost frame that is neither an allocator nor code inlined from
 * the C++ standard library's headers, named or known by its address only
 * in a module (stripped code is a site of its own, "liblua.so+0x1230d":
 * charging it to the named function that calls it, which may be far out,
 * would name the wrong code), unless a Python frame calls the unnamed
 * frames (a C extension, charged to the line of the script that called
 * it); by stack,
 * the innermost that is not an allocator, so that the stack shows every
 * frame.  Else (no named frame) the innermost that is not an allocator;
 * else (nothing but allocators) the outermost, the best there is. */
static size_t site_frame(const struct site_table *table,
			 const struct stack_table *stacks,
			 const struct report_stack *stack)
{
	size_t first = stack_first_past_wrappers(stacks, stack);
	bool unnamed = false;
	size_t unnamed_at = 0;

	for (size_t i = first; i < stack->depth; i++) {
		const struct report_frame *f = &stacks->frames[stack->frames[i]];

		if (f->allocator)
			continue;
		if (table->grouping == GROUP_BY_STACK)
			return i;
		if (f->library_inline)
			continue;
		if (frame_is_named(f))
			return !unnamed || f->kind == FRAME_PYTHON ? i
								   : unnamed_at;
		if (!unnamed && f->kind == FRAME_NATIVE) {
			unnamed = true;
			unnamed_at = i;
		}
	}
	if (stacks->frames[stack->frames[first]].allocator)
		return stack->depth - 1;
	return first;
}

static void label(const struct site_table *table,
		  const struct stack_table *stacks,
		  const struct report_stack *stack, size_t i,
		  struct frame_label *out)
{
	frame_label(&stacks->frames[stack->frames[i]], stacks->modules,
		    table->grouping, out);
}

/* By stack: the site's frame and every caller make the key. */
static struct site *whole_stack_site(struct site_table *table,
				     const struct stack_table *stacks,
				     const struct report_stack *stack,
				     size_t site)
{
	size_t n = stack->depth - site;
	struct frame_label *labels = xcalloc(n, sizeof(*labels));
	struct strbuf key = { 0 };
	struct site *s;

	for (size_t i = 0; i < n; i++) {
		label(table, stacks, stack, site + i, &labels[i]);
		sb_printf(&key, "%s%s", i ? "\n" : "", labels[i].text);
	}
	s = find_site(table, key.text, labels[0].text);
	if (!s->frames) {
		s->frames = xcalloc(n, sizeof(*s->frames));
		memcpy(s->frames, stack->frames + site, n * sizeof(*s->frames));
	}
	if (!s->callers && n > 1) {
		s->caller_count = n - 1;
		s->callers = xcalloc(s->caller_count, sizeof(char *));
		for (size_t i = 0; i < s->caller_count; i++)
			s->callers[i] = xstrdup(labels[1 + i].text);
	}
	for (size_t i = 0; i < n; i++)
		frame_label_free(&labels[i]);
	free(labels);
	free(key.text);
	return s;
}

static struct site *one_frame_site(struct site_table *table,
				   const struct stack_table *stacks,
				   const struct report_stack *stack, size_t i)
{
	struct frame_label l;
	struct site *s;

	label(table, stacks, stack, i, &l);
	s = find_site(table, l.key, l.text);
	frame_label_free(&l);
	return s;
}

/* `stack` adds to site `s`. */
static void attribute(struct site *s, const struct stack_table *stacks,
		      const struct report_stack *stack)
{
	s->stacks = xgrow(s->stacks, &s->stack_capacity, s->stack_count + 1,
			  sizeof(*s->stacks));
	s->stacks[s->stack_count++] = (size_t)(stack - stacks->stacks);
	heap_estimates_add(&s->heap, &stack->heap);
	s->kinds |= stack->kinds;
}

/* Every function from the site out holds what the stack holds, once
 * however often it recurs: a site this stack was attributed to already
 * has it last in its list, which makes a deep stack cost its depth, not
 * its depth squared. */
static void add_cumulative(struct site_table *table,
			   const struct stack_table *stacks,
			   const struct report_stack *stack, size_t site)
{
	size_t stack_index = (size_t)(stack - stacks->stacks);

	for (size_t i = site; i < stack->depth; i++) {
		struct site *s = one_frame_site(table, stacks, stack, i);

		if (s->stack_count == 0 ||
		    s->stacks[s->stack_count - 1] != stack_index)
			attribute(s, stacks, stack);
	}
}

/* Counts the samples of `stack`, and adds them to a module's when a frame
 * of it known by its address only, though the module's file was read,
 * carries them: the site (frame `site`), or a frame between the allocator
 * and the site, which the site was chosen past (see
 * sites_unnamed_note()). */
static void count_unnamed(struct site_table *table,
			  const struct stack_table *stacks,
			  const struct report_stack *stack, size_t site)
{
	uint64_t samples = stack->heap.allocated.samples;

	table->samples_with_site += samples;
	for (size_t i = stack_first_shown(stacks, stack); i <= site; i++) {
		const struct report_frame *f =
			&stacks->frames[stack->frames[i]];

		if (f->kind == FRAME_NATIVE && !frame_is_named(f) &&
		    !f->module_unreadable && !f->allocator) {
			table->unnamed[f->module] += samples;
			return;
		}
	}
}

static void add_stack(struct site_table *table,
		      const struct stack_table *stacks,
		      const struct report_stack *stack)
{
	const char *placeholder = stack_placeholder(stack);
	size_t site;
	struct site *s;

	if (placeholder) {
		s = find_site(table, placeholder, placeholder);
	} else {
		site = site_frame(table, stacks, stack);
		count_unnamed(table, stacks, stack, site);
		if (table->cumulative) {
			add_cumulative(table, stacks, stack, site);
			return;
		}
		s = table->grouping == GROUP_BY_STACK
			    ? whole_stack_site(table, stacks, stack, site)
			    : one_frame_site(table, stacks, stack, site);
	}
	attribute(s, stacks, stack);
}

void sites_build(struct site_table *table, const struct stack_table *stacks,
		 enum grouping grouping, bool cumulative)
{
	memset(table, 0, sizeof(*table));
	table->grouping = grouping;
	table->cumulative = cumulative;
	text_index_init(&table->keys);
	table->unnamed = xcalloc(stacks->module_count + 1,
				 sizeof(*table->unnamed));
	for (size_t i = 0; i < stacks->stack_count; i++)
		add_stack(table, stacks, &stacks->stacks[i]);
	table->heap = stacks->heap;
}

void sites_free(struct site_table *table)
{
	for (size_t i = 0; i < table->count; i++) {
		struct site *s = &table->sites[i];

		free(s->key);
		free(s->text);
		for (size_t k = 0; k < s->caller_count; k++)
			free(s->callers[k]);
		free(s->callers);
		free(s->frames);
		free(s->stacks);
	}
	free(table->sites);
	free(table->unnamed);
	text_index_free(&table->keys);
	memset(table, 0, sizeof(*table));
}

char *sites_unnamed_note(const struct site_table *table,
			 const struct stack_table *stacks)
{
	uint64_t unnamed = 0;
	struct strbuf note = { 0 };

	for (size_t i = 0; i < stacks->module_count; i++)
		unnamed += table->unnamed[i];
	if (unnamed == 0 || (double)unnamed <= UNNAMED_SITES_LIMIT *
						       (double)table->samples_with_site)
		return NULL;
	sb_printf(&note, "%.0f %% of the sampled allocations are charged to "
		  "code known by its address only, or pass through it, in",
		  100.0 * (double)unnamed / (double)table->samples_with_site);
	sb_add_module_shares(&note, stacks, table->unnamed,
			     table->samples_with_site);
	sb_add(&note, ": no symbols were found for that code (stripped, and "
		      "no debug file). Install its debug symbols (on Debian, "
		      "the -dbgsym package of the package that ships it) or "
		      "name their directory with --debug-dir.");
#ifdef HAVE_DEBUGINFOD
	/* The symbolizer asks the servers of DEBUGINFOD_URLS for the debug
	 * file of a module by its build-id: without them it asks none. */
	const char *servers = getenv("DEBUGINFOD_URLS");

	if (!servers || !*servers)
		sb_add(&note, " Setting DEBUGINFOD_URLS (a debuginfod "
			      "server's address, e.g. "
			      "https://debuginfod.debian.net) lets "
			      "memprof-report fetch them by build-id.");
	else
		sb_add(&note, " The debuginfod servers of DEBUGINFOD_URLS had "
			      "none either.");
#endif
	return sb_take(&note);
}

const struct estimate *site_measure(const struct site *site,
				    enum sort_key key, enum moment at)
{
	return key == SORT_BY_LIVE ? &site->heap.live[at]
				   : &site->heap.allocated;
}

double site_value(const struct site *site, enum sort_key key,
		  enum moment at, double *variance)
{
	const struct estimate *e = site_measure(site, key, at);

	if (variance)
		*variance = key == SORT_BY_COUNT ? e->count_variance
						 : e->bytes_variance;
	return key == SORT_BY_COUNT ? e->count : e->bytes;
}

bool site_rough(const struct site *site, enum sort_key key, enum moment at)
{
	double variance, value = site_value(site, key, at, &variance);

	return value > 0 && estimator_interval95(variance) > ROUGH_INTERVAL * value;
}

static double sort_value(const struct site *s, enum sort_key key,
			 enum moment at)
{
	return site_value(s, key, at, NULL);
}

/* qsort has no context argument */
static enum sort_key sorting;
static enum moment sorting_at;

static int compare_sites(const void *pa, const void *pb)
{
	const struct site *a = pa, *b = pb;
	double va = sort_value(a, sorting, sorting_at),
	       vb = sort_value(b, sorting, sorting_at);

	if (va != vb)
		return va > vb ? -1 : 1;
	return strcmp(a->key, b->key);
}

void sites_sort(struct site_table *table, enum sort_key key, enum moment at)
{
	sorting = key;
	sorting_at = at;
	/* qsort wants a valid array even for no element. */
	if (table->count > 1)
		qsort(table->sites, table->count, sizeof(*table->sites),
		      compare_sites);
	/* Indexes moved: the key index no longer applies. */
	text_index_free(&table->keys);
}
