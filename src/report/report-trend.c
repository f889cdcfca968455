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
