/* check-metrics - unit tests of the Prometheus exposition of memprof-ctl
 * (src/ctl/ctl-metrics.c): the series of a small profile whose heap is
 * known, the labels of a hostile command line and service name, and a
 * process left out. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl-metrics.h"
#include "mlyze-script.h"
#include "scratch-dir.h"

Suite *test_suite(void); /* run by tests/unit/suite-main.c */

static char dir[] = "/tmp/check-metrics-XXXXXX";
static char profile[PATH_MAX];

/* Sampled at every byte, so that the estimates are the truth: 300 bytes
 * allocated, 200 live at the end. */
static const char small_profile[] =
	"header start=1000000\n"
	"metadata {\"sampling_rate\": 1, \"pid\": 42}\n"
	"stack 0 7 native:0x1000\n"
	"alloc 5 0x10 100 7 1\n"
	"alloc 5 0x20 200 7 1\n"
	"free 5 0x10\n";

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

/* A process that runs with `service` in its environment until killed;
 * returns once it has exec'd, so that its environ is its own. */
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
	return child;
}

static void stop_service(pid_t child)
{
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* The exposition of `procs`, in a string to free(). */
static char *render(const struct ctl_process *procs, size_t count)
{
	struct ctl_metrics_options opt = { .top_sites = 10,
					   .service_variable =
						   "SPPROF_SERVICE" };
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

static struct ctl_process recording(long pid, const char *command)
{
	struct ctl_process p = { .pid = pid };

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

START_TEST(known_heap)
{
	pid_t service = start_service("shop");
	struct ctl_process p = recording(service, "shopd --port 80");
	char *text = render(&p, 1);
	char expected[4096], labels[128];
	long size;
	FILE *f = fopen(profile, "rb");

	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	snprintf(labels, sizeof(labels),
		 "pid=\"%d\",command=\"shopd --port 80\",service=\"shop\"",
		 (int)service);
	snprintf(expected, sizeof(expected),
		 "# HELP memprof_live_heap_bytes Estimated live heap of the "
		 "process.\n"
		 "# TYPE memprof_live_heap_bytes gauge\n"
		 "memprof_live_heap_bytes{%s} 200\n"
		 "# HELP memprof_live_heap_lower_bytes Lower bound of the "
		 "95 %% interval of the live heap.\n"
		 "# TYPE memprof_live_heap_lower_bytes gauge\n"
		 "memprof_live_heap_lower_bytes{%s} 200\n"
		 "# HELP memprof_live_heap_upper_bytes Upper bound of the "
		 "95 %% interval of the live heap.\n"
		 "# TYPE memprof_live_heap_upper_bytes gauge\n"
		 "memprof_live_heap_upper_bytes{%s} 200\n"
		 "# HELP memprof_samples_total Allocations sampled into the "
		 "profile so far.\n"
		 "# TYPE memprof_samples_total counter\n"
		 "memprof_samples_total{%s} 2\n"
		 "# HELP memprof_profile_size_bytes Size of the streamed "
		 "profile on disk.\n"
		 "# TYPE memprof_profile_size_bytes gauge\n"
		 "memprof_profile_size_bytes{%s} %ld\n",
		 labels, labels, labels, labels, labels, size);
	stop_service(service);
	ck_assert_str_eq(text, expected);
	free(text);
}
END_TEST

/* Label values hold whatever a program put in its command line and
 * environment: they are escaped, never break a line or a label. */
START_TEST(hostile_labels)
{
	pid_t service = start_service("we\"b\\x\ny}");
	struct ctl_process p = recording(service, "a\"b\\c\nd\te\xff\xc0\x80"
						  "\xed\xa0\x80\xc3\xa9");
	char *text = render(&p, 1);
	char labels[256];

	snprintf(labels, sizeof(labels),
		 "memprof_live_heap_bytes{pid=\"%d\",command=\"a\\\"b\\\\c\\n"
		 "d?e??????\xc3\xa9\",service=\"we\\\"b\\\\x\\ny}\"} 200\n",
		 (int)service);
	stop_service(service);
	ck_assert_ptr_nonnull(strstr(text, labels));
	free(text);
}
END_TEST

/* A long value is cut, on a character's boundary. */
START_TEST(long_labels)
{
	char command[256];
	struct ctl_process p;
	char *text, *value, *end;

	memset(command, 'x', 127);
	strcpy(command + 127, "\xc3\xa9tail");
	p = recording(1, command);
	text = render(&p, 1);
	value = strstr(text, "command=\"") + strlen("command=\"");
	end = strchr(value, '"');
	ck_assert_int_eq((int)(end - value), 127);
	free(text);
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

Suite *test_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("render");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, known_heap);
	tcase_add_test(tc, hostile_labels);
	tcase_add_test(tc, long_labels);
	tcase_add_test(tc, skipped_process);
	suite_add_tcase(s, tc);
	return s;
}
