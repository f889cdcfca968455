/* mapping_table.c - the sampled anonymous mappings still mapped (see
 * mapping_table.h).
 *
 * A treap (a binary search tree by address, kept balanced by random
 * priorities) over a static pool of nodes: mappings never overlap (the
 * kernel gives none, and every change the program makes to them cuts the
 * table), so their ends are in the order of their starts, and the
 * mappings a range touches are one run of the tree, split off and merged
 * back in logarithmic time.  A program that maps often unmaps as often,
 * mostly mappings that were not sampled: one descent of the tree is what
 * such a munmap() costs.  Static storage, which costs nothing untouched.
 */
#include "config.h"

#include "mapping_table.h"

#include <stdatomic.h>

#include "spinlock.h"

#define NONE 0 /* nodes are numbered from 1 */

struct node {
	struct sampled_mapping m;
	uint32_t left, right; /* NONE when absent; `left` links free nodes */
	uint32_t priority;    /* a parent's is no less than its children's */
};

static struct node nodes[MAPPINGS_MAX + 1];
static uint32_t root, free_list, never_used = 1;
static uint32_t random_state = 0x9E3779B9u;
static _Atomic size_t mapping_count;
static _Atomic int table_lock;
static _Atomic uint64_t drops;

int mapping_table_empty(void)
{
	return atomic_load_explicit(&mapping_count, memory_order_relaxed) == 0;
}

void mapping_table_lock(void)
{
	spin_lock(&table_lock);
}

void mapping_table_unlock(void)
{
	spin_unlock(&table_lock);
}

static void count_by(long change)
{
	atomic_fetch_add_explicit(&mapping_count, (size_t)change,
				  memory_order_relaxed);
}

static void note_drop(void)
{
	atomic_fetch_add_explicit(&drops, 1, memory_order_relaxed);
}

/* xorshift32: balance needs no better randomness. */
static uint32_t next_priority(void)
{
	random_state ^= random_state << 13;
	random_state ^= random_state >> 17;
	random_state ^= random_state << 5;
	return random_state;
}

static uint32_t new_node(const struct sampled_mapping *m)
{
	uint32_t n = free_list;

	if (n != NONE)
		free_list = nodes[n].left;
	else if (never_used <= MAPPINGS_MAX)
		n = never_used++;
	else
		return NONE;
	nodes[n] = (struct node){ .m = *m, .priority = next_priority() };
	count_by(1);
	return n;
}

static void free_node(uint32_t n)
{
	nodes[n].left = free_list;
	free_list = n;
	count_by(-1);
}

/* Splits tree t into the mappings that start before `address` (*before)
 * and the others (*after). */
static void split(uint32_t t, uintptr_t address, uint32_t *before,
		  uint32_t *after)
{
	if (t == NONE) {
		*before = *after = NONE;
	} else if (nodes[t].m.start < address) {
		split(nodes[t].right, address, &nodes[t].right, after);
		*before = t;
	} else {
		split(nodes[t].left, address, before, &nodes[t].left);
		*after = t;
	}
}

/* One tree of a and b, every mapping of a before every one of b. */
static uint32_t merge(uint32_t a, uint32_t b)
{
	if (a == NONE || b == NONE)
		return a != NONE ? a : b;
	if (nodes[a].priority >= nodes[b].priority) {
		nodes[a].right = merge(nodes[a].right, b);
		return a;
	}
	nodes[b].left = merge(a, nodes[b].left);
	return b;
}

/* The mapping of tree t that starts last, taken out of it (NONE when t
 * is empty). */
static uint32_t take_last(uint32_t *t)
{
	uint32_t *at = t, last;

	if (*t == NONE)
		return NONE;
	while (nodes[*at].right != NONE)
		at = &nodes[*at].right;
	last = *at;
	*at = nodes[last].left;
	nodes[last].left = NONE;
	return last;
}

int mapping_table_add(const struct sampled_mapping *m)
{
	uint32_t n = new_node(m), before, after;

	if (n == NONE) {
		note_drop();
		return 0;
	}
	split(root, m->start, &before, &after);
	root = merge(merge(before, n), after);
	return 1;
}

static uintptr_t end_of(const struct sampled_mapping *m)
{
	return m->start + m->length;
}

int mapping_table_touches(uintptr_t start, uint64_t length)
{
	uintptr_t end = start + length;
	uint32_t t = root, last = NONE;

	/* The mapping that starts last before the range ends is the only
	 * one that may reach into it. */
	while (t != NONE) {
		if (nodes[t].m.start < end) {
			last = t;
			t = nodes[t].right;
		} else {
			t = nodes[t].left;
		}
	}
	return last != NONE && end_of(&nodes[last].m) > start;
}

/* The part of m from `from` to `to`, weighed as m is. */
static struct sampled_mapping piece_of(const struct sampled_mapping *m,
				       uintptr_t from, uintptr_t to)
{
	struct sampled_mapping piece = *m;
	uint64_t rate = (uint64_t)((double)m->sampling_rate *
				   (double)(to - from) / (double)m->length);

	piece.start = from;
	piece.length = to - from;
	piece.sampling_rate = rate ? rate : 1;
	return piece;
}

/* Hands every mapping of tree t to gone() (and keeps the part of it
 * past `end`, which only its last can have, in *beyond), and frees its
 * nodes. */
static void forget_tree(uint32_t t, uintptr_t end,
			void (*gone)(void *, const struct sampled_mapping *),
			void *ctx, struct sampled_mapping *beyond, int *kept)
{
	if (t == NONE)
		return;
	forget_tree(nodes[t].left, end, gone, ctx, beyond, kept);
	if (end_of(&nodes[t].m) > end) {
		*beyond = piece_of(&nodes[t].m, end, end_of(&nodes[t].m));
		*kept = 1;
	}
	gone(ctx, &nodes[t].m);
	forget_tree(nodes[t].right, end, gone, ctx, beyond, kept);
	free_node(t);
}

/* Adds a piece left by a cut, and says so. */
static void keep_piece(const struct sampled_mapping *piece,
		       void (*left)(void *, const struct sampled_mapping *),
		       void *ctx)
{
	if (mapping_table_add(piece))
		left(ctx, piece);
}

void mapping_table_cut(uintptr_t start, uint64_t length,
		       void (*gone)(void *ctx,
				    const struct sampled_mapping *m),
		       void (*left)(void *ctx,
				    const struct sampled_mapping *piece),
		       void *ctx)
{
	uintptr_t end = start + length;
	uint32_t before, inside, after, last;
	struct sampled_mapping ahead, beyond;
	int has_ahead = 0, has_beyond = 0;

	if (root == NONE || !mapping_table_touches(start, length))
		return;
	split(root, start, &before, &inside);
	split(inside, end, &inside, &after);
	/* The last mapping to start before the range may reach into it. */
	last = take_last(&before);
	if (last != NONE && end_of(&nodes[last].m) <= start) {
		before = merge(before, last);
	} else if (last != NONE) {
		ahead = piece_of(&nodes[last].m, nodes[last].m.start, start);
		has_ahead = 1;
		if (end_of(&nodes[last].m) > end) {
			beyond = piece_of(&nodes[last].m, end,
					  end_of(&nodes[last].m));
			has_beyond = 1;
		}
		gone(ctx, &nodes[last].m);
		free_node(last);
	}
	forget_tree(inside, end, gone, ctx, &beyond, &has_beyond);
	root = merge(before, after);
	if (has_ahead)
		keep_piece(&ahead, left, ctx);
	if (has_beyond)
		keep_piece(&beyond, left, ctx);
}

uint64_t mapping_table_drops(void)
{
	return atomic_load_explicit(&drops, memory_order_relaxed);
}

void mapping_table_postfork_child(void)
{
	atomic_store(&table_lock, 0);
}
