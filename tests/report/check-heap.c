/* check-heap - unit tests of the heap replay (src/report/report-heap.c).
 *
 * Random event streams (ALLOCs, FREEs of live and unknown addresses, ALLOCs
 * over live blocks, rate changes) are replayed twice: by heap_replay, and
 * by a model here that weighs every live block again after every event.
 * The estimates allocated, at the peak (the first moment the live total is
 * largest) and at the end must agree, and so must the time of the peak.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "estimator.h"
#include "mlyze-script.h"
#include "report-heap.h"
#include "spprof/mlyze.h"

Suite *test_suite(void); /* run by tests/unit/suite-main.c */

#define STACKS 5
#define EVENTS 300
#define TRIALS 200
#define START_US 1000000

/* How a trial draws its events. */
struct scenario {
	const uint64_t *rates; /* the first is in force at the start */
	size_t rate_count;
	const uint64_t *sizes; /* NULL: any size up to max_size */
	size_t size_count;
	uint64_t max_size;
	unsigned addresses; /* how many distinct addresses */
};

struct block {
	uint64_t address, size, rate;
	size_t stack; /* id, which is also its index: defined in id order */
	bool live;
};

/* The model: every block ever allocated, and the estimates it finds. */
struct model {
	struct block blocks[EVENTS];
	size_t count;
	struct heap_estimates by_stack[STACKS];
	uint64_t time_us; /* of the last event */
	double peak_bytes;
	uint64_t peak_time_us;
};

static uint64_t random_state;

static uint64_t below(uint64_t n)
{
	random_state ^= random_state >> 12;
	random_state ^= random_state << 25;
	random_state ^= random_state >> 27;
	return (random_state * UINT64_C(2685821657736338717)) % n;
}

static void add_block(struct estimate *e, const struct block *b)
{
	struct mlyze_weight w;

	mlyze_weigh(b->size, b->rate, &w);
	e->samples++;
	e->bytes += w.bytes;
	e->bytes_variance += w.bytes_variance;
	e->count += w.count;
	e->count_variance += w.count_variance;
}

/* Weigh the live blocks again, into `moment` of every stack; returns their
 * total bytes. */
static double weigh_live(struct model *m, enum moment moment)
{
	struct estimate total = { 0 };

	for (size_t s = 0; s < STACKS; s++)
		m->by_stack[s].live[moment] = (struct estimate){ 0 };
	for (size_t i = 0; i < m->count; i++) {
		if (!m->blocks[i].live)
			continue;
		add_block(&m->by_stack[m->blocks[i].stack].live[moment],
			  &m->blocks[i]);
		add_block(&total, &m->blocks[i]);
	}
	return total.bytes;
}

static void kill_address(struct model *m, uint64_t address)
{
	for (size_t i = 0; i < m->count; i++)
		if (m->blocks[i].live && m->blocks[i].address == address)
			m->blocks[i].live = false;
}

static void append(char **script, size_t *length, const char *line)
{
	size_t n = strlen(line);

	*script = realloc(*script, *length + n + 1);
	ck_assert_ptr_nonnull(*script);
	memcpy(*script + *length, line, n + 1);
	*length += n;
}

/* One random event: its script line, and its effect on the model. */
static void random_event(const struct scenario *sc, struct model *m,
			 uint64_t *rate, char line[256])
{
	unsigned long long delta = below(1000), kind = below(10);
	unsigned long long address = 0x10000 + 0x100 * below(sc->addresses);
	struct block *b;

	m->time_us += delta;
	if (kind == 0 && sc->rate_count > 1) {
		*rate = sc->rates[below(sc->rate_count)];
		snprintf(line, 256, "rate %llu %llu\n", delta,
			 (unsigned long long)*rate);
		return;
	}
	/* A FREE or an ALLOC: either ends the block at the address, if any. */
	kill_address(m, address);
	if (kind < 5) {
		snprintf(line, 256, "free %llu 0x%llx\n", delta, address);
		return;
	}
	b = &m->blocks[m->count++];
	*b = (struct block){
		.address = address,
		.size = sc->sizes ? sc->sizes[below(sc->size_count)]
				  : 1 + below(sc->max_size),
		.rate = *rate,
		.stack = below(STACKS),
		.live = true,
	};
	add_block(&m->by_stack[b->stack].allocated, b);
	snprintf(line, 256, "alloc %llu 0x%llx %llu %zu 1\n", delta, address,
		 (unsigned long long)b->size, b->stack);
}

/* One random trial: the script of its profile, replayed by the model. */
static char *make_trial(const struct scenario *sc, struct model *m)
{
	char *script = NULL, line[256];
	size_t length = 0;
	uint64_t rate = sc->rates[0];

	memset(m, 0, sizeof(*m));
	m->time_us = m->peak_time_us = START_US;
	snprintf(line, sizeof(line),
		 "header start=%d\nmetadata {\"complete\": true, "
		 "\"sampling_rate\": %llu, \"stack_traces\": {",
		 START_US, (unsigned long long)rate);
	append(&script, &length, line);
	for (int s = 0; s < STACKS; s++) {
		snprintf(line, sizeof(line), "%s\"%d\": [{\"address\": %d}]",
			 s ? ", " : "", s, 4096 * (s + 1));
		append(&script, &length, line);
	}
	append(&script, &length, "}}\n");
	for (int e = 0; e < EVENTS; e++) {
		random_event(sc, m, &rate, line);
		append(&script, &length, line);
		/* The end so far: what is live if the profile ends here. */
		if (weigh_live(m, AT_END) > m->peak_bytes) {
			m->peak_bytes = weigh_live(m, AT_PEAK);
			m->peak_time_us = m->time_us;
		}
	}
	return script;
}

/* The replay of a script's profile, kept in an anonymous memory file. */
/* Replays a script (tests/report/mlyze-script.h) into h; the replay must
 * return `expected`. */
static void replay_script_expecting(const char *script, struct heap_replay *h,
				    const struct replay_options *options,
				    int expected)
{
	struct bytes profile = { 0 };
	char error[256];
	int fd = memfd_create("trial.mlyze", 0);
	mlyze_reader *r;

	ck_assert_msg(script_compile(script, &profile, error,
				     sizeof(error)) == 0, "%s", error);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, profile.data, profile.length),
			 (ssize_t)profile.length);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	r = mlyze_open_fd(fd, "trial.mlyze", NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(mlyze_status(r), MLYZE_OK);
	ck_assert_int_eq(heap_replay(r, h, options), expected);
	mlyze_close(r);
	close(fd);
	bytes_free(&profile);
}

static void replay_script(const char *script, struct heap_replay *h,
			  const struct replay_options *options)
{
	replay_script_expecting(script, h, options, 0);
}

/* Sums that went up and down may differ by rounding in proportion to the
 * largest value they held, at most `scale` (the stack's allocated sum). */
static void same_sum(double got, double want, double scale, double tolerance,
		     const char *what, const char *member, int trial)
{
	ck_assert_msg(fabs(got - want) <= tolerance * scale,
		      "trial %d: %s %s: %.17g, expected %.17g", trial, what,
		      member, got, want);
}

static void same_estimate(const struct estimate *got,
			  const struct estimate *want,
			  const struct estimate *scale, double tolerance,
			  const char *what, int trial)
{
	ck_assert_msg(got->samples == want->samples,
		      "trial %d: %s: %llu samples, expected %llu", trial, what,
		      (unsigned long long)got->samples,
		      (unsigned long long)want->samples);
	same_sum(got->bytes, want->bytes, scale->bytes, tolerance, what,
		 "bytes", trial);
	same_sum(got->bytes_variance, want->bytes_variance,
		 scale->bytes_variance, tolerance, what, "bytes variance",
		 trial);
	same_sum(got->count, want->count, scale->count, tolerance, what,
		 "count", trial);
	same_sum(got->count_variance, want->count_variance,
		 scale->count_variance, tolerance, what, "count variance",
		 trial);
}

static void run_trials(const struct scenario *sc, double tolerance)
{
	static struct model m;

	for (int trial = 0; trial < TRIALS; trial++) {
		char *script = make_trial(sc, &m);
		struct heap_replay h;

		replay_script(script, &h, NULL);
		ck_assert_msg(h.peak_time_us == m.peak_time_us,
			      "trial %d: peak at %llu us, expected %llu", trial,
			      (unsigned long long)h.peak_time_us,
			      (unsigned long long)m.peak_time_us);
		for (size_t s = 0; s < STACKS; s++) {
			const struct heap_estimates *want = &m.by_stack[s];
			struct heap_estimates none = { 0 };
			const struct heap_estimates *got =
				s < h.stack_count ? &h.by_stack[s] : &none;

			same_estimate(&got->allocated, &want->allocated,
				      &want->allocated, tolerance, "allocated",
				      trial);
			same_estimate(&got->live[AT_PEAK], &want->live[AT_PEAK],
				      &want->allocated, tolerance, "peak",
				      trial);
			same_estimate(&got->live[AT_END], &want->live[AT_END],
				      &want->allocated, tolerance, "end",
				      trial);
		}
		heap_replay_free(&h);
		free(script);
	}
}

/* At a sampling rate of 1 byte every block stands for exactly its size:
 * the sums are exact, and the few sizes make many moments with the same
 * total, of which the first must be the peak. */
START_TEST(exact_weights_and_ties)
{
	static const uint64_t rates[] = { 1 };
	static const uint64_t sizes[] = { 64, 128, 256, 1024 };
	struct scenario sc = { rates, 1, sizes, 4, 0, 8 };

	random_state = UINT64_C(0x9e3779b97f4a7c15);
	run_trials(&sc, 0.0);
}
END_TEST

/* Sampled weights, rate changes on the way: the running sums of the replay
 * may differ from the model's in their last bits only. */
START_TEST(sampled_weights)
{
	static const uint64_t rates[] = { 4096, 65536, 512 };
	struct scenario sc = { rates, 3, NULL, 0, 2000000, 24 };

	random_state = UINT64_C(0x2545f4914f6cdd1d);
	run_trials(&sc, 1e-9);
}
END_TEST

/* An empty profile: nothing allocated, the peak at the start. */
START_TEST(nothing_allocated)
{
	struct heap_replay h;

	replay_script("header start=5000\nmetadata {\"sampling_rate\": 100}\n",
		      &h, NULL);
	ck_assert_uint_eq(h.peak_time_us, 5000);
	ck_assert_uint_eq(h.total.live[AT_PEAK].samples, 0);
	ck_assert_double_eq(h.total.live[AT_PEAK].bytes, 0);
	heap_replay_free(&h);
}
END_TEST

/* The trend of live bytes per marker: every block weighs exactly its size
 * (rate 1), so the slopes are exact.  Stack 0 keeps 1024 bytes more after
 * each of the first three markers, stack 1 frees its blocks within the
 * step that made them, stack 2 holds its block from the start to the end.
 * The least-squares line over 4 markers of 0, 1024, 2048 and 3072 bytes
 * held from markers 1, 2 and 3 on has the slope 12/4^3 * 1024 *
 * (3 * 0.5 + 2 * 1 + 1 * 1.5) = 960 bytes per marker. */
START_TEST(growth_per_marker)
{
	struct replay_options growth = { .growth = true };
	struct heap_replay h;

	replay_script(
		"header start=1000000\n"
		"metadata {\"complete\": true, \"sampling_rate\": 1, "
		"\"functions\": {\"0\": \"step\"}, "
		"\"stack_traces\": {\"0\": [{\"address\": 4096}], "
		"\"1\": [{\"address\": 8192}], "
		"\"2\": [{\"address\": 12288}]}}\n"
		"alloc 0 0x100 1024 2 1\n"
		"marker 1000 0\n"
		"alloc 0 0x200 1024 0 1\nalloc 0 0x300 1024 1 1\n"
		"free 500 0x300\nmarker 500 0\n"
		"alloc 0 0x210 1024 0 1\nalloc 0 0x310 1024 1 1\n"
		"free 500 0x310\nmarker 500 0\n"
		"alloc 0 0x220 1024 0 1\nmarker 1000 0\n",
		&h, &growth);
	ck_assert_uint_eq(h.markers, 4);
	ck_assert_double_eq_tol(h.by_stack[0].growth[PER_MARKER].slope, 960,
				1e-9);
	ck_assert_double_eq(h.by_stack[1].growth[PER_MARKER].slope, 0);
	ck_assert_double_eq(h.by_stack[2].growth[PER_MARKER].slope, 0);
	ck_assert_double_eq(h.by_stack[2].growth[PER_SECOND].slope, 0);
	for (int s = 0; s < 3; s++)
		ck_assert_double_eq(
			h.by_stack[s].growth[PER_MARKER].slope_variance, 0);
	heap_replay_free(&h);
}
END_TEST

/* A profile that breaks after some events: the replay fails, and what it
 * had built so far (stacks, time series, snapshots) is freed, not left to
 * a caller who has nothing to free. */
START_TEST(failed_replay_holds_nothing)
{
	struct replay_options every = { .snapshots = 4, .growth = true };
	struct heap_replay h;

	replay_script_expecting(
		"header start=1000\n"
		"metadata {\"sampling_rate\": 1, "
		"\"stack_traces\": {\"0\": [{\"address\": 4096}]}}\n"
		"alloc 0 0x100 1024 0 1\nmarker 10 0\n"
		"alloc 10 0x200 2048 0 1\nfree 10 0x100\n"
		"rate 10 0\n",
		&h, &every, -1);
	ck_assert_ptr_null(h.by_stack);
	ck_assert_ptr_null(h.timeline);
	ck_assert_ptr_null(h.events_kept);
	ck_assert_ptr_null(h.snapshots);
	ck_assert_uint_eq(h.stack_count + h.timeline_count +
				  h.events_kept_count + h.snapshot_count,
			  0);
}
END_TEST

/* Taking back large weights may leave a variance a little below zero:
 * its interval is zero, not NaN. */
START_TEST(interval_of_rounding_noise)
{
	ck_assert_double_eq(estimator_interval95(-1e-3), 0);
	ck_assert_double_eq(estimator_interval95(0), 0);
	ck_assert_double_eq_tol(estimator_interval95(4), 3.92, 1e-12);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("heap replay");
	TCase *t = tcase_create("replay");

	tcase_set_timeout(t, 60);
	tcase_add_test(t, exact_weights_and_ties);
	tcase_add_test(t, sampled_weights);
	tcase_add_test(t, nothing_allocated);
	tcase_add_test(t, interval_of_rounding_noise);
	tcase_add_test(t, growth_per_marker);
	tcase_add_test(t, failed_replay_holds_nothing);
	suite_add_tcase(s, t);
	return s;
}
