/* prng.h - xorshift128+ and the exponential sampling intervals drawn from it.
 *
 * Contract: a tiny per-thread generator (no locks, no allocation) and
 * prng_exponential(), which draws the number of bytes until the next sample
 * of a Poisson process of mean `mean` bytes.  Results lie in
 * [1, 2^40] so one outlier can neither disable sampling nor overflow.
 */
#ifndef SPPROF_PRNG_H
#define SPPROF_PRNG_H

#include <stdint.h>

struct prng {
	uint64_t s[2];
};

/* Seed from a thread identity, a process identity and global entropy, then
 * stir so that nearby seeds give unrelated sequences. */
void prng_seed(struct prng *p, uint64_t thread_id, uint64_t pid,
	       uint64_t entropy);

static inline uint64_t prng_next(struct prng *p)
{
	uint64_t s0 = p->s[0];
	uint64_t s1 = p->s[1];
	uint64_t result = s0 + s1;

	s1 ^= s0;
	p->s[0] = ((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14);
	p->s[1] = (s1 << 36) | (s1 >> 28);
	return result;
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double prng_next_double(struct prng *p)
{
	return (double)(prng_next(p) >> 11) * (1.0 / 9007199254740992.0);
}

uint64_t prng_exponential(struct prng *p, uint64_t mean);

#endif /* SPPROF_PRNG_H */
