/* mapping_table.c - the sampled anonymous mappings still mapped (see
 * mapping_table.h).
 *
 * An unordered array: sampled mappings are few (a mapping is picked with
 * the probability of a block of its size, and programs map seldom), so a
 * cut scans them all.  Static storage, which costs nothing untouched. */
#include "config.h"

#include "mapping_table.h"

#include <stdatomic.h>

#include "spinlock.h"

static struct sampled_mapping mappings[MAPPINGS_MAX];
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

int mapping_table_add(const struct sampled_mapping *m)
{
	size_t n = atomic_load_explicit(&mapping_count, memory_order_relaxed);

	if (n == MAPPINGS_MAX) {
		atomic_fetch_add_explicit(&drops, 1, memory_order_relaxed);
		return 0;
	}
	mappings[n] = *m;
	atomic_store_explicit(&mapping_count, n + 1, memory_order_relaxed);
	return 1;
}

static int overlaps(const struct sampled_mapping *m, uintptr_t start,
		    uint64_t length)
{
	return m->start < start + length && start < m->start + m->length;
}

int mapping_table_touches(uintptr_t start, uint64_t length)
{
	size_t n = atomic_load_explicit(&mapping_count, memory_order_relaxed);

	for (size_t i = 0; i < n; i++)
		if (overlaps(&mappings[i], start, length))
			return 1;
	return 0;
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

void mapping_table_cut(uintptr_t start, uint64_t length,
		       void (*gone)(void *ctx,
				    const struct sampled_mapping *m),
		       void (*left)(void *ctx,
				    const struct sampled_mapping *piece),
		       void *ctx)
{
	size_t n = atomic_load_explicit(&mapping_count, memory_order_relaxed);
	/* Pieces are appended past the first n entries, which the scan
	 * covers: they lie outside the range anyway. */
	for (size_t i = 0; i < n;) {
		struct sampled_mapping m = mappings[i];
		uintptr_t end = m.start + m.length;
		struct sampled_mapping pieces[2];
		int count = 0;

		if (!overlaps(&m, start, length)) {
			i++;
			continue;
		}
		if (m.start < start)
			pieces[count++] = piece_of(&m, m.start, start);
		if (start + length < end)
			pieces[count++] = piece_of(&m, start + length, end);
		/* The last entry takes its place; the scan looks at it
		 * next, unless it was a piece. */
		size_t last = atomic_load_explicit(&mapping_count,
						   memory_order_relaxed) - 1;
		mappings[i] = mappings[last];
		atomic_store_explicit(&mapping_count, last,
				      memory_order_relaxed);
		if (last < n)
			n--;
		else
			i++;
		gone(ctx, &m);
		for (int p = 0; p < count; p++)
			if (mapping_table_add(&pieces[p]))
				left(ctx, &pieces[p]);
	}
}

uint64_t mapping_table_drops(void)
{
	return atomic_load_explicit(&drops, memory_order_relaxed);
}

void mapping_table_postfork_child(void)
{
	atomic_store(&table_lock, 0);
}
