/* ctl-request.h - ask a running process for something (control_page.h).
 *
 * Contract: ctl_request() puts one request into the process's registry
 * entry and waits for the answer.  The runtime answers on its next slow
 * path, or, when the process does not allocate, when the control signal
 * brings it (control_page.h): a request not taken within ANSWER_WAIT_MS
 * is withdrawn, one taken is waited for as long as it takes.  Returns 0
 * with the answer, or -1 with why (the request failed in the process,
 * the process took it neither way, it exited meanwhile, or its entry was
 * cut short: the page is mapped, and a SIGBUS handler of its own stands
 * meanwhile, so it is for a program's one thread only).
 */
#ifndef SPPROF_CTL_REQUEST_H
#define SPPROF_CTL_REQUEST_H

#include <stddef.h>

#include "ctl-registry.h"

#define ANSWER_WAIT_MS 3000

struct ctl_answer {
	char text[PATH_MAX]; /* a file name, a state */
	memprof_stats stats;
};

int ctl_request(const struct ctl_process *p, enum control_request request,
		const char *argument, struct ctl_answer *answer, char *why,
		size_t size);

#endif /* SPPROF_CTL_REQUEST_H */
