/* settings.h - the runtime's SPPROF_* environment settings.
 *
 * Contract: settings_read() reads every setting once, at load time, with
 * secure_getenv() so that set-user-ID programs ignore them; invalid values
 * are reported and replaced by the defaults.  Strings are copied,
 * since the program may change its environment later.
 */
#ifndef SPPROF_SETTINGS_H
#define SPPROF_SETTINGS_H

#include <limits.h>
#include <stdint.h>

#include "profile_files.h" /* PROFILE_MAX_SIZE_DEFAULT, _MIN */

/* How native stacks are walked (SPPROF_UNWIND; see unwind.h). */
enum unwind_method {
	UNWIND_AUTO,  /* frame pointers where they hold, else unwind tables */
	UNWIND_FP,    /* frame pointers only */
	UNWIND_DWARF, /* the binaries' unwind tables (.eh_frame) only */
};

struct runtime_config {
	uint64_t sampling_rate;   /* SPPROF_SAMPLING_RATE, bytes */
	uint32_t stack_table_max; /* SPPROF_STACK_TABLE_MAX, stacks */
	uint64_t max_size;        /* SPPROF_MAX_SIZE, bytes; 0 = no limit */
	uint32_t heap_map_capacity; /* SPPROF_HEAP_MAP_CAPACITY: the most slots
				    * the live-block table grows to, a power of 2 */
	int follow_fork;          /* SPPROF_FOLLOW_FORK, 0 or 1 */
	int dormant;              /* SPPROF_DORMANT: record only on request */
	char output[PATH_MAX];    /* SPPROF_OUTPUT pattern; "" = no profile */
	char manifest[PATH_MAX];  /* SPPROF_MANIFEST; "" = none */
	char python_walker[PATH_MAX]; /* SPPROF_PYTHON_WALKER; "" = none */
	long root_pid;            /* SPPROF_ROOT_PID; 0 = this is the root */
	enum unwind_method unwind; /* SPPROF_UNWIND: auto, fp or dwarf */
	uint64_t seed;            /* SPPROF_SEED; 0 = random */
};

void settings_read(struct runtime_config *settings);

/* Messages from the runtime go to memprof-wrap when it runs the program
 * (wrap_channel.h), else straight to fd 2: no stdio, no malloc. */
void runtime_message(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* The text of an errno value, untranslated: strerror() may take the
 * locale lock, which the thread that called malloc may be holding. */
const char *error_text(int err);

#endif /* SPPROF_SETTINGS_H */
