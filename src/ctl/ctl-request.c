/* ctl-request.c - ask a running process for something (see ctl-request.h). */
#include "config.h"

#include "ctl-request.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ctl-entry.h"
#include "process_start.h"

#define POLL_MS 2
#define SIGNAL_AFTER_MS 20
#define SIGNAL_AGAIN_MS 100

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

static int still_there(const struct ctl_process *p)
{
	return process_start_ticks(p->pid) == p->page.start_ticks;
}

/* Brings a request to a process that does not allocate (control_signal.h
 * in the runtime): the control signal, queued with its value, through a
 * pidfd checked to be the process of the entry (a pid reused meanwhile
 * gets nothing).  0 when queued. */
static int bring_by_signal(const struct ctl_process *p)
{
	siginfo_t info = { .si_signo = CONTROL_SIGNAL, .si_code = SI_QUEUE };
	int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)p->pid, 0), err;

	if (pidfd < 0)
		return -1;
	info.si_pid = getpid();
	info.si_uid = getuid();
	info.si_value.sival_int = CONTROL_SIGNAL_VALUE;
	if (!still_there(p))
		err = ESRCH;
	else if (syscall(SYS_pidfd_send_signal, pidfd, CONTROL_SIGNAL, &info,
			 0) < 0)
		err = errno;
	else
		err = 0;
	close(pidfd);
	errno = err;
	return err ? -1 : 0;
}

/* Why a request was not taken: brought by `signals` signals, or none
 * could be sent (send_error, or 0: the runtime has no handler). */
static void not_taken(const struct ctl_process *p, int signals,
		      int send_error, char *why, size_t size)
{
	if (signals)
		snprintf(why, size, "process %ld did not take the request "
			 "within %d ms, though it was brought by SIGURG %d "
			 "times: the process blocks SIGURG in every thread, "
			 "or set its action by a system call of its own, or "
			 "is stopped; it is taken when the program allocates",
			 p->pid, ANSWER_WAIT_MS, signals);
	else if (send_error)
		snprintf(why, size, "process %ld did not take the request "
			 "within %d ms, and SIGURG could not bring it (%s): "
			 "it is taken when the program allocates", p->pid,
			 ANSWER_WAIT_MS, strerror(send_error));
	else
		snprintf(why, size, "process %ld did not take the request "
			 "within %d ms, and its runtime has no handler of "
			 "SIGURG to bring it: it is taken when the program "
			 "allocates", p->pid, ANSWER_WAIT_MS);
}

/* Waits for the answer to request `number`: 0 answered, -1 not (why
 * says).  A request not taken within SIGNAL_AFTER_MS is brought by the
 * signal, again every SIGNAL_AGAIN_MS: a handler that lands on a thread
 * busy in the runtime leaves it for the next. */
static int wait_for_answer(const struct ctl_process *p,
			   struct control_page *page, uint64_t number,
			   char *why, size_t size)
{
	uint64_t expected = number;
	long next_signal_ms = SIGNAL_AFTER_MS;
	int signals = 0, send_error = 0;

	for (long waited = 0;; waited += POLL_MS) {
		if (atomic_load(&page->answered) == number)
			return 0;
		if (!still_there(p)) {
			snprintf(why, size, "process %ld exited before it "
				 "answered", p->pid);
			return -1;
		}
		if (waited >= ANSWER_WAIT_MS &&
		    atomic_compare_exchange_strong(&page->pending, &expected,
						   0)) {
			not_taken(p, signals, send_error, why, size);
			return -1;
		}
		expected = number;
		if (waited >= next_signal_ms &&
		    atomic_load(&page->pending) == number &&
		    atomic_load(&page->signal_ready)) {
			if (bring_by_signal(p) == 0)
				signals++;
			else
				send_error = errno;
			next_signal_ms = waited + SIGNAL_AGAIN_MS;
		}
		sleep_ms(POLL_MS);
	}
}

static int ask(const struct ctl_process *p, struct control_page *page,
	       enum control_request request, const char *argument,
	       struct ctl_answer *answer, char *why, size_t size)
{
	uint64_t number = atomic_load(&page->answered) + 1;

	/* A runtime that refused the program when it loaded (an error
	 * before any answer) never looks for requests. */
	if (number == 1 && page->error) {
		ctl_entry_text(page->answer, sizeof(page->answer), answer->text,
			       sizeof(answer->text));
		snprintf(why, size, "process %ld cannot be recorded: %s",
			 p->pid, answer->text);
		return -1;
	}
	page->request = request;
	snprintf(page->argument, sizeof(page->argument), "%s",
		 argument ? argument : "");
	atomic_store_explicit(&page->pending, number, memory_order_release);
	if (wait_for_answer(p, page, number, why, size) < 0)
		return -1;
	/* The process writes the page: its text may lack its end. */
	ctl_entry_text(page->answer, sizeof(page->answer), answer->text,
		       sizeof(answer->text));
	answer->stats = page->stats;
	if (page->error) {
		snprintf(why, size, "process %ld: %s%s%s", p->pid,
			 answer->text, answer->text[0] ? ": " : "",
			 strerror(page->error));
		return -1;
	}
	return 0;
}

/* The entry is the process's user's file, mapped: that user may cut it
 * short meanwhile, and a read past its end raises SIGBUS. */
static sigjmp_buf cut_short;

static void on_cut_short(int signal)
{
	(void)signal;
	siglongjmp(cut_short, 1);
}

int ctl_request(const struct ctl_process *p, enum control_request request,
		const char *argument, struct ctl_answer *answer, char *why,
		size_t size)
{
	struct sigaction bus = { .sa_handler = on_cut_short }, saved;
	struct control_page *page;
	int fd = ctl_registry_open_entry(p, O_RDWR, why, size);
	volatile int rc = -1;

	if (fd < 0)
		return -1;
	/* One client at a time asks a process. */
	flock(fd, LOCK_EX);
	page = mmap(NULL, sizeof(*page), PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
	if (page == MAP_FAILED) {
		snprintf(why, size, "the registry entry of process %ld: %s",
			 p->pid, strerror(errno));
		close(fd);
		return -1;
	}
	sigaction(SIGBUS, &bus, &saved);
	if (sigsetjmp(cut_short, 1) == 0)
		rc = ask(p, page, request, argument, answer, why, size);
	else
		snprintf(why, size, "the registry entry of process %ld was cut "
			 "short while it was asked", p->pid);
	sigaction(SIGBUS, &saved, NULL);
	munmap(page, sizeof(*page));
	close(fd);
	return rc;
}
