/* control_page.h - the registry entry of a process running the runtime.
 *
 * Contract: a process with the runtime loaded keeps one small file,
 * "<registry>/<pid>", mapped shared and never open: memprof-ctl finds
 * running profiles by listing the registry, and asks a process for
 * something by writing a request into the page.  The runtime looks for a
 * request on its slow path (when the sampler picks an allocation, about
 * once per sampling interval of allocated bytes per thread); a request
 * that a process does not take there soon (it does not allocate) is
 * brought to it by CONTROL_SIGNAL, queued with CONTROL_SIGNAL_VALUE
 * (control_signal.h says why a signal, and why this one).  So it costs
 * the program no descriptor or thread, and nothing at all while nobody
 * asks.  The registry is
 * "$XDG_RUNTIME_DIR/spprof", else "/run/spprof" for root and
 * "/run/user/UID/spprof" for other users.
 *
 * A request goes in as follows: the client (holding an flock on the file,
 * so that clients take turns) writes `request` and `argument`, then
 * stores the request's number in `pending`.  The runtime takes it by
 * swapping `pending` to 0, and answers by writing `error`, `answer` and
 * `stats`, then storing the number in `answered`.  A client that gives up
 * withdraws its request the same way, so exactly one side gets it.
 */
#ifndef SPPROF_CONTROL_PAGE_H
#define SPPROF_CONTROL_PAGE_H

#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include <spprof/memprof.h>

#define CONTROL_MAGIC 0x6c727463u /* "ctrl" */
#define CONTROL_VERSION 1u
#define CONTROL_REGISTRY_NAME "spprof"

/* The signal that brings a request to a process that does not allocate,
 * and the value it is queued with (sigqueue), which tells it from the
 * program's own. */
#define CONTROL_SIGNAL SIGURG
#define CONTROL_SIGNAL_VALUE 0x6d656d70 /* "memp" */

/* What the process is doing. */
enum control_state {
	CONTROL_DORMANT = 0,   /* loaded, not recording */
	CONTROL_RECORDING = 1, /* streaming a profile to `part` */
};

/* What a client may ask. */
enum control_request {
	CONTROL_STATUS = 1,   /* answer the counters */
	CONTROL_START = 2,    /* start recording to the pattern in argument */
	CONTROL_STOP = 3,     /* finish the recording; answer its file */
	CONTROL_SNAPSHOT = 4, /* a finalised profile as of now, named after
			       * argument; answer its name */
};

struct control_page {
	_Atomic uint32_t magic;
	uint32_t version;
	int64_t pid;
	/* Field 22 of /proc/PID/stat when the entry was made: a pid that was
	 * reused has another. */
	uint64_t start_ticks;
	_Atomic uint32_t state;
	char part[PATH_MAX]; /* the streamed file while recording */
	char last_profile[PATH_MAX]; /* the last profile finished, or "" */

	_Atomic uint64_t pending; /* the number of a request waiting, or 0 */
	uint32_t request;         /* enum control_request */
	char argument[PATH_MAX];
	_Atomic uint64_t answered; /* the number of the last one answered */
	int32_t error;             /* 0, or the errno value it failed with */
	char answer[PATH_MAX];     /* a file name, or why it failed */
	/* When the answer was given; also refreshed by the runtime as it
	 * samples, at most once a second (control.h). */
	memprof_stats stats;
	/* 1 while the runtime's handler of CONTROL_SIGNAL stands, so that
	 * a request not taken may be brought by the signal. */
	_Atomic uint32_t signal_ready;
};

#endif /* SPPROF_CONTROL_PAGE_H */
