/* forge-entry - what a hostile local user does to memprof-ctl's registry,
 * for the security tests (run as that user).
 *
 *   forge-entry serve DIR PART ANSWER [WORD...]
 *       makes DIR/<its pid> a recording entry of its own, naming PART as
 *       its stream, prints "ready", and answers every request with
 *       ANSWER until it is killed (the WORDs only show in its command
 *       line);
 *   forge-entry cut DIR PART
 *       the same, but cuts its entry to nothing when a request comes;
 *   forge-entry write DIR PID PART [COUNT]
 *       makes DIR/PID an entry for another process, with that process's
 *       start time when it runs (else none), naming PART; with COUNT,
 *       for the COUNT pids from PID on;
 *   forge-entry swap A B
 *       exchanges the names A and B (renameat2) until it is killed;
 *   forge-entry exchange A B
 *       exchanges them once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "control_page.h"
#include "process_start.h"

#define PAGE_BYTES ((sizeof(struct control_page) + 4095) & ~(size_t)4095)

static void die(const char *what)
{
	fprintf(stderr, "forge-entry: %s: %s\n", what, strerror(errno));
	exit(1);
}

static char path[PATH_MAX]; /* of the last entry made */

static struct control_page *make_entry(const char *dir, long pid,
				       const char *part)
{
	struct control_page *page;
	int fd;

	snprintf(path, sizeof(path), "%s/%ld", dir, pid);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, PAGE_BYTES) < 0)
		die(path);
	page = mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    0);
	if (page == MAP_FAILED)
		die("mmap");
	close(fd);
	page->version = CONTROL_VERSION;
	page->pid = pid;
	page->start_ticks = process_start_ticks(pid);
	atomic_store(&page->state, CONTROL_RECORDING);
	snprintf(page->part, sizeof(page->part), "%s", part);
	/* It claims the runtime's handler of the control signal: an entry
	 * believed would bring requests by signal to the process it names. */
	atomic_store(&page->signal_ready, 1);
	atomic_store(&page->magic, CONTROL_MAGIC);
	return page;
}

/* answer: NULL to cut the entry short instead. */
static void serve(struct control_page *page, const char *answer)
{
	const struct timespec pause = { 0, 5000000 };

	printf("ready\n");
	fflush(stdout);
	for (;;) {
		uint64_t number = atomic_exchange(&page->pending, 0);

		if (number && !answer && truncate(path, 0) < 0)
			die(path);
		if (number && answer) {
			page->error = 0;
			snprintf(page->answer, sizeof(page->answer), "%s",
				 answer);
			atomic_store(&page->answered, number);
		}
		nanosleep(&pause, NULL);
	}
}

static void exchange(const char *a, const char *b)
{
	if (renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) < 0)
		die("renameat2");
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "serve"))
		serve(make_entry(argv[2], (long)getpid(), argv[3]), argv[4]);
	else if (argc == 4 && !strcmp(argv[1], "cut"))
		serve(make_entry(argv[2], (long)getpid(), argv[3]), NULL);
	else if ((argc == 5 || argc == 6) && !strcmp(argv[1], "write"))
		for (long i = 0; i < (argc == 6 ? atol(argv[5]) : 1); i++)
			munmap(make_entry(argv[2], atol(argv[3]) + i, argv[4]),
			       PAGE_BYTES);
	else if (argc == 4 && !strcmp(argv[1], "swap"))
		for (;;)
			exchange(argv[2], argv[3]);
	else if (argc == 4 && !strcmp(argv[1], "exchange"))
		exchange(argv[2], argv[3]);
	else {
		fprintf(stderr, "usage: forge-entry serve DIR PART ANSWER | "
			"cut DIR PART | write DIR PID PART [COUNT] | "
			"swap A B | exchange A B\n");
		return 2;
	}
	return 0;
}
