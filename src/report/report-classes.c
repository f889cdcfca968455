/* report-classes.c - estimates of sampled blocks by stack and class (see
 * report-classes.h). */
#include "config.h"

#include "report-classes.h"
#include "report-util.h"

#include <stdlib.h>
#include <string.h>

void class_table_init(struct class_table *t)
{
	memset(t, 0, sizeof(*t));
	u64map_init(&t->index);
}

void class_table_free(struct class_table *t)
{
	u64map_free(&t->index);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

static uint64_t key_of(size_t stack, uint32_t class_id)
{
	return (uint64_t)stack << 32 | class_id;
}

/* The cell (stack, class_id), entered empty when it is new. */
static struct estimate *cell(struct class_table *t, size_t stack,
			     uint32_t class_id)
{
	bool existed;
	struct u64map_value *at =
		u64map_insert(&t->index, key_of(stack, class_id), &existed);

	if (!at)
		out_of_memory();
	if (!existed) {
		t->cells = xgrow(t->cells, &t->capacity, t->count + 1,
				 sizeof(*t->cells));
		t->cells[t->count] = (struct class_cell){
			.stack = stack, .class_id = class_id };
		at->a = t->count++;
	}
	return &t->cells[at->a].sum;
}

void class_table_add_weight(struct class_table *t, size_t stack,
			    uint32_t class_id, const struct estimator_weight *w)
{
	struct estimate one = { .samples = 1,
				.bytes = w->bytes,
				.bytes_variance = w->bytes_variance,
				.count = w->count,
				.count_variance = w->count_variance };

	estimate_add(cell(t, stack, class_id), &one);
}

const struct estimate *class_table_get(const struct class_table *t,
				       size_t stack, uint32_t class_id)
{
	const struct u64map_value *at =
		u64map_get(&t->index, key_of(stack, class_id));

	return at ? &t->cells[at->a].sum : NULL;
}

void class_table_merge(struct class_table *into, const struct class_table *from,
		       const size_t *stack_map)
{
	for (size_t i = 0; i < from->count; i++) {
		const struct class_cell *c = &from->cells[i];
		size_t stack = stack_map[c->stack];

		if (stack != SIZE_MAX)
			estimate_add(cell(into, stack, c->class_id), &c->sum);
	}
}
