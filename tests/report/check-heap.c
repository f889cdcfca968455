/* check-heap - unit tests of the heap replay (src/report/report-heap.c).
 *
 * Random event streams (ALLOCs, FREEs of live and unknown addresses, ALLOCs
 * over live blocks, rate changes) are replayed twice: by heap_replay, and
 * by a model here that weighs every live block again after every event.
 * The estimates allocated, at the peak (cross-fitted: each half of the
 * samples chooses the first moment its live total is largest, and the
 * other half estimates every stack there) and at the end must agree, and
 * so must the time of the peak.
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
#include "report-engine.h"
#include "report-heap.h"
#include "report-weights.h"
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
	unsigned halves; /* enum estimator_half bits */
	bool live;
};

/* The model: every block ever allocated, and the estimates it finds. */
struct model {
	struct block blocks[EVENTS];
	size_t count;
	struct heap_estimates by_stack[STACKS];
	uint64_t time_us; /* of the last event */
	double half_peak[ESTIMATOR_HALVES]; /* each half's largest total */
	double other_at_peak[ESTIMATOR_HALVES]; /* the other half's total */
	uint64_t half_peak_time_us[ESTIMATOR_HALVES];
	struct estimate at_half_peak[ESTIMATOR_HALVES][STACKS];
	struct estimate whole_at_half_peak[ESTIMATOR_HALVES][STACKS];
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

static void add_half_weight(struct estimate *e, const struct block *b)
{
	struct estimator_weight w = estimator_weigh_half(b->size, b->rate);

	e->samples++;
	e->bytes += w.bytes;
	e->bytes_variance += w.bytes_variance;
	e->count += w.count;
	e->count_variance += w.count_variance;
}

/* Weigh the live blocks of `half` again, into `into` by stack; returns
 * their total bytes. */
static double weigh_half(const struct model *m, int half,
			 struct estimate into[STACKS])
{
	double total = 0;

	memset(into, 0, STACKS * sizeof(*into));
	for (size_t i = 0; i < m->count; i++) {
		const struct block *b = &m->blocks[i];
		struct estimate one = { 0 };

		if (!b->live || !(b->halves & (1u << half)))
			continue;
		add_half_weight(&one, b);
		estimate_add(&into[b->stack], &one);
		total += one.bytes;
	}
	return total;
}

/* After an event: a half whose total is larger than ever takes the other
 * half's estimates of every stack. */
static void follow_half_peaks(struct model *m)
{
	struct estimate by_stack[ESTIMATOR_HALVES][STACKS];
	double total[ESTIMATOR_HALVES];

	for (int half = 0; half < ESTIMATOR_HALVES; half++)
		total[half] = weigh_half(m, half, by_stack[half]);
	for (int half = 0; half < ESTIMATOR_HALVES; half++) {
		if (!(total[half] > m->half_peak[half]))
			continue;
		m->half_peak[half] = total[half];
		m->other_at_peak[half] = total[1 - half];
		m->half_peak_time_us[half] = m->time_us;
		memcpy(m->at_half_peak[half], by_stack[1 - half],
		       sizeof(by_stack[1 - half]));
		/* All the samples (AT_END serves as scratch until the end). */
		weigh_live(m, AT_END);
		for (size_t s = 0; s < STACKS; s++)
			m->whole_at_half_peak[half][s] =
				m->by_stack[s].live[AT_END];
	}
}

/* The cross-fitted peak of every stack, and the moment named; when a half
 * never held anything, all the samples at the other half's peak. */
static void cross_fit_peak(struct model *m)
{
	for (int half = 0; half < ESTIMATOR_HALVES; half++) {
		if (m->half_peak[1 - half] > 0)
			continue;
		for (size_t s = 0; s < STACKS; s++)
			m->by_stack[s].live[AT_PEAK] =
				m->whole_at_half_peak[half][s];
		m->peak_time_us = m->half_peak_time_us[half];
		return;
	}
	for (size_t s = 0; s < STACKS; s++) {
		const struct estimate *b = &m->at_half_peak[0][s];
		const struct estimate *a = &m->at_half_peak[1][s];

		m->by_stack[s].live[AT_PEAK] = (struct estimate){
			.samples = (a->samples + b->samples + 1) / 2,
			.bytes = (b->bytes + a->bytes) / 2,
			.bytes_variance =
				(b->bytes_variance + a->bytes_variance) / 4,
			.count = (b->count + a->count) / 2,
			.count_variance =
				(b->count_variance + a->count_variance) / 4,
		};
	}
	m->peak_time_us = m->half_peak_time_us
		[m->other_at_peak[1] > m->other_at_peak[0] ? 1 : 0];
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
	b->halves = estimator_halves_of(
		b->size, b->rate, estimator_block_key(address, m->time_us));
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
	m->time_us = START_US;
	for (int half = 0; half < ESTIMATOR_HALVES; half++)
		m->half_peak_time_us[half] = START_US;
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
		follow_half_peaks(m);
	}
	weigh_live(m, AT_END);
	cross_fit_peak(m);
	return script;
}

/* The profile of a script (tests/report/mlyze-script.h), in an anonymous
 * memory file open at its start; the caller closes it. */
static int script_file(const char *script)
{
	struct bytes profile = { 0 };
	char error[256];
	int fd = memfd_create("trial.mlyze", 0);

	ck_assert_msg(script_compile(script, &profile, error,
				     sizeof(error)) == 0, "%s", error);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, profile.data, profile.length),
			 (ssize_t)profile.length);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	bytes_free(&profile);
	return fd;
}

/* Replays a script into h; the replay must return `expected`. */
static void replay_script_expecting(const char *script, struct heap_replay *h,
				    const struct replay_options *options,
				    int expected)
{
	int fd = script_file(script);
	mlyze_reader *r = mlyze_open_fd(fd, "trial.mlyze", NULL);

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(mlyze_status(r), MLYZE_OK);
	ck_assert_int_eq(heap_replay(r, h, options), expected);
	mlyze_close(r);
	close(fd);
}

static void replay_script(const char *script, struct heap_replay *h,
			  const struct replay_options *options)
{
	replay_script_expecting(script, h, options, 0);
}

/* Sums that went up and down may differ by rounding in proportion to the
 * largest value they held, at most `scale` (the stack's allocated sum), or
 * to 1 when that is smaller (the variances of blocks almost certain to be
 * sampled are almost 0). */
static void same_sum(double got, double want, double scale, double tolerance,
		     const char *what, const char *member, int trial)
{
	ck_assert_msg(fabs(got - want) <= tolerance * fmax(scale, 1),
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

/* At a sampling rate of 1 byte every block stands for its size, and in
 * each half for its size within rounding (a chance of 1 - exp(-32) at the
 * least): the sums are exact or nearly, and the few sizes make many
 * moments with the same total, of which each half's first must be its
 * peak. */
START_TEST(exact_weights_and_ties)
{
	static const uint64_t rates[] = { 1 };
	static const uint64_t sizes[] = { 64, 128, 256, 1024 };
	struct scenario sc = { rates, 1, sizes, 4, 0, 8 };

	random_state = UINT64_C(0x9e3779b97f4a7c15);
	run_trials(&sc, 1e-12);
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

/* A heap block (stack 0, 1000 bytes) and a mapping (stack 1, 64 KiB)
 * of which 16 KiB remain once the rest is unmapped, at rate 1 (exact
 * weights): each kind counts its own, what remains allocates nothing,
 * and the peak says which part of it the mappings hold. */
static const char kinds_script[] =
	"header start=0\n"
	"metadata {\"sampling_rate\": 1, \"stack_traces\": {\"0\": [], \"1\": []}}\n"
	"alloc 1 0x10 1000 0 1\n"
	"event 9 1 00001000000000008080040101010000\n"
	"event 10 1 0000100000000000808004\n"
	"event 9 1 00001000000000008080010101010001\n";

static void expect_kind(enum memory_kind kinds, double live, double allocated,
			double mapped_peak)
{
	struct replay_options options = { .kinds = kinds };
	struct heap_replay h;

	replay_script(kinds_script, &h, &options);
	ck_assert(h.has_mappings);
	ck_assert_double_eq_tol(h.total.live[AT_END].bytes, live, 1e-6);
	ck_assert_double_eq_tol(h.total.allocated.bytes, allocated, 1e-6);
	ck_assert_double_eq_tol(h.mapped_peak_bytes, mapped_peak, 1e-6);
	heap_replay_free(&h);
}

START_TEST(kinds_select_the_memory_counted)
{
	expect_kind(KIND_ALL, 1000 + 16384, 1000 + 65536, 65536);
	expect_kind(KIND_HEAP, 1000, 1000, 0);
	expect_kind(KIND_MAPPED, 16384, 65536, 65536);
}
END_TEST

/* A stretch from 2.5 us on, after the block and the mapping of
 * kinds_script were born (at 1 and 2 us) and before what remains of the
 * mapping (at 4 us): nothing is counted, the remainder no more than the
 * mapping it is a part of. */
START_TEST(stretch_leaves_out_mappings_born_before_it)
{
	struct moment_spec from = { .kind = MOMENT_SECONDS, .seconds = 2.5e-6,
				    .option = "--from", .text = "2.5us" };
	struct replay_options options = { .from = &from };
	struct heap_replay h;

	replay_script(kinds_script, &h, &options);
	ck_assert(h.from.passed);
	ck_assert_uint_eq(h.born_outside, 2);
	ck_assert_double_eq(h.total.live[AT_END].bytes, 0);
	ck_assert_double_eq(h.total.allocated.bytes, 0);
	heap_replay_free(&h);
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
static const char growing_steps[] =
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
	"alloc 0 0x220 1024 0 1\nmarker 1000 0\n";

START_TEST(growth_per_marker)
{
	struct replay_options growth = { .growth = true };
	struct heap_replay h;

	replay_script(growing_steps, &h, &growth);
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

/* What the hooks of report_engine_run() were told, in order: o(pened),
 * f(ailed), r(eplayed), m(erged) with a map of its stacks or n(ot),
 * a(ll merged). */
struct engine_trace {
	char calls[16];
	size_t count;
};

static void trace(void *ctx, char call)
{
	struct engine_trace *t = ctx;

	ck_assert_uint_lt(t->count + 1, sizeof(t->calls));
	t->calls[t->count++] = call;
}

static void traced_opened(void *ctx, const char *name, const mlyze_reader *r,
			  struct replay_options *replaying)
{
	(void)name;
	(void)r;
	ck_assert(replaying->growth);
	trace(ctx, 'o');
}

static void traced_failed(void *ctx, const char *name, const mlyze_reader *r)
{
	ck_assert_str_eq(name, "elf.mlyze");
	ck_assert_int_eq(mlyze_status(r), MLYZE_BAD_FILE);
	trace(ctx, 'f');
}

static void traced_replayed(void *ctx, const char *name,
			    const mlyze_reader *r, struct heap_replay *h)
{
	(void)r;
	ck_assert_str_eq(name, "steps.mlyze");
	ck_assert_uint_eq(h->markers, 4);
	trace(ctx, 'r');
}

static void traced_merged(void *ctx, const char *name, const mlyze_reader *r,
			  struct heap_replay *h, const size_t *stack_map)
{
	(void)name;
	(void)r;
	(void)h;
	trace(ctx, stack_map ? 'm' : 'n');
}

static void traced_all_merged(void *ctx, const struct stack_table *stacks)
{
	(void)stacks;
	trace(ctx, 'a');
}

/* Runs the engine on the steps of growth_per_marker and a file that is
 * no profile, up to `until`, tracing its hooks. */
static void run_engine(enum report_step until, struct engine_trace *t,
		       struct report_result *result)
{
	int fds[] = { script_file(growing_steps),
		      script_file("header magic=ELF!\n") };
	const char *names[] = { "steps.mlyze", "elf.mlyze" };
	struct symbolizer_options naming = { 0 };
	struct report_request request = {
		.files = names, .fds = fds, .count = 2,
		.replaying = { .growth = true },
		.until = until,
		.namer = frame_namer_new(&naming),
		.per_marker_when_marked = true,
		.hooks = { t, traced_opened, traced_failed, traced_replayed,
			   traced_merged, traced_all_merged },
	};

	report_engine_run(&request, result);
	frame_namer_free(request.namer);
	close(fds[0]);
	close(fds[1]);
}

/* The engine takes each profile through its steps in order, its hooks
 * told of each; the file that is no profile is left out, and the sites
 * of the other are ranked per marker, which it sets. */
START_TEST(engine_takes_the_steps_in_order)
{
	struct engine_trace t = { 0 };
	struct report_result result;

	run_engine(REPORT_LEAKS, &t, &result);
	ck_assert_str_eq(t.calls, "ormfa");
	ck_assert_uint_eq(result.read, 1);
	ck_assert_uint_eq(result.failed, 1);
	ck_assert(result.malformed);
	ck_assert_uint_eq(result.markers, 4);
	ck_assert_uint_eq(result.stacks.stack_count, 3);
	ck_assert_uint_gt(result.sites.count, 0);
	ck_assert_int_eq(result.leaks.axis, PER_MARKER);
	report_result_free(&result);
}
END_TEST

/* Up to the replay, the hooks alone see the profiles: no stacks, no
 * sites. */
START_TEST(engine_stops_at_the_step_asked)
{
	struct engine_trace t = { 0 };
	struct report_result result;

	run_engine(REPORT_REPLAY, &t, &result);
	ck_assert_str_eq(t.calls, "ornfa");
	ck_assert_uint_eq(result.read, 1);
	ck_assert_uint_eq(result.stacks.stack_count, 0);
	ck_assert_uint_eq(result.sites.count, 0);
	report_result_free(&result);
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

/* The coverage of the peak: programs whose true heap is known, sampled
 * with the runtime's law at its default rate over many seeds, replayed,
 * and the 95 % intervals of the peak and of the sites at the peak checked
 * against the truth. */

#define DEFAULT_RATE 524288
#define MiB (UINT64_C(1) << 20)
#define KiB (UINT64_C(1) << 10)
/* Runs of each program: the coverage is then known within about 1.3 %. */
#define COVERAGE_RUNS 300
/* Sites smaller than this at the peak are not counted: a site of a few
 * samples or none has no interval worth the name. */
#define SITE_AT_LEAST (2 * MiB)
#define PROGRAM_SITES 3

/* A block of a simulated program, sampled or not. */
struct sim_block {
	double born, died; /* seconds; died > duration: never freed */
	uint64_t size;
	unsigned site;
};

struct sim_program {
	struct sim_block *blocks;
	size_t count, capacity;
	double duration;
};

static double uniform(void)
{
	return (double)(below(UINT64_C(1) << 53)) / 9007199254740992.0;
}

static void add_sim_block(struct sim_program *p, double born, double died,
			  uint64_t size, unsigned site)
{
	if (p->count == p->capacity) {
		p->capacity = p->capacity ? 2 * p->capacity : 4096;
		p->blocks = realloc(p->blocks,
				    p->capacity * sizeof(*p->blocks));
		ck_assert_ptr_nonnull(p->blocks);
	}
	p->blocks[p->count++] = (struct sim_block){ born, died, size, site };
}

/* `total` bytes of `site` in blocks of `size`, held from `from` to `to`,
 * each block replaced by a new one after 0.4 to 0.8 s. */
static void rotate(struct sim_program *p, unsigned site, uint64_t total,
		   uint64_t size, double from, double to)
{
	for (uint64_t i = 0; i < total / size; i++) {
		double born = from, died = from - 0.6 * uniform();

		while (born < to) {
			died += 0.4 + 0.4 * uniform();
			if (died < born)
				continue;
			add_sim_block(p, born, died < to ? died : to, size,
				      site);
			born = died;
		}
	}
}

/* Constant 48 MiB in three sites of 32, 12 and 2 MiB, every block
 * replaced about every 0.6 s (about 80 MiB allocated per second). */
static void rotating_program(struct sim_program *p)
{
	p->duration = 10;
	rotate(p, 0, 32 * MiB, 256 * KiB, 0, 20);
	rotate(p, 1, 12 * MiB, 64 * KiB, 0, 20);
	rotate(p, 2, 2 * MiB, 16 * KiB, 0, 20);
}

/* 16 MiB replaced as above, and once a batch of 24 MiB held for 0.5 s. */
static void spike_program(struct sim_program *p)
{
	p->duration = 10;
	rotate(p, 0, 16 * MiB, 64 * KiB, 0, 20);
	for (int i = 0; i < 192; i++)
		add_sim_block(p, 4.0 + 1e-4 * i, 4.5, 128 * KiB, 1);
}

/* 32 MiB allocated at the start and kept, and small short-lived blocks
 * allocated all along (about 80 MiB per second). */
static void flat_program(struct sim_program *p)
{
	p->duration = 10;
	for (int i = 0; i < 512; i++)
		add_sim_block(p, 1e-5 * i, 20, 64 * KiB, 0);
	for (double t = 0.01; t < p->duration; t += 1e-4)
		add_sim_block(p, t, t + 1e-3, 8 * KiB, 1);
}

/* An ALLOC or a FREE of block `block`. */
struct sim_event {
	double time;
	size_t block;
	bool alloc;
};

static int by_time(const void *a, const void *b)
{
	const struct sim_event *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	/* A block replaced at the same moment goes before its successor. */
	if (x->alloc != y->alloc)
		return x->alloc ? 1 : -1;
	return x->block < y->block ? -1 : x->block > y->block;
}

/* Every ALLOC and FREE of the program, in time order. */
static struct sim_event *sim_events(const struct sim_program *p,
				    size_t *count)
{
	struct sim_event *ev = calloc(2 * p->count, sizeof(*ev));
	size_t n = 0;

	ck_assert_ptr_nonnull(ev);
	for (size_t i = 0; i < p->count; i++) {
		if (p->blocks[i].born >= p->duration)
			continue;
		ev[n++] = (struct sim_event){ p->blocks[i].born, i, true };
		if (p->blocks[i].died < p->duration)
			ev[n++] = (struct sim_event){ p->blocks[i].died, i,
						      false };
	}
	qsort(ev, n, sizeof(*ev), by_time);
	*count = n;
	return ev;
}

/* The true peak, and what each site held at its first moment. */
static double true_peak(const struct sim_program *p,
			const struct sim_event *ev, size_t count,
			double sites[PROGRAM_SITES])
{
	double live = 0, peak = 0, now[PROGRAM_SITES] = { 0 };

	for (size_t i = 0; i < count; i++) {
		const struct sim_block *b = &p->blocks[ev[i].block];
		double change = ev[i].alloc ? (double)b->size
					    : -(double)b->size;

		live += change;
		now[b->site] += change;
		if (live > peak) {
			peak = live;
			memcpy(sites, now, sizeof(now));
		}
	}
	return peak;
}

/* The profile the runtime would write: the sampled blocks only, each
 * sampled with chance 1 - exp(-size/rate), independently. */
static char *sampled_profile(const struct sim_program *p,
			     const struct sim_event *ev, size_t count)
{
	bool *sampled = calloc(p->count, sizeof(*sampled));
	size_t length = 0, capacity = 1 << 16;
	char *script = malloc(capacity);
	double last = 0;

	ck_assert_ptr_nonnull(sampled);
	ck_assert_ptr_nonnull(script);
	for (size_t i = 0; i < p->count; i++)
		sampled[i] = uniform() < estimator_probability(
						 p->blocks[i].size, DEFAULT_RATE);
	length = (size_t)snprintf(
		script, capacity,
		"header start=%d\nmetadata {\"complete\": true, "
		"\"sampling_rate\": %d, \"stack_traces\": {\"0\": "
		"[{\"address\": 4096}], \"1\": [{\"address\": 8192}], \"2\": "
		"[{\"address\": 12288}]}}\n",
		START_US, DEFAULT_RATE);
	for (size_t i = 0; i < count; i++) {
		const struct sim_block *b = &p->blocks[ev[i].block];
		unsigned long long delta =
			(unsigned long long)llround((ev[i].time - last) * 1e6);

		if (!sampled[ev[i].block])
			continue;
		if (capacity - length < 128) {
			capacity *= 2;
			script = realloc(script, capacity);
			ck_assert_ptr_nonnull(script);
		}
		last += (double)delta / 1e6;
		if (ev[i].alloc)
			length += (size_t)snprintf(
				script + length, capacity - length,
				"alloc %llu 0x%zx %llu %u 1\n", delta,
				4096 * (ev[i].block + 1),
				(unsigned long long)b->size, b->site);
		else
			length += (size_t)snprintf(script + length,
						   capacity - length,
						   "free %llu 0x%zx\n", delta,
						   4096 * (ev[i].block + 1));
	}
	free(sampled);
	return script;
}

struct coverage {
	unsigned runs, peak_covered, sites, sites_covered, single_peaks;
	double width, ratio; /* sums of the half-width and estimate / truth */
};

static bool covers(const struct estimate *e, double truth)
{
	return fabs(e->bytes - truth) <= estimator_interval95(e->bytes_variance);
}

static void measure_run(void (*program)(struct sim_program *),
			struct coverage *c)
{
	struct sim_program p = { 0 };
	struct heap_replay h;
	double sites[PROGRAM_SITES] = { 0 }, peak;
	size_t count;
	struct sim_event *ev;
	char *script;

	program(&p);
	ev = sim_events(&p, &count);
	peak = true_peak(&p, ev, count, sites);
	script = sampled_profile(&p, ev, count);
	replay_script(script, &h, NULL);
	c->runs++;
	c->peak_covered += covers(&h.total.live[AT_PEAK], peak);
	c->width += estimator_interval95(h.total.live[AT_PEAK].bytes_variance) /
		    peak;
	c->ratio += h.total.live[AT_PEAK].bytes / peak;
	c->single_peaks += h.peak_level_share < SINGLE_PEAK_MAX_SHARE;
	for (unsigned s = 0; s < PROGRAM_SITES; s++) {
		if (sites[s] < SITE_AT_LEAST)
			continue;
		c->sites++;
		c->sites_covered += s < h.stack_count &&
				    covers(&h.by_stack[s].live[AT_PEAK], sites[s]);
	}
	heap_replay_free(&h);
	free(script);
	free(ev);
	free(p.blocks);
}

static void check_coverage(const char *name,
			   void (*program)(struct sim_program *),
			   bool single_peak)
{
	struct coverage c = { 0 };
	double peak, sites;

	for (int run = 0; run < COVERAGE_RUNS; run++)
		measure_run(program, &c);
	peak = 100.0 * c.peak_covered / c.runs;
	sites = 100.0 * c.sites_covered / c.sites;
	printf("%-9s peak interval covers the truth in %5.1f %% of %u runs "
	       "(half-width %4.1f %% of the peak, estimate / truth %.3f); "
	       "sites at the peak: %5.1f %% of %u; a single peak in %u\n",
	       name, peak, c.runs, 100 * c.width / c.runs, c.ratio / c.runs,
	       sites, c.sites, c.single_peaks);
	fflush(stdout); /* before a failure ends the test's process */
	ck_assert_msg(peak >= 90 && peak <= 99, "%s: peak coverage %.1f %%",
		      name, peak);
	ck_assert_msg(sites >= 90 && sites <= 99, "%s: site coverage %.1f %%",
		      name, sites);
	ck_assert_msg(single_peak ? c.single_peaks >= 0.9 * c.runs
				  : c.single_peaks <= 0.1 * c.runs,
		      "%s: a single peak in %u of %u runs", name,
		      c.single_peaks, c.runs);
}

START_TEST(peak_of_a_rotating_heap)
{
	random_state = UINT64_C(0x8f14e45fceea167a);
	check_coverage("rotating", rotating_program, false);
}
END_TEST

START_TEST(peak_of_a_spike)
{
	random_state = UINT64_C(0x3c6ef372fe94f82b);
	check_coverage("spike", spike_program, true);
}
END_TEST

START_TEST(peak_of_a_flat_heap)
{
	random_state = UINT64_C(0xa54ff53a5f1d36f1);
	check_coverage("flat", flat_program, false);
}
END_TEST

/* ---- any moment and any stretch ----
 *
 * The live bytes at a moment the user names (--at TIME) and what was
 * allocated in a stretch (--from, --to) are sums of the same unbiased
 * weights as the end: their 95 % intervals must cover the truth of the
 * simulated program about 95 times in 100.  The figures go in
 * memprof-report(1); SPPROF_TEST_COVERAGE_RUNS measures over more runs. */

/* What a simulated program truly held at `at` of the blocks born in
 * [from, to), in total and by site, and what it allocated there. */
struct stretch_truth {
	double live, sites[PROGRAM_SITES], allocated;
};

static bool born_within(const struct sim_program *p, const struct sim_block *b,
			double from, double to)
{
	return b->born >= from && b->born < to && b->born < p->duration;
}

static struct stretch_truth stretch_truth(const struct sim_program *p,
					  double at, double from, double to)
{
	struct stretch_truth t = { 0 };

	for (size_t i = 0; i < p->count; i++) {
		const struct sim_block *b = &p->blocks[i];

		if (!born_within(p, b, from, to))
			continue;
		t.allocated += (double)b->size;
		if (b->born <= at && !(b->died <= at && b->died < p->duration)) {
			t.live += (double)b->size;
			t.sites[b->site] += (double)b->size;
		}
	}
	return t;
}

struct moment_coverage {
	unsigned runs, live, allocated, sites, sites_covered;
	double ratio; /* the sum of estimate / truth of the live bytes */
	double width; /* the sum of their half-widths / truth */
};

static void measure_moment_run(void (*program)(struct sim_program *),
			       double at, double from, double to,
			       struct moment_coverage *c)
{
	struct sim_program p = { 0 };
	struct moment_spec at_spec = { .kind = MOMENT_SECONDS, .seconds = at },
			   from_spec = { .kind = MOMENT_SECONDS,
					 .seconds = from },
			   to_spec = { .kind = MOMENT_SECONDS, .seconds = to };
	struct replay_options options = { .at = &at_spec };
	struct stretch_truth truth;
	struct heap_replay h;
	struct sim_event *ev;
	size_t count;
	char *script;

	if (from > 0)
		options.from = &from_spec;
	if (to < INFINITY)
		options.to = &to_spec;
	program(&p);
	ev = sim_events(&p, &count);
	truth = stretch_truth(&p, at, from, to);
	script = sampled_profile(&p, ev, count);
	replay_script(script, &h, &options);
	c->runs++;
	c->live += covers(&h.total.live[AT_TIME], truth.live);
	c->allocated += covers(&h.total.allocated, truth.allocated);
	c->ratio += h.total.live[AT_TIME].bytes / truth.live;
	c->width += estimator_interval95(h.total.live[AT_TIME].bytes_variance) /
		    truth.live;
	for (unsigned s = 0; s < PROGRAM_SITES; s++) {
		if (truth.sites[s] < SITE_AT_LEAST)
			continue;
		c->sites++;
		c->sites_covered += s < h.stack_count &&
				    covers(&h.by_stack[s].live[AT_TIME],
					   truth.sites[s]);
	}
	heap_replay_free(&h);
	free(script);
	free(ev);
	free(p.blocks);
}

static int coverage_runs(void)
{
	const char *runs = getenv("SPPROF_TEST_COVERAGE_RUNS");

	return runs && atoi(runs) > 0 ? atoi(runs) : COVERAGE_RUNS;
}

static void check_moment_coverage(const char *name,
				  void (*program)(struct sim_program *),
				  double at, double from, double to)
{
	struct moment_coverage c = { 0 };
	int runs = coverage_runs();
	double live, allocated, sites, bias, standard_error;

	for (int run = 0; run < runs; run++)
		measure_moment_run(program, at, from, to, &c);
	live = 100.0 * c.live / c.runs;
	allocated = 100.0 * c.allocated / c.runs;
	sites = 100.0 * c.sites_covered / c.sites;
	printf("%-16s at %.2f s, born in [%.1f, %.1f) s: live %5.1f %%, "
	       "allocated %5.1f %%, sites %5.1f %% of %u covered over %u runs "
	       "(estimate / truth %.3f)\n", name, at, from, to, live,
	       allocated, sites, c.sites, c.runs, c.ratio / c.runs);
	fflush(stdout);
	ck_assert_msg(live >= 90 && live <= 99, "%s: live coverage %.1f %%",
		      name, live);
	ck_assert_msg(allocated >= 90 && allocated <= 99,
		      "%s: allocated coverage %.1f %%", name, allocated);
	ck_assert_msg(sites >= 90 && sites <= 99, "%s: site coverage %.1f %%",
		      name, sites);
	/* Unbiased: the average estimate within 4 standard errors of the
	 * truth (one run's is about a half-width / 1.96). */
	bias = c.ratio / c.runs - 1;
	standard_error = c.width / c.runs / 1.96 / sqrt(c.runs);
	ck_assert_msg(fabs(bias) < 4 * standard_error,
		      "%s: estimate / truth %.4f, %.1f standard errors off",
		      name, c.ratio / c.runs, fabs(bias) / standard_error);
}

START_TEST(moment_of_a_rotating_heap)
{
	random_state = UINT64_C(0x510e527fade682d1);
	check_moment_coverage("rotating", rotating_program, 3.3, 0, INFINITY);
}
END_TEST

/* Moments 10 ms from the spike's end, on either side: a moment taken
 * late (or early) finds the heap of the other side. */
START_TEST(moment_in_a_spike)
{
	random_state = UINT64_C(0x9b05688c2b3e6c1f);
	check_moment_coverage("spike", spike_program, 4.49, 0, INFINITY);
}
END_TEST

START_TEST(moment_after_a_spike)
{
	random_state = UINT64_C(0xbb67ae8584caa73b);
	check_moment_coverage("after the spike", spike_program, 4.51, 0,
			      INFINITY);
}
END_TEST

START_TEST(moment_of_a_stretch)
{
	random_state = UINT64_C(0x1f83d9abfb41bd6b);
	check_moment_coverage("rotating stretch", rotating_program, 4.0, 2.0,
			      5.0);
}
END_TEST

/* What the snapshots say each stack allocated since the one before, and
 * after the last, adds up to what it allocated: also when the snapshots
 * were thinned many times over (the profile does not say when it ends,
 * so the stride starts at a millisecond over its 10 s). */
START_TEST(allocations_between_snapshots_add_up)
{
	struct sim_program p = { 0 };
	struct replay_options options = { .snapshots = 24 };
	struct estimate sums[PROGRAM_SITES] = { { 0 } };
	struct heap_replay h;
	struct sim_event *ev;
	size_t count;
	char *script;

	random_state = UINT64_C(0x6a09e667f3bcc908);
	rotating_program(&p);
	ev = sim_events(&p, &count);
	script = sampled_profile(&p, ev, count);
	replay_script(script, &h, &options);
	ck_assert_uint_ge(h.snapshot_count, 12);
	ck_assert_uint_le(h.snapshot_count, 24);
	for (size_t i = 0; i <= h.snapshot_count; i++) {
		const struct stack_amounts *a =
			i < h.snapshot_count ? &h.snapshots[i].allocated
					     : &h.allocated_after_snapshots;

		for (size_t k = 0; k < a->count; k++) {
			ck_assert_uint_lt(a->stacks[k], PROGRAM_SITES);
			ck_assert(k == 0 || a->stacks[k - 1] < a->stacks[k]);
			estimate_add(&sums[a->stacks[k]], &a->amounts[k]);
		}
	}
	for (unsigned site = 0; site < PROGRAM_SITES; site++) {
		const struct estimate *all = &h.by_stack[site].allocated;

		ck_assert_uint_eq(sums[site].samples, all->samples);
		same_sum(sums[site].bytes, all->bytes, all->bytes, 1e-9,
			 "allocated", "bytes", (int)site);
	}
	heap_replay_free(&h);
	free(script);
	free(ev);
	free(p.blocks);
}
END_TEST

static void assert_same_weight(const struct estimator_weight *a,
			       const struct estimator_weight *b)
{
	ck_assert_mem_eq(a, b, sizeof(*a));
}

/* The memo's weights of one pair are the estimator's, and stay put. */
static void check_remembered(struct weight_memo *memo, uint64_t size,
			     uint64_t rate)
{
	const struct block_weights *w = weights_of(memo, size, rate);
	double q = estimator_probability(size, estimator_half_rate(rate));
	struct estimator_weight whole = estimator_weigh(size, rate);
	struct estimator_weight half = estimator_weigh_half(size, rate);

	assert_same_weight(&w->whole, &whole);
	assert_same_weight(&w->half, &half);
	ck_assert_mem_eq(&w->half_probability, &q, sizeof(q));
	ck_assert(weights_of(memo, size, rate) == w);
}

/* The remembered weights are the estimator's, bit for bit, for every
 * pair: the first time, again while it is remembered, and after other
 * pairs took its place (many more sizes than the table holds, each seen
 * twice, under three rates in turn, with 0 bytes and a rate of 0 among
 * them). */
START_TEST(remembered_weights_are_exact)
{
	static const uint64_t rates[] = { 0, 512 * 1024, 1 };
	struct weight_memo memo;

	weight_memo_init(&memo);
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t size = 0; size < 20000; size++)
			for (size_t r = 0; r < 3; r++)
				check_remembered(&memo, size, rates[r]);
	weight_memo_free(&memo);
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
	tcase_add_test(t, kinds_select_the_memory_counted);
	tcase_add_test(t, stretch_leaves_out_mappings_born_before_it);
	tcase_add_test(t, interval_of_rounding_noise);
	tcase_add_test(t, growth_per_marker);
	tcase_add_test(t, failed_replay_holds_nothing);
	tcase_add_test(t, remembered_weights_are_exact);
	tcase_add_test(t, allocations_between_snapshots_add_up);
	suite_add_tcase(s, t);
	t = tcase_create("engine");
	tcase_add_test(t, engine_takes_the_steps_in_order);
	tcase_add_test(t, engine_stops_at_the_step_asked);
	suite_add_tcase(s, t);
	t = tcase_create("peak coverage");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, peak_of_a_rotating_heap);
	tcase_add_test(t, peak_of_a_spike);
	tcase_add_test(t, peak_of_a_flat_heap);
	suite_add_tcase(s, t);
	t = tcase_create("moment coverage");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, moment_of_a_rotating_heap);
	tcase_add_test(t, moment_in_a_spike);
	tcase_add_test(t, moment_after_a_spike);
	tcase_add_test(t, moment_of_a_stretch);
	suite_add_tcase(s, t);
	return s;
}
