/* report-compare.c - what changed at each site between two sets of
 * profiles (see report-compare.h).
 */
#include "config.h"

#include "estimator.h"
#include "report-compare.h"
#include "report-index.h"
#include "report-util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const verdict_names[3] = { "no significant change", "grown",
				       "shrunk" };

/* The change of `c`'s site with the estimate of one side. */
static void add_side(struct site_change *c, const struct site *s,
		     enum sort_key sort, enum moment at, bool is_base)
{
	double variance, value = site_value(s, sort, at, &variance);

	if (is_base) {
		c->base = value;
		c->base_variance = variance;
	} else {
		c->now = value;
		c->now_variance = variance;
	}
	if (!c->key || !is_base) {
		c->key = s->key;
		c->text = s->text;
	}
}

static void weigh_change(struct site_change *c)
{
	c->change = c->now - c->base;
	c->change_variance = c->now_variance + c->base_variance;
	c->p_value = estimator_p_value(c->change, c->change_variance);
}

/* Every site with samples in the measure on either side, matched by key
 * through `keys` (site index -> change index). */
static void match_sites(struct comparison *c, struct text_index *keys,
			size_t *capacity, const struct site_table *t,
			bool is_base)
{
	for (size_t i = 0; i < t->count; i++) {
		const struct site *s = &t->sites[i];
		bool added;
		size_t at;

		if (site_measure(s, c->sort, c->at)->samples == 0)
			continue;
		at = text_index_intern(keys, s->key, &added);
		if (added) {
			c->changes = xgrow(c->changes, capacity, at + 1,
					   sizeof(*c->changes));
			memset(&c->changes[at], 0, sizeof(*c->changes));
			c->count = at + 1;
		}
		add_side(&c->changes[at], s, c->sort, c->at, is_base);
	}
}

static int ascending(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

size_t holm_significant(const double *p_values, size_t n, bool *significant)
{
	double *sorted = xcalloc(n + 1, sizeof(*sorted));
	size_t k;

	memcpy(sorted, p_values, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), ascending);
	k = estimator_holm(sorted, n, COMPARE_ALPHA);
	/* Equal p-values are all kept or all rejected: the thresholds
	 * only rise. */
	for (size_t i = 0; i < n; i++)
		significant[i] = k > 0 && p_values[i] <= sorted[k - 1];
	free(sorted);
	return k;
}

static int by_verdict_then_size(const void *pa, const void *pb)
{
	const struct site_change *a = pa, *b = pb;
	bool sa = a->verdict != VERDICT_NONE, sb = b->verdict != VERDICT_NONE;

	if (sa != sb)
		return sa ? -1 : 1;
	if (fabs(a->change) != fabs(b->change))
		return fabs(a->change) > fabs(b->change) ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* Holm's correction over every site compared. */
static void decide(struct comparison *c)
{
	double *p = xcalloc(c->count + 1, sizeof(*p));
	bool *significant = xcalloc(c->count + 1, sizeof(*significant));

	for (size_t i = 0; i < c->count; i++)
		p[i] = c->changes[i].p_value;
	c->significant = holm_significant(p, c->count, significant);
	for (size_t i = 0; i < c->count; i++) {
		struct site_change *s = &c->changes[i];

		if (!significant[i])
			continue;
		s->verdict = s->change > 0 ? VERDICT_GROWN : VERDICT_SHRUNK;
		if (s->change > 0)
			c->grown++;
		else
			c->shrunk++;
	}
	free(p);
	free(significant);
	qsort(c->changes, c->count, sizeof(*c->changes),
	      by_verdict_then_size);
}

static void compare_totals(struct comparison *c, const struct site_table *base,
			   const struct site_table *now)
{
	struct site whole = { .key = "", .text = "" };

	whole.heap = base->heap;
	add_side(&c->total, &whole, c->sort, c->at, true);
	whole.heap = now->heap;
	add_side(&c->total, &whole, c->sort, c->at, false);
	weigh_change(&c->total);
	if (c->total.p_value <= COMPARE_ALPHA)
		c->total.verdict = c->total.change > 0 ? VERDICT_GROWN
						       : VERDICT_SHRUNK;
}

void compare_sites(struct comparison *c, const struct site_table *base,
		   const struct site_table *now, enum sort_key sort,
		   enum moment at)
{
	struct text_index keys;
	size_t capacity = 0;

	memset(c, 0, sizeof(*c));
	c->sort = sort;
	c->at = at;
	text_index_init(&keys);
	match_sites(c, &keys, &capacity, base, true);
	match_sites(c, &keys, &capacity, now, false);
	text_index_free(&keys);
	for (size_t i = 0; i < c->count; i++)
		weigh_change(&c->changes[i]);
	decide(c);
	compare_totals(c, base, now);
}

void comparison_free(struct comparison *c)
{
	free(c->changes);
	memset(c, 0, sizeof(*c));
}
