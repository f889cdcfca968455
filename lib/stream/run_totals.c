/* run_totals.c - sums kept across checkpoints (see run_totals.h). */
#include "config.h"

#include "run_totals.h"

#include <string.h>

#include "rawmem.h"
#include "stack_table.h"

int run_totals_init(struct run_totals *t, uint32_t max_stacks)
{
	t->stacks = max_stacks + 1;
	t->by_stack = rawmem_map((size_t)t->stacks * sizeof(*t->by_stack));
	t->point_count = 0;
	return t->by_stack ? 0 : -1;
}

void run_sum_add(struct run_sum *sum, const struct estimator_weight *w)
{
	sum->samples++;
	sum->bytes += w->bytes;
	sum->bytes_variance += w->bytes_variance;
	sum->count += w->count;
	sum->count_variance += w->count_variance;
}

struct run_sum *run_totals_of(struct run_totals *t, uint32_t stack_id)
{
	return &t->by_stack[stack_id < t->stacks - 1 ? stack_id
						     : t->stacks - 1];
}

void run_totals_add_point(struct run_totals *t, const struct run_point *p)
{
	if (t->point_count == RUN_TOTALS_POINTS) {
		uint32_t kept = 0;

		for (uint32_t i = 0; i < t->point_count; i += 2)
			t->points[kept++] = t->points[i];
		t->point_count = kept;
	}
	t->points[t->point_count++] = *p;
}

void run_totals_clear(struct run_totals *t)
{
	memset(t->by_stack, 0, (size_t)t->stacks * sizeof(*t->by_stack));
	t->point_count = 0;
}
