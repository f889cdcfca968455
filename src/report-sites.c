/* report-sites.c - allocation sites (see report-sites.h). */
#include "config.h"

#include "report-sites.h"
#include "report-util.h"

#include <stdlib.h>
#include <string.h>

#define NO_STACK "[no stack]"
/* A stack the profile could not define (see mlyze_stack.damaged): its
 * samples still count, here, so that the totals stay right. */
#define DAMAGED_STACK "[unattributed: damaged stack]"

const char *const sort_names[3] = { "live", "allocated", "count" };

void sites_init(struct site_table *table, enum grouping grouping)
{
	memset(table, 0, sizeof(*table));
	table->grouping = grouping;
	u64map_init(&table->by_hash);
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
	}
	free(table->sites);
	u64map_free(&table->by_hash);
	sites_init(table, table->grouping);
}

/* FNV-1a */
static uint64_t hash_text(const char *text)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *text; text++)
		h = (h ^ (unsigned char)*text) * UINT64_C(0x100000001b3);
	return h;
}

/* The site of `key`, created with `text` when new.  Keys whose hashes
 * collide move on to the next hash in a fixed sequence. */
static struct site *find_site(struct site_table *table, const char *key,
			      const char *text)
{
	uint64_t h = hash_text(key);
	const struct u64map_value *index;
	struct site *s;

	while ((index = u64map_get(&table->by_hash, h))) {
		s = &table->sites[index->a];
		if (strcmp(s->key, key) == 0) {
			/* Different texts under one key: show the key. */
			if (strcmp(s->text, text) != 0 &&
			    strcmp(s->text, s->key) != 0) {
				free(s->text);
				s->text = xstrdup(s->key);
			}
			return s;
		}
		h = h * UINT64_C(0x9e3779b97f4a7c15) + 1;
	}
	if (table->count == table->capacity) {
		table->capacity = table->capacity ? table->capacity * 2 : 256;
		table->sites = xrealloc(table->sites, table->capacity,
					sizeof(*table->sites));
	}
	if (u64map_put(&table->by_hash, h,
		       (struct u64map_value){ .a = table->count }) < 0)
		out_of_memory();
	s = &table->sites[table->count++];
	memset(s, 0, sizeof(*s));
	s->key = xstrdup(key);
	s->text = xstrdup(text);
	return s;
}

/* Label frames from the leaf until the first that is not an allocator
 * (or all of them, when grouping by stack); returns the site's index. */
static size_t label_frames(struct frame_namer *namer,
			   const struct mlyze_stack *stack,
			   enum grouping grouping, struct frame_label *labels)
{
	size_t site = stack->depth;

	for (size_t i = 0; i < stack->depth; i++) {
		if (site < stack->depth && grouping != GROUP_BY_STACK)
			break;
		frame_label(namer, &stack->frames[i], grouping, &labels[i]);
		if (site == stack->depth && !labels[i].allocator)
			site = i;
	}
	/* Nothing but allocators: the outermost one is the best we have. */
	return site == stack->depth ? stack->depth - 1 : site;
}

static struct site *site_of_stack(struct site_table *table,
				  struct frame_namer *namer,
				  const struct mlyze_stack *stack)
{
	struct frame_label *labels;
	struct strbuf key = { 0 };
	struct site *s;
	size_t site;

	if (stack->damaged)
		return find_site(table, DAMAGED_STACK, DAMAGED_STACK);
	if (stack->depth == 0)
		return find_site(table, NO_STACK, NO_STACK);
	labels = xcalloc(stack->depth, sizeof(*labels));
	site = label_frames(namer, stack, table->grouping, labels);
	if (table->grouping != GROUP_BY_STACK) {
		s = find_site(table, labels[site].key, labels[site].text);
	} else {
		for (size_t i = site; i < stack->depth; i++)
			sb_printf(&key, "%s%s", i > site ? "\n" : "",
				  labels[i].text);
		s = find_site(table, key.text, labels[site].text);
		if (!s->callers && stack->depth > site + 1) {
			s->caller_count = stack->depth - site - 1;
			s->callers = xcalloc(s->caller_count, sizeof(char *));
			for (size_t i = 0; i < s->caller_count; i++)
				s->callers[i] = xstrdup(labels[site + 1 + i].text);
		}
		free(key.text);
	}
	for (size_t i = 0; i < stack->depth; i++)
		frame_label_free(&labels[i]);
	free(labels);
	return s;
}

void sites_add_profile(struct site_table *table, struct frame_namer *namer,
		       const mlyze_reader *reader,
		       const struct heap_replay *replay)
{
	size_t n = mlyze_stack_count(reader);

	for (size_t i = 0; i < n && i < replay->stack_count; i++) {
		const struct heap_estimates *e = &replay->by_stack[i];
		struct site *s;

		if (e->allocated.samples == 0)
			continue;
		s = site_of_stack(table, namer, mlyze_stack_at(reader, i));
		heap_estimates_add(&s->heap, e);
	}
	heap_estimates_add(&table->heap, &replay->total);
}

static double sort_value(const struct site *s, enum sort_key key,
			 enum moment at)
{
	switch (key) {
	case SORT_BY_ALLOCATED:
		return s->heap.allocated.bytes;
	case SORT_BY_COUNT:
		return s->heap.allocated.count;
	default:
		return s->heap.live[at].bytes;
	}
}

uint64_t site_samples(const struct site *site, enum sort_key key,
		      enum moment at)
{
	return key == SORT_BY_LIVE ? site->heap.live[at].samples
				   : site->heap.allocated.samples;
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
	/* Indexes moved: the hash index no longer applies. */
	u64map_free(&table->by_hash);
}
