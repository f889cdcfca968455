/* bench-run.c - runs one command and measures it.
 *
 * Contract: bench-run -o FILE [NAME=VALUE]... PROGRAM [ARG]... sets the
 * given variables in the child only (so a preloaded library never loads
 * into the measuring process), runs PROGRAM, and appends one line
 * "<wall seconds> <max RSS KiB> <CPU seconds>" to FILE.  Wall time is
 * taken on the monotonic clock around fork and wait; the peak RSS and the
 * CPU time (user + system, all threads) are the child's, as reported by
 * wait4().  Exits with the child's status, or 1 when the child could not
 * run or was killed.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: bench-run -o FILE [NAME=VALUE]... PROGRAM [ARG]...\n"
		"Runs PROGRAM with the variables set, and appends its wall "
		"time in seconds,\nits peak resident set in KiB and its CPU "
		"time in seconds to FILE.\n"
		"  -o, --output=FILE  where the measurement goes\n"
		"  -h, --help         show this help\n"
		"  -V, --version      show the version\n");
}

static void exec_child(char **assignments, int count, char **command)
{
	for (int i = 0; i < count; i++)
		if (putenv(assignments[i])) {
			perror("bench-run: putenv");
			_exit(127);
		}
	execvp(command[0], command);
	fprintf(stderr, "bench-run: cannot run %s: %s\n", command[0],
		strerror(errno));
	_exit(127);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL;
	struct rusage usage_of_child;
	int c, first, status;
	double start, elapsed;
	FILE *out;
	pid_t pid;

	/* '+': options end at the first assignment or the program name. */
	while ((c = getopt_long(argc, argv, "+o:hV", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		default:
			return shared_option(c, "bench-run", usage);
		}
	}
	for (first = optind; first < argc && strchr(argv[first], '='); first++)
		;
	if (!output || first == argc) {
		usage(stderr);
		return 2;
	}
	start = now();
	pid = fork();
	if (pid < 0) {
		perror("bench-run: fork");
		return 1;
	}
	if (pid == 0)
		exec_child(argv + optind, first - optind, argv + first);
	if (wait4(pid, &status, 0, &usage_of_child) < 0) {
		perror("bench-run: wait4");
		return 1;
	}
	elapsed = now() - start;
	out = fopen(output, "a");
	if (!out ||
	    fprintf(out, "%.6f %ld %.6f\n", elapsed, usage_of_child.ru_maxrss,
		    seconds(usage_of_child.ru_utime) +
			    seconds(usage_of_child.ru_stime)) < 0 ||
	    fclose(out)) {
		fprintf(stderr, "bench-run: %s: %s\n", output, strerror(errno));
		return 1;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	fprintf(stderr, "bench-run: %s killed by signal %d\n", argv[first],
		WTERMSIG(status));
	return 1;
}
