/* report-leaks.c - which sites keep growing over a profile (see
 * report-leaks.h).
 */
#include "config.h"

#include "estimator.h"
#include "report-compare.h"
#include "report-leaks.h"
#include "report-util.h"

#include <stdlib.h>
#include <string.h>

const char *const growth_verdict_names[3] = { "steady", "growing",
					      "shrinking" };

static int growing_first(const void *pa, const void *pb)
{
	const struct site_growth *a = pa, *b = pb;
	bool ga = a->verdict == GROWTH_GROWING, gb = b->verdict == GROWTH_GROWING;

	if (ga != gb)
		return ga ? -1 : 1;
	if (a->trend.slope != b->trend.slope)
		return a->trend.slope > b->trend.slope ? -1 : 1;
	return strcmp(a->site->key, b->site->key);
}

/* Holm's correction over every site. */
static void decide(struct leaks *l)
{
	double *p = xcalloc(l->count + 1, sizeof(*p));
	bool *significant = xcalloc(l->count + 1, sizeof(*significant));

	for (size_t i = 0; i < l->count; i++)
		p[i] = l->sites[i].p_value;
	l->significant = holm_significant(p, l->count, significant);
	for (size_t i = 0; i < l->count; i++) {
		struct site_growth *g = &l->sites[i];

		if (!significant[i])
			continue;
		g->verdict = g->trend.slope > 0 ? GROWTH_GROWING
						: GROWTH_SHRINKING;
		if (g->trend.slope > 0)
			l->growing++;
		else
			l->shrinking++;
	}
	free(p);
	free(significant);
}

void leaks_rank(struct leaks *l, const struct site_table *table,
		enum axis axis)
{
	memset(l, 0, sizeof(*l));
	l->axis = axis;
	l->sites = xcalloc(table->count + 1, sizeof(*l->sites));
	for (size_t i = 0; i < table->count; i++) {
		const struct site *s = &table->sites[i];
		struct site_growth *g = &l->sites[l->count];

		if (s->heap.allocated.samples == 0)
			continue;
		g->site = s;
		g->trend = s->heap.growth[axis];
		g->p_value = estimator_p_value(g->trend.slope,
					       g->trend.slope_variance);
		l->count++;
	}
	decide(l);
	qsort(l->sites, l->count, sizeof(*l->sites), growing_first);
}

void leaks_free(struct leaks *l)
{
	free(l->sites);
	memset(l, 0, sizeof(*l));
}
