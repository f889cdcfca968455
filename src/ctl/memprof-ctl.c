/* memprof-ctl - ask the running processes of this host about their
 * profiles: list them, show one, snapshot one, start and stop recording.
 *
 * Processes are found in the runtime's registry (ctl-registry.c), what
 * they recorded so far is read from their streamed files (ctl-summary.c),
 * and requests go through their registry entries (ctl-request.c), so no
 * ptrace and no reading of another program's memory is needed; only
 * attach, which loads the runtime into a process, uses gdb.  Exit
 * status: 0 ok, 1 failure, 2 bad usage.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler.h"
#include "ctl-attach.h"
#include "ctl-registry.h"
#include "ctl-request.h"
#include "ctl-serve.h"
#include "ctl-stream.h"
#include "ctl-summary.h"
#include "ctl-text.h"
#include "ctl-top.h"
#include "ctl-user.h"
#include "report-util.h"
#include "tool_files.h"

#define PROGRAM "memprof-ctl"
#define WHY_SIZE 1024

/* The Python bindings' frame walker, installed and built (empty when
 * configured without the bindings). */
#ifndef SPPROF_PYTHON_WALKER_PATH
#define SPPROF_PYTHON_WALKER_PATH ""
#define SPPROF_PYTHON_WALKER_BUILT ""
#endif

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* The options of serve: parsed by parse_serve_option(), by their code. */
static const struct serve_option {
	const char *name, *argument, *help;
	int code;
} serve_options[] = {
	{ "listen", "ADDR:PORT",
	  "where to listen (" CTL_SERVE_DEFAULT_LISTEN ")", 'l' },
	{ "web-config-file", "FILE",
	  "TLS and the clients' accounts (Prometheus' format)", 'w' },
	{ "max-connections", "N", "requests under way at once (64)", 'c' },
	{ "max-per-client", "N",
	  "requests under way at once of one client (16)", 'p' },
	{ "timeout", "SECONDS", "an idle connection is closed after (30)", 't' },
	{ "top-sites", "N", "sites per process in /metrics (10)", 'n' },
	{ "growth-window", "SECONDS",
	  "the growth in /metrics is over the last (3600)", 'g' },
	{ "service-variable", "NAME",
	  "the environment variable naming a process's service "
	  "(SPPROF_SERVICE)", 's' },
};

static void usage(FILE *to)
{
	fprintf(to,
		"Usage: " PROGRAM " COMMAND [ARGS]\n"
		"Ask running processes that have the spprof-mem runtime "
		"loaded about their profiles.\n\n"
		"Commands:\n"
		"  list                  every profiled process you may see\n"
		"  status PID            one process, with the runtime's "
		"counters\n"
		"  snapshot PID [-o FILE]\n"
		"                        a finalised profile of the process "
		"as of now\n"
		"  start PID [-o FILE]   start recording in a dormant runtime\n"
		"  stop PID              stop recording; finish the profile\n"
		"  top PID [-d SECONDS]  the top sites, redrawn every SECONDS "
		"(3);\n"
		"                        q quits\n"
		"  attach PID [-o FILE]  load the runtime into a process "
		"started without it\n"
		"                        (with gdb), and start recording\n"
		"  detach PID            stop recording; finish the profile; "
		"the runtime\n"
		"                        stays loaded, dormant\n"
		"  serve [--listen ADDR:PORT] [--web-config-file FILE] "
		"[OPTIONS]\n"
		"                        serve the profiles over HTTP(S) "
		"(default " CTL_SERVE_DEFAULT_LISTEN "),\n"
		"                        to each client those it may read:\n"
		"                        /debug/pprof/heap?pid=N|service=NAME, "
		"/debug/pprof/allocs,\n"
		"                        /metrics, /targets (Prometheus' "
		"service discovery);\n"
		"                        see memprof-ctl(1)\n\n"
		"Options:\n"
		"  -h, --help            display this help and exit\n"
		"  -V, --version         output version information and "
		"exit\n\n"
		"Options of serve:\n");
	for (size_t i = 0; i < ARRAY_SIZE(serve_options); i++)
		fprintf(to, "  --%s=%-*s %s\n", serve_options[i].name,
			(int)(21 - strlen(serve_options[i].name)),
			serve_options[i].argument, serve_options[i].help);
}

/* Text of the processes' users, shown escaped (ctl-text.h). */
#define SHOWN_SIZE CTL_ESCAPED_SIZE(PATH_MAX)

/* Messages quote what processes answered: escaped too. */
static int fail(const char *message)
{
	char shown[CTL_ESCAPED_SIZE(WHY_SIZE)];

	fprintf(stderr, PROGRAM ": %s\n",
		ctl_escaped(message, shown, sizeof(shown)));
	return EXIT_FAIL;
}

static int bad_usage(const char *message)
{
	fprintf(stderr, PROGRAM ": %s\nTry '" PROGRAM " --help' for more "
		"information.\n", message);
	return EXIT_USAGE;
}

static const char *state_name(const struct ctl_process *p)
{
	return p->page.state == CONTROL_RECORDING ? "recording" : "dormant";
}

/* "12.0 MiB ± 1.1 MiB" of the streamed file, or "-" without one. */
static void describe_heap(const struct ctl_process *p, char *samples,
			  char *heap, size_t size)
{
	struct ctl_summary s;
	struct stat st;
	char why[WHY_SIZE], bytes[32], error[32];
	int stream = ctl_stream_open(p, &st, why, sizeof(why)), rc;

	snprintf(samples, 32, "-");
	snprintf(heap, size, "-");
	if (stream < 0)
		return;
	rc = ctl_summarise(stream, p->page.part, &s, why, sizeof(why));
	close(stream);
	if (rc < 0)
		return;
	format_size(bytes, s.live_bytes);
	format_size(error, s.live_error);
	snprintf(samples, 32, "%" PRIu64, s.samples);
	snprintf(heap, size, "%s ± %s", bytes, error);
}

static const char *profile_of(const struct ctl_process *p)
{
	if (p->page.part[0])
		return p->page.part;
	return p->page.last_profile[0] ? p->page.last_profile : "-";
}

static int list(int argc, char **argv)
{
	struct ctl_process *all;
	char why[WHY_SIZE], samples[32], heap[80];
	char command[SHOWN_SIZE], profile[SHOWN_SIZE];
	size_t count;

	(void)argv;
	if (argc > 1)
		return bad_usage("list takes no arguments");
	if (ctl_registry_list(&all, &count, why, sizeof(why)) < 0)
		return fail(why);
	printf("%-8s %-10s %8s  %-22s %s\n", "PID", "STATE", "SAMPLES",
	       "LIVE HEAP (95%)", "COMMAND / PROFILE");
	for (size_t i = 0; i < count; i++) {
		describe_heap(&all[i], samples, heap, sizeof(heap));
		printf("%-8ld %-10s %8s  %-22s %s\n%42s %s\n", all[i].pid,
		       state_name(&all[i]), samples, heap,
		       ctl_escaped(all[i].command, command, sizeof(command)), "",
		       ctl_escaped(profile_of(&all[i]), profile,
				   sizeof(profile)));
	}
	free(all);
	return EXIT_OK;
}

/* The PID argument and the options around it: -o FILE, -d SECONDS. */
struct target {
	struct ctl_process process;
	const char *output;
	unsigned interval;
};

#define DEFAULT_INTERVAL 3

static int parse_option(int c, const char *allowed, struct target *t)
{
	char *end;
	unsigned long seconds;

	if (c == '?' || !strchr(allowed, c))
		return bad_usage(c == '?' ? "unknown option"
					  : "this command takes no such option");
	if (c == 'o') {
		t->output = optarg;
		return EXIT_OK;
	}
	seconds = strtoul(optarg, &end, 10);
	if (*end || seconds == 0 || seconds > 3600)
		return bad_usage("-d takes a whole number of seconds, 1-3600");
	t->interval = (unsigned)seconds;
	return EXIT_OK;
}

/* The options and the PID; allowed: the option letters of the command
 * ("o", "d" or ""). */
static int parse_arguments(int argc, char **argv, const char *allowed,
			   struct target *t)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "delay", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	char why[WHY_SIZE], *end;
	long pid;
	int c, rc;

	t->output = NULL;
	t->interval = DEFAULT_INTERVAL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:d:", longs, NULL)) != -1)
		if ((rc = parse_option(c, allowed, t)) != EXIT_OK)
			return rc;
	if (optind != argc - 1)
		return bad_usage("give one PID");
	errno = 0;
	pid = strtol(argv[optind], &end, 10);
	if (errno || *end || pid <= 0) {
		snprintf(why, sizeof(why), "'%s' is not a process id",
			 argv[optind]);
		return bad_usage(why);
	}
	t->process.pid = pid;
	return EXIT_OK;
}

/* parse_arguments(), and the process's registry entry. */
static int parse_target(int argc, char **argv, const char *allowed,
			struct target *t)
{
	char why[WHY_SIZE];
	int rc = parse_arguments(argc, argv, allowed, t);

	if (rc)
		return rc;
	if (ctl_registry_find(t->process.pid, &t->process, why,
			      sizeof(why)) < 0)
		return fail(why);
	return EXIT_OK;
}

static void print_counters(const memprof_stats *s)
{
	printf("sampling rate: %" PRIu64 " bytes\n"
	       "samples:       %" PRIu64 " (%" PRIu64 " live, %" PRIu64
	       " freed)\n"
	       "stacks:        %" PRIu64 "\n"
	       "events:        %" PRIu64 " written, %" PRIu64 " dropped\n"
	       "drops:         %" PRIu64 " heap map full, %" PRIu64
	       " stack table full\n",
	       s->sampling_rate, s->total_samples, s->live_samples,
	       s->freed_samples, s->unique_stacks, s->events_written,
	       s->events_dropped, s->heap_map_full_drops,
	       s->stack_table_drops);
}

static int status(int argc, char **argv)
{
	struct target t;
	struct ctl_answer answer;
	char why[WHY_SIZE], samples[32], heap[80];
	char command[SHOWN_SIZE], profile[SHOWN_SIZE];
	int rc = parse_target(argc, argv, "", &t);

	if (rc)
		return rc;
	describe_heap(&t.process, samples, heap, sizeof(heap));
	printf("pid:           %ld\n"
	       "command:       %s\n"
	       "state:         %s\n"
	       "profile:       %s\n"
	       "live heap:     %s (95%% interval)\n",
	       t.process.pid,
	       ctl_escaped(t.process.command, command, sizeof(command)),
	       state_name(&t.process),
	       ctl_escaped(profile_of(&t.process), profile, sizeof(profile)),
	       heap);
	if (ctl_request(&t.process, CONTROL_STATUS, NULL, &answer, why,
			sizeof(why)) < 0)
		return fail(why);
	print_counters(&answer.stats);
	return EXIT_OK;
}

/* A line of text from a process (its answer), escaped. */
static void print_line(const char *text)
{
	char shown[SHOWN_SIZE];

	puts(ctl_escaped(text, shown, sizeof(shown)));
}

/* "process N: recording to NAME": the name the window's profile will
 * be published under (the runtime's answer, or its streamed file's name
 * without ".part"), %p filled in. */
static void print_recording(long pid, const char *name)
{
	static const char part[] = ".part";
	char shown[PATH_MAX];
	size_t n = strlen(name);

	if (n >= sizeof(part) - 1 && !strcmp(name + n - (sizeof(part) - 1), part))
		n -= sizeof(part) - 1;
	snprintf(shown, sizeof(shown), "%.*s", (int)n, name);
	printf("process %ld: recording to ", pid);
	print_line(shown);
}

/* Copies what fd holds to out, and closes out: 0, or -1 with errno. */
static int copy_to(int fd, int out)
{
	char buffer[65536];
	ssize_t n, written = 0;

	while ((n = read(fd, buffer, sizeof(buffer))) > 0 && written >= 0)
		for (ssize_t done = 0; done < n && written >= 0; done += written)
			written = write(out, buffer + done, (size_t)(n - done));
	return (close(out) < 0 || n < 0 || written < 0) ? -1 : 0;
}

/* Moves the snapshot the process named into out (the invoker's file,
 * just made): the name is the process's user's word, so the file is
 * opened as that user and taken only when it is a regular file of
 * theirs; its content is copied through the descriptor, and the
 * original removed as that user.  0, or -1 with why set. */
static int take_snapshot(const struct ctl_process *p, const char *name,
			 int out, const char *output, char *why, size_t size)
{
	char problem[256];
	struct stat st;
	int in = ctl_open_users_file(p->uid, p->gid, name, &st, problem,
				     sizeof(problem));

	if (in < 0) {
		close(out);
		snprintf(why, size, "the snapshot process %ld named (%.512s) "
			 "is refused: %s", p->pid, name, problem);
		return -1;
	}
	if (copy_to(in, out) < 0) {
		snprintf(why, size, "%s: %s", output, strerror(errno));
		close(in);
		return -1;
	}
	close(in);
	if (ctl_remove_users_file(p->uid, p->gid, name, &st) < 0)
		fprintf(stderr, PROGRAM ": warning: the snapshot is copied, but "
			"its first file was not removed: %s\n", strerror(errno));
	return 0;
}

static int snapshot(int argc, char **argv)
{
	struct target t;
	struct ctl_answer answer;
	char why[WHY_SIZE];
	int out = -1, rc = parse_target(argc, argv, "o", &t);

	if (rc)
		return rc;
	/* Made first, by the invoker, never through a link or over a file:
	 * the process's user has no say in it. */
	if (t.output && (out = open(t.output, O_WRONLY | O_CREAT | O_EXCL |
						      O_NOFOLLOW | O_CLOEXEC,
				    0600)) < 0) {
		if (errno == EEXIST)
			snprintf(why, sizeof(why), "%s exists already", t.output);
		else
			snprintf(why, sizeof(why), "%s: %s", t.output,
				 strerror(errno));
		return fail(why);
	}
	if (ctl_request(&t.process, CONTROL_SNAPSHOT, NULL, &answer, why,
			sizeof(why)) < 0) {
		if (t.output) {
			close(out);
			unlink(t.output);
		}
		return fail(why);
	}
	/* take_snapshot() closes out. */
	if (t.output && take_snapshot(&t.process, answer.text, out, t.output,
				      why, sizeof(why)) < 0) {
		unlink(t.output);
		return fail(why);
	}
	print_line(t.output ? t.output : answer.text);
	return EXIT_OK;
}

/* `name` as an absolute path in pattern: the process has its own working
 * directory.  0, or -1 after saying why not. */
static int absolute_pattern(const char *name, char *pattern, size_t size)
{
	char cwd[PATH_MAX] = "";
	int relative = name[0] != '/';

	if (relative && !getcwd(cwd, sizeof(cwd)))
		return fail("cannot name the current directory"), -1;
	if ((size_t)snprintf(pattern, size, "%s%s%s", cwd, relative ? "/" : "",
			     name) >= size)
		return fail("the profile name is too long"), -1;
	return 0;
}

/* Starts a window in a process whose runtime is loaded. */
static int start_window(struct target *t, const char *pattern)
{
	struct ctl_answer answer;
	char why[WHY_SIZE];

	if (ctl_request(&t->process, CONTROL_START, pattern, &answer, why,
			sizeof(why)) < 0) {
		if (strstr(why, "no profile name"))
			strncat(why, " (name one with -o FILE)",
				sizeof(why) - strlen(why) - 1);
		return fail(why);
	}
	print_recording(t->process.pid, answer.text);
	return EXIT_OK;
}

static int start(int argc, char **argv)
{
	struct target t;
	char pattern[PATH_MAX] = "";
	int rc = parse_target(argc, argv, "o", &t);

	if (rc)
		return rc;
	if (t.output && absolute_pattern(t.output, pattern, sizeof(pattern)) < 0)
		return EXIT_FAIL;
	return start_window(&t, pattern);
}

static int stop(int argc, char **argv)
{
	struct target t;
	struct ctl_answer answer;
	char why[WHY_SIZE];
	int rc = parse_target(argc, argv, "", &t);

	if (rc)
		return rc;
	if (ctl_request(&t.process, CONTROL_STOP, NULL, &answer, why,
			sizeof(why)) < 0)
		return fail(why);
	print_line(answer.text);
	return EXIT_OK;
}

/* The default profile name: COMMAND.%p.mlyze in the current directory. */
static void default_name(long pid, char *name, size_t size)
{
	char comm_file[64], command[64] = "program";
	FILE *f;

	snprintf(comm_file, sizeof(comm_file), "/proc/%ld/comm", pid);
	if ((f = fopen(comm_file, "r"))) {
		if (fgets(command, sizeof(command), f))
			command[strcspn(command, "\n/")] = '\0';
		fclose(f);
	}
	snprintf(name, size, "%s.%%p.mlyze", command);
}

/* A process with the runtime loaded gets a new window; another one gets
 * the runtime, through gdb (ctl-attach.h). */
static int attach(int argc, char **argv)
{
	static char runtime[PATH_MAX], walker[PATH_MAX];
	struct ctl_attach_request r;
	struct target t;
	char why[WHY_SIZE], name[PATH_MAX], pattern[PATH_MAX];
	int rc = parse_arguments(argc, argv, "o", &t);

	if (rc)
		return rc;
	/* Who the process is now: checked again right before gdb. */
	r.identified = ctl_identify(t.process.pid, &r.process);
	if (r.identified == CTL_GONE) {
		snprintf(why, sizeof(why), "no process %ld", t.process.pid);
		return fail(why);
	}
	if (!t.output)
		default_name(t.process.pid, name, sizeof(name));
	if (absolute_pattern(t.output ? t.output : name, pattern,
			     sizeof(pattern)) < 0)
		return EXIT_FAIL;
	r.pid = t.process.pid;
	if (ctl_registry_find(r.pid, &t.process, why, sizeof(why)) == 0)
		return start_window(&t, pattern);
	r.output = pattern;
	r.runtime = getenv("SPPROF_RUNTIME");
	if (!r.runtime || !r.runtime[0])
		r.runtime = tool_file(PROGRAM, TOOL_FILES_RUNTIME_BUILT,
				      SPPROF_RUNTIME_PATH, runtime);
	if (!r.runtime)
		return fail("the runtime " SPPROF_RUNTIME_PATH " is not "
			    "installed (SPPROF_RUNTIME names another)");
	r.python_walker = tool_file(PROGRAM, SPPROF_PYTHON_WALKER_BUILT,
				    SPPROF_PYTHON_WALKER_PATH, walker);
	if (ctl_attach(&r, why, sizeof(why)) < 0)
		return fail(why);
	if (ctl_registry_find(r.pid, &t.process, why, sizeof(why)) < 0) {
		char message[2 * WHY_SIZE];

		snprintf(message, sizeof(message), "process %ld loaded the "
			 "runtime, but its entry is not in %s (it has another "
			 "XDG_RUNTIME_DIR?): %s", r.pid, ctl_registry_own(), why);
		return fail(message);
	}
	if (t.process.page.state != CONTROL_RECORDING) {
		snprintf(why, sizeof(why), "process %ld loaded the runtime, "
			 "which records nothing: %.512s", r.pid,
			 t.process.page.error ? t.process.page.answer
					      : "it did not start recording");
		return fail(why);
	}
	print_recording(r.pid, t.process.page.part[0] ? t.process.page.part
						   : pattern);
	return EXIT_OK;
}

static int top(int argc, char **argv)
{
	struct target t;
	int rc = parse_target(argc, argv, "d", &t);

	return rc ? rc : ctl_top(&t.process, t.interval);
}

/* A whole number in [min, max] for option `name`; 0 or EXIT_USAGE. */
static int parse_count(const char *name, const char *text, unsigned min,
		       unsigned max, unsigned *out)
{
	char why[WHY_SIZE], *end;
	unsigned long n;

	errno = 0;
	n = strtoul(text, &end, 10);
	if (errno || *end || text[0] < '0' || text[0] > '9' || n < min ||
	    n > max) {
		snprintf(why, sizeof(why), "%s takes a whole number, %u-%u",
			 name, min, max);
		return bad_usage(why);
	}
	*out = (unsigned)n;
	return EXIT_OK;
}

/* Seconds of --growth-window: 30 days; a month-long trend is no longer
 * the recent one. */
#define GROWTH_WINDOW_MAX 2592000

static int parse_serve_option(int c, struct ctl_serve_options *o)
{
	unsigned seconds;
	int rc;

	switch (c) {
	case 'l':
		o->listen = optarg;
		return EXIT_OK;
	case 'c':
		return parse_count("--max-connections", optarg, 1, 10000,
				   &o->max_connections);
	case 'p':
		return parse_count("--max-per-client", optarg, 1, 10000,
				   &o->max_per_client);
	case 't':
		return parse_count("--timeout", optarg, 1, 3600, &o->timeout);
	case 'w':
		o->web_config_file = optarg;
		return EXIT_OK;
	case 'n':
		return parse_count("--top-sites", optarg, 0, 1000,
				   &o->metrics.top_sites);
	case 's':
		o->metrics.service_variable = optarg;
		return EXIT_OK;
	case 'g':
		if ((rc = parse_count("--growth-window", optarg, 1,
				      GROWTH_WINDOW_MAX, &seconds)) == EXIT_OK)
			o->metrics.growth_window_us = seconds * UINT64_C(1000000);
		return rc;
	default:
		return bad_usage("unknown option");
	}
}

static int serve(int argc, char **argv)
{
	struct option longs[ARRAY_SIZE(serve_options) + 1] = { { 0 } };
	struct ctl_serve_options o = {
		.listen = CTL_SERVE_DEFAULT_LISTEN,
		.max_connections = 64, .max_per_client = 16, .timeout = 30,
		.metrics = { .top_sites = 10,
			     .service_variable = "SPPROF_SERVICE",
			     .growth_window_us = UINT64_C(3600000000) },
	};
	int c, rc;

	for (size_t i = 0; i < ARRAY_SIZE(serve_options); i++)
		longs[i] = (struct option){ serve_options[i].name,
					    required_argument, NULL,
					    serve_options[i].code };
	optind = 1;
	while ((c = getopt_long(argc, argv, "l:", longs, NULL)) != -1)
		if ((rc = parse_serve_option(c, &o)) != EXIT_OK)
			return rc;
	if (optind != argc)
		return bad_usage("serve takes options only");
	if (o.max_per_client > o.max_connections)
		return bad_usage("--max-per-client is more than "
				 "--max-connections");
	return ctl_serve(&o);
}

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "list", list },   { "status", status }, { "snapshot", snapshot },
	{ "start", start }, { "stop", stop },	      { "top", top },
	{ "attach", attach }, { "detach", stop },   { "serve", serve },
};

int main(int argc, char **argv)
{
	fatal_program_name(PROGRAM);
	if (argc < 2)
		return bad_usage("no command given");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf(PROGRAM " (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, PROGRAM ": unknown command '%s'\n", argv[1]);
	return bad_usage("commands: list, status, snapshot, start, stop, top, "
			 "attach, detach, serve");
}
