/* check-metrics - unit tests of the Prometheus exposition of memprof-ctl
 * (src/ctl/ctl-metrics.c): the series of a small profile whose heap is
 * known, the labels of a hostile command line and service name, and a
 * process left out. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl-metrics.h"
#include "mlyze-script.h"
#include "scratch-dir.h"

Suite *test_suite(void); /* run by tests/unit/suite-main.c */

static char dir[] = "/tmp/check-metrics-XXXXXX";
static char profile[PATH_MAX];

/* Sampled at every byte, so that the estimates are the truth.  Over
 * three seconds, handle_request holds 1000 bytes throughout and frees
 * 500 more after 1.5 s (shrinking), while cache_put keeps 100 bytes more
 * every second (growing: its least-squares line over the 3 s rises by
 * 12/3^3 * 200 = 800/9 bytes a second); 1300 bytes live at the end. */
static const char small_profile[] =
	"header start=1000000\n"
	"metadata {\"sampling_rate\": 1, \"pid\": 42}\n"
	"string 0 0 0 /srv/app.py\n"
	"string 0 1 0 handle_request\n"
	"string 0 1 1 cache_put\n"
	"stack 0 0 python:0:0:10\n"
	"stack 0 1 python:0:1:20\n"
	"alloc 0 0x10 1000 0 1\n"
	"alloc 0 0x60 500 0 1\n"
	"alloc 1000000 0x20 100 1 1\n"
	"free 500000 0x60\n"
	"alloc 500000 0x30 100 1 1\n"
	"alloc 1000000 0x40 100 1 1\n";
#define SMALL_PROFILE_END_US 4000000

static void write_profile(const char *script)
{
	struct bytes b = { 0 };
	char error[256];
	FILE *f;

	ck_assert_msg(script_compile(script, &b, error, sizeof(error)) == 0,
		      "%s", error);
	snprintf(profile, sizeof(profile), "%s/p.mlyze.part", dir);
	f = fopen(profile, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b.data, 1, b.length, f), b.length);
	fclose(f);
	bytes_free(&b);
}

/* Whether /proc/PID/environ holds `entry`.  Between the moment exec closes
 * the process's close-on-exec descriptors and the moment the kernel lays
 * out the new image's strings, that file reads empty. */
static bool environ_holds(pid_t pid, const char *entry)
{
	char path[64], text[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	ck_assert_int_ge(n, 0);
	text[n] = '\0';
	return strcmp(text, entry) == 0;
}

/* A process that runs with `service` in its environment until killed;
 * returns once its environ is its own. */
static pid_t start_service(const char *service)
{
	char variable[256];
	char *envp[] = { variable, NULL };
	int fds[2];
	char byte;
	pid_t child;

	snprintf(variable, sizeof(variable), "SPPROF_SERVICE=%s", service);
	ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);
	child = fork();
	if (child == 0) {
		execle("/bin/sleep", "sleep", "60", (char *)NULL, envp);
		_exit(127);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &byte, 1), 0); /* closed by exec */
	close(fds[0]);
	while (!environ_holds(child, variable))
		usleep(1000);
	return child;
}

static void stop_service(pid_t child)
{
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* serve's --growth-window by default, longer than every profile here
 * but the one of growth_is_that_of_the_window. */
#define SERVE_GROWTH_WINDOW_US UINT64_C(3600000000)

/* The exposition of `procs` scraped at now_us, the growth over the last
 * growth_window_us, with the replays of `follow` (NULL: none), in a
 * string to free(). */
static char *render_following(const struct ctl_process *procs, size_t count,
			      uint64_t now_us, uint64_t growth_window_us,
			      struct ctl_follow_cache *follow)
{
	struct ctl_metrics_options opt = { .top_sites = 10,
					   .service_variable =
						   "SPPROF_SERVICE",
					   .now_us = now_us,
					   .growth_window_us = growth_window_us,
					   .follow = follow };
	char *text = NULL, why[256];
	size_t length = 0;
	FILE *out = open_memstream(&text, &length);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(ctl_metrics_render(out, procs, count, &opt, why,
					    sizeof(why)),
			 0);
	fclose(out);
	return text;
}

static char *render_at(const struct ctl_process *procs, size_t count,
		       uint64_t now_us)
{
	return render_following(procs, count, now_us, SERVE_GROWTH_WINDOW_US,
				NULL);
}

/* Scraped at the last event of small_profile. */
static char *render(const struct ctl_process *procs, size_t count)
{
	return render_at(procs, count, SMALL_PROFILE_END_US);
}

static struct ctl_process recording(long pid, const char *command)
{
	/* The profile is a file of the test's own user. */
	struct ctl_process p = { .pid = pid, .uid = geteuid(),
				 .gid = getegid() };

	p.page.state = CONTROL_RECORDING;
	snprintf(p.page.part, sizeof(p.page.part), "%s", profile);
	snprintf(p.command, sizeof(p.command), "%s", command);
	return p;
}

static void setup(void)
{
	scratch_dir_make(dir);
	write_profile(small_profile);
}

static void teardown(void)
{
	scratch_dir_remove(dir);
}

/* Whether `line` is a whole line of text. */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *at = strstr(text, line); at;
	     at = strstr(at + 1, line))
		if ((at == text || at[-1] == '\n') && at[n] == '\n')
			return true;
	return false;
}

static unsigned occurrences(const char *text, const char *what)
{
	unsigned n = 0;

	for (const char *at = strstr(text, what); at;
	     at = strstr(at + 1, what))
		n++;
	return n;
}

/* Every family is named as Prometheus wants, and has one TYPE line. */
static void expect_valid_families(const char *text)
{
	const char *type = "\n# TYPE ";
	char name[128], again[160];

	for (const char *at = strstr(text, type); at;
	     at = strstr(at + 1, type)) {
		size_t n = strcspn(at + strlen(type), " ");

		ck_assert_uint_lt(n, sizeof(name));
		snprintf(name, sizeof(name), "%.*s", (int)n, at + strlen(type));
		ck_assert_uint_eq(strspn(name, "abcdefghijklmnopqrstuvwxyz"
					       "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					       "0123456789_:"),
				  n);
		snprintf(again, sizeof(again), "# TYPE %s ", name);
		ck_assert_msg(occurrences(text, again) == 1, "%s", name);
	}
}

static long file_size(const char *path)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return (long)st.st_size;
}

START_TEST(known_heap)
{
	pid_t service = start_service("shop");
	struct ctl_process p = recording(service, "shopd --port 80");
	char *text, labels[128], line[256];
	const char *expected[][3] = {
		{ "memprof_live_heap_bytes", "1300" },
		{ "memprof_live_heap_lower_bytes", "1300" },
		{ "memprof_live_heap_upper_bytes", "1300" },
		{ "memprof_allocated_bytes_total", "1800" },
		{ "memprof_samples_total", "5" },
		{ "memprof_dropped_samples_total", "7" },
		{ "memprof_runtime_heap_map_full_drops_total", "3" },
		{ "memprof_runtime_sampling_rate_bytes", "4096" },
		{ "memprof_runtime_estimated_live_bytes", "1234.5" },
		{ "memprof_runtime_heap_map_load_percent", "42" },
		{ "memprof_site_live_bytes", "1000", ",site=\"handle_request (/srv/app.py:10)\"" },
		{ "memprof_site_live_bytes", "300", ",site=\"cache_put (/srv/app.py:20)\"" },
		{ "memprof_site_growth_bytes_per_second", "88.888888888888886",
		  ",site=\"cache_put (/srv/app.py:20)\"" },
	};

	p.page.stats.heap_map_full_drops = 3;
	p.page.stats.stack_table_drops = 4;
	p.page.stats.sampling_rate = 4096;
	p.page.stats.estimated_live_bytes = 1234.5;
	p.page.stats.heap_map_load_percent = 42;
	text = render(&p, 1);
	stop_service(service);
	snprintf(labels, sizeof(labels),
		 "pid=\"%d\",command=\"shopd --port 80\",service=\"shop\"",
		 (int)service);
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		snprintf(line, sizeof(line), "%s{%s%s} %s", expected[i][0],
			 labels, expected[i][2] ? expected[i][2] : "",
			 expected[i][1]);
		ck_assert_msg(has_line(text, line), "no line %s in\n%s", line,
			      text);
		/* One family per name: its HELP and TYPE once. */
		snprintf(line, sizeof(line), "# TYPE %s ", expected[i][0]);
		ck_assert_uint_eq(occurrences(text, line), 1);
	}
	ck_assert_uint_eq(occurrences(text, "handle_request"), 1);
	expect_valid_families(text);
	snprintf(line, sizeof(line), "memprof_profile_size_bytes{%s} %ld",
		 labels, file_size(profile));
	ck_assert(has_line(text, line));
	free(text);
}
END_TEST

/* Whether `text` holds `before`, then the " #" and 8 hex digits that
 * mark a value cut or changed, then `after`. */
static bool has_altered(const char *text, const char *before,
			const char *after)
{
	const char *at = strstr(text, before);

	if (!at)
		return false;
	at += strlen(before);
	if (strncmp(at, " #", 2) != 0 || strspn(at + 2, "0123456789abcdef") != 8)
		return false;
	return strncmp(at + 10, after, strlen(after)) == 0;
}

/* Label values hold whatever a program put in its command line and
 * environment: they are escaped, never break a line or a label. */
START_TEST(hostile_labels)
{
	pid_t service = start_service("we\"b\\x\ny}");
	struct ctl_process p = recording(service, "a\"b\\c\nd\te\xff\xc0\x80"
						  "\xed\xa0\x80\xc3\xa9");
	char *text = render(&p, 1);
	char before[256];

	snprintf(before, sizeof(before),
		 "\nmemprof_live_heap_bytes{pid=\"%d\",command=\"a\\\"b\\\\c"
		 "\\nd?e??????\xc3\xa9", (int)service);
	stop_service(service);
	ck_assert_msg(has_altered(text, before,
				  "\",service=\"we\\\"b\\\\x\\ny}\"} 1300\n"),
		      "%s", text);
	free(text);
}
END_TEST

/* The command label of a process running `command`, in a string to
 * free(). */
static char *command_label(const char *command)
{
	struct ctl_process p = recording(1, command);
	char *text = render(&p, 1);
	char *value = strstr(text, "command=\"") + strlen("command=\"");
	char *label = strndup(value, strcspn(value, "\""));

	free(text);
	return label;
}

/* A long value is cut, on a character's boundary; values that differ
 * only past the cut stay apart. */
START_TEST(long_labels)
{
	char command[256], x[128];
	char *tail, *tale;

	memset(x, 'x', 127);
	x[127] = '\0';
	snprintf(command, sizeof(command), "%s\xc3\xa9tail", x);
	tail = command_label(command);
	snprintf(command, sizeof(command), "%s\xc3\xa9tale", x);
	tale = command_label(command);
	ck_assert(has_altered(tail, x, ""));
	ck_assert(has_altered(tale, x, ""));
	ck_assert_uint_eq(strlen(tail), 127 + 10);
	ck_assert_str_ne(tail, tale);
	free(tail);
	free(tale);
}
END_TEST

START_TEST(skipped_process)
{
	struct ctl_process p[2] = { { .pid = 7 }, recording(8, "x") };
	char *text;

	snprintf(p[1].page.part, sizeof(p[1].page.part), "%s/gone\nx", dir);
	text = render(p, 2);
	ck_assert_ptr_nonnull(strstr(text, "# pid 7 skipped: not recording\n"));
	ck_assert_ptr_nonnull(strstr(text, "# pid 8 skipped: "));
	ck_assert_ptr_null(strstr(text, "\nx"));
	ck_assert_ptr_nonnull(
		strstr(text, "# TYPE memprof_live_heap_bytes gauge\n"));
	ck_assert_ptr_null(strstr(text, "memprof_live_heap_bytes{"));
	free(text);
}
END_TEST

/* Scraped three seconds after its last event, the process having lived
 * to then: cache_put has kept nothing more since, and its least-squares
 * line over the 6 s falls to 12/6^3 * 1100 = 550/9 bytes a second. */
START_TEST(growth_runs_to_the_scrape)
{
	struct ctl_process p = recording(9, "x");
	char *text = render_at(&p, 1, SMALL_PROFILE_END_US + 3000000);
	const char *series = "memprof_site_growth_bytes_per_second{";
	const char *at = strstr(text, series);

	ck_assert_msg(at, "no growth in\n%s", text);
	at = strstr(at, "} ");
	ck_assert_ptr_nonnull(at);
	ck_assert_double_eq_tol(strtod(at + 2, NULL), 550.0 / 9, 1e-9);
	free(text);
}
END_TEST

/* What the streams below begin with: small_profile's sites, sampled at
 * every byte, in a stream still written. */
#define STREAM_HEAD \
	"header start=1000000\n" \
	"metadata {\"sampling_rate\": 1, \"pid\": 42, \"complete\": false}\n" \
	"string 0 0 0 /srv/app.py\n" \
	"string 0 1 0 handle_request\n" \
	"string 0 1 1 cache_put\n" \
	"stack 0 0 python:0:0:10\n" \
	"stack 0 1 python:0:1:20\n"

/* cache_put keeps 100 bytes more at 0, 1, 2 and 3 s, and nothing since;
 * handle_request holds 100 bytes from 100 to 870 s, then keeps 100 bytes
 * at 880 s and 100 more at 890 s. */
#define GREW_EARLY_START \
	STREAM_HEAD \
	"alloc 0 0x20 100 1 1\n" \
	"alloc 1000000 0x30 100 1 1\n" \
	"alloc 1000000 0x40 100 1 1\n" \
	"alloc 1000000 0x50 100 1 1\n"
static const char grew_early_start[] = GREW_EARLY_START;
static const char grew_early_profile[] = GREW_EARLY_START
	"alloc 97000000 0x70 100 0 1\n"
	"free 770000000 0x70\n"
	"alloc 10000000 0x10 100 0 1\n"
	"alloc 10000000 0x60 100 0 1\n";
/* Scraped at 903 s. */
#define GREW_EARLY_SCRAPE_US (1000000 + UINT64_C(903000000))

/* The growth of `site` in text, or -1 when it has no growth series. */
static double growth_of(const char *text, const char *site)
{
	char series[256];
	const char *at;

	snprintf(series, sizeof(series),
		 "memprof_site_growth_bytes_per_second{pid=\"11\",command="
		 "\"x\",service=\"\",site=\"%s\"} ",
		 site);
	at = strstr(text, series);
	return at ? strtod(at + strlen(series), NULL) : -1;
}

/* A site that grew in the first seconds and has held the same since
 * grows no more once the window is past its growth, however long ago it
 * began; a window of 60 s starts on the last multiple of a quarter of
 * it (15 s) at least 60 s before the scrape, 840 s, and a site growing
 * there is measured from there, what it held before cut off.  A window
 * that covers the growth sees it. */
START_TEST(growth_is_that_of_the_window)
{
	struct ctl_process p = recording(11, "x");
	char *minute, *hour;

	write_profile(grew_early_profile);
	minute = render_following(&p, 1, GREW_EARLY_SCRAPE_US,
				  UINT64_C(60000000), NULL);
	if (growth_of(minute, "cache_put (/srv/app.py:20)") != -1)
		fprintf(stderr, "cache_put grows in\n%s", minute);
	ck_assert_double_eq(growth_of(minute, "cache_put (/srv/app.py:20)"),
			    -1);
	/* In a window of 63 s, the lives of 100 bytes from 0 to 30 s, from
	 * 40 s and from 50 s: 12/63^3 * 100 * the sum of (b - a)(a + b -
	 * 63)/2 over them. */
	ck_assert_double_eq_tol(
		growth_of(minute, "handle_request (/srv/app.py:10)"),
		600.0 * (30 * -33 + 23 * 40 + 13 * 50) / (63.0 * 63 * 63),
		1e-9);
	hour = render_at(&p, 1, GREW_EARLY_SCRAPE_US);
	/* Over the whole 903 s: 12/903^3 * 100 * sum of (903 - a) a/2, for
	 * a = 0, 1, 2, 3. */
	ck_assert_double_eq_tol(growth_of(hour, "cache_put (/srv/app.py:20)"),
				600.0 * (903 * 6 - 14) / (903.0 * 903 * 903),
				1e-12);
	free(minute);
	free(hour);
}
END_TEST

/* A stream that grows: the first part of grown_profile, then all of
 * it, and then another file put in its place. */
#define GROWN_START \
	STREAM_HEAD \
	"alloc 0 0x10 1000 0 1\n" \
	"alloc 1000000 0x20 100 1 1\n"
static const char grown_start[] = GROWN_START;
static const char grown_profile[] = GROWN_START
	"alloc 500000 0x30 100 1 1\n"
	"free 500000 0x10\n"
	"alloc 1000000 0x40 100 1 1\n";
static const char replacing_profile[] =
	"header start=1000000\n"
	"metadata {\"sampling_rate\": 1, \"pid\": 42, \"complete\": false}\n"
	"string 0 0 0 /srv/other.py\n"
	"string 0 1 0 other_site\n"
	"stack 0 0 python:0:0:30\n"
	"alloc 0 0x10 700 0 1\n"
	"alloc 2000000 0x20 300 0 1\n";

/* Writes script's profile over the stream's bytes, in place (the file
 * stays the same), cut first to nothing when flags has O_TRUNC. */
static void write_in_place(const char *script, int flags)
{
	struct bytes b = { 0 };
	char error[256];
	int fd = open(profile, O_WRONLY | flags);

	ck_assert_int_ge(fd, 0);
	ck_assert_msg(script_compile(script, &b, error, sizeof(error)) == 0,
		      "%s", error);
	ck_assert_int_eq(pwrite(fd, b.data, b.length, 0), (ssize_t)b.length);
	close(fd);
	bytes_free(&b);
}

/* A scrape at now_us with the replays kept (their growth over
 * growth_window_us) says what one without says, which holds `shown`. */
static void expect_same_scrape_at(const struct ctl_process *p,
				  struct ctl_follow_cache *follow,
				  uint64_t now_us, uint64_t growth_window_us,
				  const char *shown)
{
	char *followed = render_following(p, 1, now_us, growth_window_us,
					  follow);
	char *full = render_following(p, 1, now_us, growth_window_us, NULL);

	if (strcmp(followed, full) != 0)
		fprintf(stderr, "kept replays:\n%s\nfull replay:\n%s\n",
			followed, full);
	ck_assert_msg(strcmp(followed, full) == 0, "the scrapes differ");
	ck_assert_ptr_nonnull(strstr(full, shown));
	free(followed);
	free(full);
}

static void expect_same_scrape(const struct ctl_process *p,
			       struct ctl_follow_cache *follow)
{
	expect_same_scrape_at(p, follow, SMALL_PROFILE_END_US + 500000,
			      SERVE_GROWTH_WINDOW_US,
			      "memprof_site_live_bytes{");
}

START_TEST(followed_scrapes_say_what_full_ones_do)
{
	struct ctl_process p = recording(10, "x");
	struct ctl_follow_cache *follow =
		ctl_follow_cache_new(SERVE_GROWTH_WINDOW_US);
	char moved[PATH_MAX + 8];

	write_profile(grown_start);
	expect_same_scrape(&p, follow);
	ck_assert_uint_eq(ctl_follow_resumed(follow), 0);
	/* Grown: taken up where it stopped. */
	write_in_place(grown_profile, 0);
	expect_same_scrape(&p, follow);
	ck_assert_uint_eq(ctl_follow_resumed(follow), 1);
	/* Nothing new: taken up again, to the same answer. */
	expect_same_scrape(&p, follow);
	ck_assert_uint_eq(ctl_follow_resumed(follow), 2);
	/* Cut and written again, shorter: started over. */
	write_in_place(replacing_profile, O_TRUNC);
	expect_same_scrape(&p, follow);
	ck_assert_uint_eq(ctl_follow_resumed(follow), 2);
	/* Written over, longer, other bytes before where it stopped:
	 * started over. */
	write_in_place(grown_profile, 0);
	expect_same_scrape(&p, follow);
	ck_assert_uint_eq(ctl_follow_resumed(follow), 2);
	/* Another file in its place (as a checkpoint puts one): started
	 * over. */
	snprintf(moved, sizeof(moved), "%s.new", profile);
	ck_assert_int_eq(rename(profile, moved), 0);
	write_profile(grown_profile);
	expect_same_scrape(&p, follow);
	ck_assert_uint_eq(ctl_follow_resumed(follow), 2);
	unlink(moved);
	ctl_follow_cache_free(follow);
}
END_TEST

/* A replay kept from a scrape in the first seconds, where the window
 * starts at 0, and taken up past many of its starts says what a full
 * replay does. */
START_TEST(followed_growth_is_that_of_the_window)
{
	struct ctl_process p = recording(11, "x");
	uint64_t window = UINT64_C(60000000);
	struct ctl_follow_cache *follow = ctl_follow_cache_new(window);

	write_profile(grew_early_start);
	expect_same_scrape_at(&p, follow, 1000000 + 3500000, window,
			      "site=\"cache_put");
	write_in_place(grew_early_profile, 0);
	expect_same_scrape_at(&p, follow, GREW_EARLY_SCRAPE_US, window,
			      "growth_bytes_per_second{pid=\"11\",command=\"x\","
			      "service=\"\",site=\"handle_request");
	ck_assert_uint_eq(ctl_follow_resumed(follow), 1);
	ctl_follow_cache_free(follow);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("render");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, known_heap);
	tcase_add_test(tc, hostile_labels);
	tcase_add_test(tc, long_labels);
	tcase_add_test(tc, skipped_process);
	tcase_add_test(tc, growth_runs_to_the_scrape);
	tcase_add_test(tc, growth_is_that_of_the_window);
	tcase_add_test(tc, followed_scrapes_say_what_full_ones_do);
	tcase_add_test(tc, followed_growth_is_that_of_the_window);
	suite_add_tcase(s, tc);
	return s;
}
