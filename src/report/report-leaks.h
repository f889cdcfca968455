/* report-leaks.h - which sites keep growing over a profile.
 *
 * Contract: ranks the sites by the trend of their estimated live bytes
 * over the run (report-trend.h): per marker when the profiles have at
 * least two markers (a program's steps), else per second.  Each trend has
 * a 95 % interval and a p-value of no growth at all (z test); Holm's
 * correction for the number of sites decides which grow or shrink
 * significantly, so that steady sites, however much they churn, are
 * called growing by chance 5 % of the time at most.  Growing sites come
 * first, the fastest first; then the others by their trend.
 */
#ifndef SPPROF_REPORT_LEAKS_H
#define SPPROF_REPORT_LEAKS_H

#include "report-sites.h"

enum growth_verdict { GROWTH_STEADY, GROWTH_GROWING, GROWTH_SHRINKING };

/* "steady", "growing", "shrinking", by enum growth_verdict. */
extern const char *const growth_verdict_names[3];

struct site_growth {
	const struct site *site;
	struct trend trend; /* of the live bytes, on the chosen axis */
	double p_value;     /* of no growth */
	enum growth_verdict verdict;
};

struct leaks {
	enum axis axis;
	struct site_growth *sites;
	size_t count;       /* sites with samples */
	size_t significant; /* growing or shrinking */
	size_t growing, shrinking;
};

/* The trends of the sites of `table`, along `axis`. */
void leaks_rank(struct leaks *l, const struct site_table *table,
		enum axis axis);
void leaks_free(struct leaks *l);

#endif /* SPPROF_REPORT_LEAKS_H */
