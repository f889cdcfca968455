/* prng.c - seeding and exponential draws for the Poisson sampler. */
#include "config.h"

#include "prng.h"

#include <math.h>

#define PRNG_WARMUP_ROUNDS 10
#define THRESHOLD_MAX ((double)(1ull << 40))

void prng_seed(struct prng *p, uint64_t thread_id, uint64_t pid,
	       uint64_t entropy)
{
	p->s[0] = thread_id ^ entropy ^ 0x123456789ABCDEF0ull;
	p->s[1] = (thread_id << 32) ^ (pid << 48) ^ (entropy >> 7) ^
		  0xFEDCBA9876543210ull;
	if (!p->s[0] && !p->s[1])
		p->s[1] = 1; /* the all-zero state would be a fixed point */
	for (int i = 0; i < PRNG_WARMUP_ROUNDS; i++)
		(void)prng_next(p);
}

uint64_t prng_exponential(struct prng *p, uint64_t mean)
{
	/* 1 - U lies in (0, 1], so log() never sees zero.  The largest value,
	 * -log(2^-53) ~ 36.7 means, is the natural upper bound. */
	double u = 1.0 - prng_next_double(p);
	double bytes = -(double)mean * log(u);

	if (bytes < 1.0)
		return 1;
	if (bytes > THRESHOLD_MAX)
		return (uint64_t)THRESHOLD_MAX;
	return (uint64_t)bytes;
}
