/* report-trend.c - the trend of a sum of sampled blocks over a profile
 * (see report-trend.h).
 */
#include "config.h"

#include "report-trend.h"

#include <math.h>

/* Relative rounding of the sums, with room for many additions. */
#define ROUNDING 1e-9

void trend_add_block(struct trend_sums *sums, double bytes, double variance,
		     double a, double b)
{
	double d = b - a, m = (a + b) / 2;

	if (d <= 0)
		return;
	sums->wd += bytes * d;
	sums->wdm += bytes * d * m;
	sums->vd2 += variance * d * d;
	sums->vd2m += variance * d * d * m;
	sums->vd2m2 += variance * d * d * m * m;
}

/* a - b, or 0 when it is no more than the rounding of a and b: blocks
 * live from the start to the end add m = end/2 exactly, and must leave
 * neither a slope nor a variance. */
static double difference(double a, double b)
{
	double d = a - b;

	return fabs(d) <= ROUNDING * (fabs(a) + fabs(b)) ? 0 : d;
}

struct trend trend_of(const struct trend_sums *sums, double end)
{
	double scale, variance;

	if (!(end > 0))
		return (struct trend){ 0, 0 };
	scale = 12.0 / (end * end * end);
	/* The sum over the blocks of v d^2 (m - end/2)^2, expanded. */
	variance = difference(sums->vd2m2 + end * end / 4 * sums->vd2,
			      end * sums->vd2m);
	return (struct trend){
		.slope = scale * difference(sums->wdm, end / 2 * sums->wd),
		.slope_variance = variance > 0 ? scale * scale * variance : 0,
	};
}

void trend_window_init(struct trend_window *w, double length)
{
	*w = (struct trend_window){ .length = length,
				    .step = length / TREND_WINDOW_STEPS,
				    .newest = 0 };
}

void trend_window_pass(struct trend_window *w, double position)
{
	long long passed = (long long)floor(position / w->step);

	if (passed > w->newest)
		w->newest = passed;
}

/* The sums of `sums` from `start`, emptied first when the slot held those
 * of an older start. */
static struct trend_sums *sums_from(struct trend_window_sums *sums,
				    long long start)
{
	int slot = (int)(start % TREND_WINDOW_STARTS);

	if (sums->start[slot] != start) {
		sums->from[slot] = (struct trend_sums){ 0 };
		sums->start[slot] = start;
	}
	return &sums->from[slot];
}

void trend_window_add_block(const struct trend_window *w,
			    struct trend_window_sums *sums, double bytes,
			    double variance, double a, double b)
{
	long long oldest = w->newest - TREND_WINDOW_STEPS;

	for (long long start = oldest > 0 ? oldest : 0; start <= w->newest;
	     start++) {
		double origin = (double)start * w->step;

		if (b > origin)
			trend_add_block(sums_from(sums, start), bytes,
					variance, (a > origin ? a : origin) - origin,
					b - origin);
	}
}

struct trend trend_window_of(const struct trend_window *w,
			     const struct trend_window_sums *sums, double end)
{
	static const struct trend_sums none;
	long long start = (long long)floor(end / w->step) - TREND_WINDOW_STEPS;
	int slot;

	if (start < 0)
		start = 0;
	slot = (int)(start % TREND_WINDOW_STARTS);
	/* No block lived past a start the axis had not passed: the sums
	 * from it are empty. */
	return trend_of(sums->start[slot] == start && start <= w->newest
				? &sums->from[slot]
				: &none,
			end - (double)start * w->step);
}
