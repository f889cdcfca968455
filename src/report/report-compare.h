/* report-compare.h - what changed at each site between two sets of
 * profiles, and whether the change is more than sampling noise.
 *
 * Contract: sites of the base and of the newer profiles are matched by
 * their key, which names code (function, file:line), never an address, so
 * that runs under other addresses, paths or process ids compare.  For the
 * measure of the report (--sort, --at) each site gets the difference of
 * its two estimates and the variance of that difference: the sum of their
 * variances, the two sets of runs being sampled independently.  The z test
 * gives each difference a p-value; Holm's correction for the number of
 * sites compared decides which are significant at the 95 % level, so that
 * two runs of the same program call no site changed, but by chance 5 % of
 * the time at most.
 */
#ifndef SPPROF_REPORT_COMPARE_H
#define SPPROF_REPORT_COMPARE_H

#include "report-sites.h"

/* The chance of calling any site changed between equal runs, at most. */
#define COMPARE_ALPHA 0.05

enum verdict { VERDICT_NONE, VERDICT_GROWN, VERDICT_SHRUNK };

/* "no significant change", "grown", "shrunk", by enum verdict. */
extern const char *const verdict_names[3];

struct site_change {
	const char *key, *text;        /* of the newer site, else the base's */
	double base, base_variance;    /* 0 when the base had no such site */
	double now, now_variance;      /* 0 when the newer profiles had none */
	double change, change_variance; /* now - base */
	double p_value;                /* of no change at all */
	enum verdict verdict;
};

struct comparison {
	enum sort_key sort;
	enum moment at;
	/* Significant changes first, largest first; then the others, from the
	 * largest change to the smallest. */
	struct site_change *changes;
	size_t count;        /* sites with samples on either side */
	size_t significant;  /* the first ones */
	size_t grown, shrunk;
	struct site_change total; /* of all sites; verdict by itself */
};

/* Compare the sites of `base` with those of `now` (same grouping). */
void compare_sites(struct comparison *c, const struct site_table *base,
		   const struct site_table *now, enum sort_key sort,
		   enum moment at);
void comparison_free(struct comparison *c);

/* Holm's correction over n tests: which p-values are significant at the
 * level COMPARE_ALPHA for all of them together.  Returns how many. */
size_t holm_significant(const double *p_values, size_t n, bool *significant);

#endif /* SPPROF_REPORT_COMPARE_H */
