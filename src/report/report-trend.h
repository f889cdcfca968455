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
 *
 * A trend over a trailing window (struct trend_window) is the same line
 * over the part of the axis from a start to the end, each block's life
 * cut to that part, as Prometheus' deriv() takes a series over a range
 * ending now.  The end is known only at the end, and a block's life is
 * known when it ends: the sums are kept from TREND_WINDOW_STARTS starts
 * at once, one every step (a TREND_WINDOW_STEPS-th of the window), the
 * newest that the axis has passed and the TREND_WINDOW_STEPS before it.
 * The trend at an end is taken from the last start at least the window
 * before it (from 0 while the axis is shorter than the window): over the
 * window, and at most one step more.
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

/* Steps of a window between the starts of its sums: a trend is taken over
 * at most a quarter more than the window, from five sums of each stack. */
#define TREND_WINDOW_STEPS 4
#define TREND_WINDOW_STARTS (TREND_WINDOW_STEPS + 1)

/* The starts of a trailing window along an axis, as it is passed. */
struct trend_window {
	double length, step;
	long long newest; /* the newest start passed, newest * step */
};

/* What the blocks of one stack add to the sums from each start: slot
 * start % TREND_WINDOW_STARTS holds those from `start`. */
struct trend_window_sums {
	struct trend_sums from[TREND_WINDOW_STARTS];
	long long start[TREND_WINDOW_STARTS];
};

/* A window of `length` (> 0) from 0 of the axis on. */
void trend_window_init(struct trend_window *w, double length);
/* The axis is at `position`: the starts it has passed take blocks. */
void trend_window_pass(struct trend_window *w, double position);
/* trend_add_block() to the sums from every start kept, the life cut to
 * what comes after the start. */
void trend_window_add_block(const struct trend_window *w,
			    struct trend_window_sums *sums, double bytes,
			    double variance, double a, double b);
/* The slope over the window that ends at `end`, where the axis is (the
 * last position passed). */
struct trend trend_window_of(const struct trend_window *w,
			     const struct trend_window_sums *sums, double end);

#endif /* SPPROF_REPORT_TREND_H */
