/* thread_names.c - the names of the threads that allocate (see
 * thread_names.h).
 *
 * Why a generation and not a flag per thread: a new file must have every
 * thread's name again, and the runtime cannot reach into other threads'
 * state; each thread compares the generation it last wrote its name in
 * with the current one instead, at no cost to the threads that never
 * sample again.
 *
 * Why a check once a second and not a wrapper of pthread_setname_np():
 * a thread is renamed by prctl(), by writing its comm file, or by a
 * library the runtime does not see; reading the name back catches them
 * all, and once a second per sampling thread costs nothing measurable.
 */
#include "config.h"

#include "thread_names.h"

#include "compiler.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Starts at 1, so that a thread's zeroed state is of no generation. */
static _Atomic uint32_t generation = 1;

struct thread_name {
	uint32_t written_in; /* the generation of the last name written */
	uint64_t next_check_ns;
	uint8_t length;
	char name[MLYZE_THREAD_NAME_MAX];
};

static INITIAL_EXEC_TLS struct thread_name this_thread;

/* The kernel's name of the calling thread, without its newline: its
 * length, or -1. */
static int read_name(char name[MLYZE_THREAD_NAME_MAX])
{
	int saved_errno = errno;
	char text[MLYZE_THREAD_NAME_MAX + 1];
	long fd = syscall(SYS_openat, AT_FDCWD, "/proc/thread-self/comm",
			  O_RDONLY | O_CLOEXEC);
	long length;

	if (fd < 0) {
		errno = saved_errno;
		return -1;
	}
	length = syscall(SYS_read, fd, text, sizeof(text));
	syscall(SYS_close, fd);
	errno = saved_errno;
	if (length <= 0)
		return -1;
	if (text[length - 1] == '\n')
		length--;
	if (length > MLYZE_THREAD_NAME_MAX)
		length = MLYZE_THREAD_NAME_MAX;
	memcpy(name, text, (size_t)length);
	return (int)length;
}

int thread_name_due(uint64_t now_ns, char name[MLYZE_THREAD_NAME_MAX])
{
	struct thread_name *t = &this_thread;
	uint32_t now = atomic_load_explicit(&generation, memory_order_relaxed);
	int length;

	if (t->written_in == now && now_ns < t->next_check_ns)
		return -1;
	t->next_check_ns = now_ns + THREAD_NAME_CHECK_NS;
	length = read_name(name);
	if (length < 0 ||
	    (t->written_in == now && length == t->length &&
	     memcmp(name, t->name, (size_t)length) == 0)) {
		t->written_in = now; /* nothing (new) to write */
		return -1;
	}
	t->written_in = now;
	t->length = (uint8_t)length;
	memcpy(t->name, name, (size_t)length);
	return length;
}

void thread_name_lost(void)
{
	this_thread.written_in = 0;
}

void thread_names_restart(void)
{
	uint32_t next = atomic_load(&generation) + 1;

	atomic_store(&generation, next ? next : 1);
}
