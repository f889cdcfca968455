/* report-trend.h - the trend of a sum of sampled blocks over a profile.
 *
 * Contract: the live bytes L(x) of a site, along an axis x that runs from
 * 0 to X over the profile (seconds, or markers passed), have the
 * least-squares line whose slope is 12/X^3 times the integral of
 * (x - X/2) L(x) dx.  A block of weight w live from a to b adds
 * w (b - a)(m - X/2) to that integral, m = (a + b)/2, so the slope of the
 * estimated L is itself a sum of sample weights: unbiased for the slope of
 * the true L, with the variance of such a sum, the sum of
 * w(w - s)(b - a)^2 (m - X/2)^2.  X is known only at the end: the sums
 * below keep the powers of m apart until then.  A block that lives within
 * one step of the axis (b = a) adds nothing, however large: churn is not
 * growth.
 */
#ifndef SPPROF_REPORT_TREND_H
#define SPPROF_REPORT_TREND_H

/* The axes along which growth is measured. */
enum axis {
	PER_SECOND,
	PER_MARKER,
	AXES
};

/* The slope of a least-squares line and its variance. */
struct trend {
	double slope, slope_variance;
};

/* What the blocks of one stack add to the integral and its variance. */
struct trend_sums {
	double wd, wdm;         /* w d, w d m; d = b - a */
	double vd2, vd2m, vd2m2; /* v d^2 (1, m, m^2); v = w (w - s) */
};

/* A block of weight `bytes` (variance `variance`) live from a to b. */
void trend_add_block(struct trend_sums *sums, double bytes, double variance,
		     double a, double b);
/* The slope over an axis from 0 to `end` (0 when end is 0). */
struct trend trend_of(const struct trend_sums *sums, double end);

#endif /* SPPROF_REPORT_TREND_H */
