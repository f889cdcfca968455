/* process_memory.c - resident and anonymous memory (see process_memory.h).
 *
 * Why /proc/self/statm: the kernel has no system call that returns the
 * resident memory of a process (getrusage gives only its maximum), and
 * statm is the cheapest file that does: one short line of page counts,
 * formatted from counters the kernel keeps, without walking the mappings
 * (as smaps would) or taking the process's mmap lock.  Its third field,
 * "shared", counts the resident pages backed by files and shared memory;
 * the rest of the resident pages are anonymous.
 *
 * Why no descriptor is kept open: a program can see one in /proc/self/fd,
 * and daemons that close every descriptor would close it under us.  The
 * one opened here lives for one read, close-on-exec, and is closed before
 * the call returns, as the runtime opens its other files; another thread
 * that opens a file meanwhile gets the next number, which is all it can
 * notice.
 *
 * Why raw system calls: inside malloc, open() and read() of the C library
 * are cancellation points (a pending pthread_cancel would act inside
 * malloc, with its locks held) and may set errno; syscall() is neither.
 * Nothing here allocates, takes a lock or calls stdio.  (mallinfo2()
 * would have given malloc's own view, but it takes malloc's locks.)
 */
#include "config.h"

#include "process_memory.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The monotonic time of the next reading; UINT64_MAX once the kernel
 * said no. */
static _Atomic uint64_t next_reading_ns;

int process_memory_due(uint64_t now_ns)
{
	uint64_t next = atomic_load_explicit(&next_reading_ns,
					     memory_order_relaxed);

	return now_ns >= next &&
	       atomic_compare_exchange_strong(&next_reading_ns, &next,
					      now_ns + PROCESS_MEMORY_INTERVAL_NS);
}

void process_memory_reset(void)
{
	uint64_t next = atomic_load(&next_reading_ns);

	if (next != UINT64_MAX)
		atomic_store(&next_reading_ns, 0);
}

/* The unsigned decimal number at *p, which then points past it and the
 * space after it. */
static uint64_t parse_number(const char **p, const char *end)
{
	uint64_t n = 0;

	while (*p < end && **p >= '0' && **p <= '9')
		n = n * 10 + (uint64_t)(*(*p)++ - '0');
	if (*p < end && **p == ' ')
		(*p)++;
	return n;
}

/* Reads statm into text; returns its length, or -1. */
static long read_statm(char *text, size_t size)
{
	long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/statm",
			  O_RDONLY | O_CLOEXEC);
	long length;

	if (fd < 0)
		return -1;
	length = syscall(SYS_read, fd, text, size);
	syscall(SYS_close, fd);
	return length;
}

int process_memory_read(struct process_memory *out)
{
	int saved_errno = errno;
	char text[128];
	long length = read_statm(text, sizeof(text));
	const char *p = text, *end = text + (length > 0 ? length : 0);
	uint64_t page = getauxval(AT_PAGESZ), resident, shared;

	errno = saved_errno;
	if (length <= 0) {
		atomic_store(&next_reading_ns, UINT64_MAX);
		return -1;
	}
	parse_number(&p, end); /* the size of the address space */
	resident = parse_number(&p, end);
	shared = parse_number(&p, end);
	out->resident = resident * page;
	out->anonymous = (resident > shared ? resident - shared : 0) * page;
	return 0;
}
