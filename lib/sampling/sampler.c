/* sampler.c - the slow path of the Poisson sampler: seeding, redraws. */
#include "config.h"

#include "sampler.h"

#include <stdatomic.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"

#include <spprof/memprof.h>

INITIAL_EXEC_TLS struct sampler_thread sampler_tls;

static _Atomic uint64_t sampling_rate = MEMPROF_DEFAULT_SAMPLING_RATE;
static uint64_t global_entropy;
/* With SPPROF_SEED, a thread's stream depends only on the seed and on the
 * order in which the process's threads first allocated, so that a run
 * repeats its samples: the numbers below stand for the thread's address,
 * the time and the process id, which differ from run to run. */
static int repeatable;
static _Atomic uint64_t threads_seeded;
static pid_t seeded_process;

void sampler_set_rate(uint64_t bytes)
{
	struct sampler_thread *t = &sampler_tls;

	atomic_store_explicit(&sampling_rate, bytes, memory_order_relaxed);
	/* This thread's interval was drawn at the old rate - maybe before
	 * the settings were read, by a library constructor that allocated.
	 * The process is memoryless, so a fresh draw is as valid and makes
	 * the new rate hold from here on. */
	if (t->seeded)
		t->bytes_until_sample = prng_exponential(&t->prng, bytes);
}

uint64_t sampler_rate(void)
{
	return atomic_load_explicit(&sampling_rate, memory_order_relaxed);
}

/* No system call but in a repeatable run: a thread seeds itself at its
 * first allocation, which may come after its process entered a seccomp
 * filter that the runtime left alone (profiler_may_work_here()).  The
 * time tells processes apart as it tells threads apart. */
static void seed_thread(struct sampler_thread *t)
{
	uint64_t thread_id, pid = 0;

	if (repeatable) {
		thread_id = atomic_fetch_add(&threads_seeded, 1) + 1;
		pid = (uint64_t)getpid();
		if (pid == (uint64_t)seeded_process)
			pid = 0;
	} else {
		thread_id = (uint64_t)(uintptr_t)t ^ monotonic_ns();
	}
	t->tid = 0;
	prng_seed(&t->prng, thread_id, pid, global_entropy);
	t->seeded = 1;
}

uint32_t sampler_thread_id(void)
{
	struct sampler_thread *t = &sampler_tls;

	if (!t->tid)
		t->tid = (uint32_t)syscall(SYS_gettid);
	return t->tid;
}

void sampler_init_entropy(uint64_t seed)
{
	if (seed) {
		global_entropy = seed;
		repeatable = 1;
		seeded_process = getpid();
		/* Allocations made before the settings were read seeded
		 * this thread at random. */
		if (sampler_tls.seeded)
			seed_thread(&sampler_tls);
		return;
	}
	/* getrandom() needs no file descriptor and never allocates. */
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = clock_ns(CLOCK_REALTIME) * 0x5851F42D4C957F2Dull;
	global_entropy = seed;
}

void sampler_reseed_thread(void)
{
	struct sampler_thread *t = &sampler_tls;

	/* The child's only thread; its stream is its pid's. */
	atomic_store(&threads_seeded, 0);
	seed_thread(t);
	t->stack_top = 0;
	t->bytes_until_sample = prng_exponential(&t->prng, sampler_rate());
}

int sampler_slow_path(size_t size)
{
	struct sampler_thread *t = &sampler_tls;
	uint64_t rate = sampler_rate();

	if (unlikely(!t->seeded)) {
		seed_thread(t);
		t->bytes_until_sample = prng_exponential(&t->prng, rate);
		if (size < t->bytes_until_sample) {
			t->bytes_until_sample -= size;
			return 0;
		}
	}
	/* A sample falls inside this block.  The process is memoryless, so
	 * the distance to the next sample is a fresh draw from its end. */
	t->bytes_until_sample = prng_exponential(&t->prng, rate);
	return !t->in_runtime;
}
