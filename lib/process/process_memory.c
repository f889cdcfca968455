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
 * Why /proc/self/status as well: readings a few times a second miss the
 * moments between them, and the peak of a short program may fall between
 * two of them (or before the first); the kernel keeps the high-water mark
 * of the resident memory of the process's address space, which only
 * status shows (VmHWM).  getrusage()'s ru_maxrss is not the same thing:
 * it keeps the peak of the program the process ran before an exec (and of
 * the parent it was forked from), where VmHWM starts anew.  status is
 * longer than statm (a line of groups may be long), so it is scanned as
 * it is read, in small pieces, for the one line.
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
 *
 * Why /proc/self/maps for one mapping: the kernel keeps no call that
 * says whether a range is backed by a file, and an mremap() of a range
 * the runtime never sampled leaves it the only one to ask; the list is
 * read line by line, in small pieces, only when such a mapping is to be
 * sampled.
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

/* Opens a file of /proc/self for reading: a descriptor, or -1. */
static long open_proc_file(const char *path)
{
	return syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
}

/* Reads statm into text; returns its length, or -1. */
static long read_statm(char *text, size_t size)
{
	long fd = open_proc_file("/proc/self/statm");
	long length;

	if (fd < 0)
		return -1;
	length = syscall(SYS_read, fd, text, size);
	syscall(SYS_close, fd);
	return length;
}

/* The number of kibibytes on status's line "VmHWM:\t   1234 kB", in
 * bytes; 0 when there is none. */
static uint64_t read_resident_peak(void)
{
	static const char key[] = "\nVmHWM:";
	char piece[256];
	size_t matched = 1; /* the file starts a line */
	uint64_t kib = 0;
	long fd = open_proc_file("/proc/self/status"), n;

	if (fd < 0)
		return 0;
	while ((n = syscall(SYS_read, fd, piece, sizeof(piece))) > 0)
		for (long i = 0; i < n; i++) {
			char c = piece[i];

			if (matched < sizeof(key) - 1)
				matched = c == key[matched] ? matched + 1
							    : (size_t)(c == '\n');
			else if (c >= '0' && c <= '9')
				kib = kib * 10 + (uint64_t)(c - '0');
			else if (c == '\n')
				goto found;
		}
found:
	syscall(SYS_close, fd);
	return kib * 1024;
}

int process_memory_read(struct process_memory *out)
{
	int saved_errno = errno;
	char text[128];
	long length = read_statm(text, sizeof(text));
	const char *p = text, *end = text + (length > 0 ? length : 0);
	uint64_t page = getauxval(AT_PAGESZ), resident, shared;

	if (length <= 0) {
		errno = saved_errno;
		atomic_store(&next_reading_ns, UINT64_MAX);
		return -1;
	}
	out->resident_peak = read_resident_peak();
	errno = saved_errno;
	parse_number(&p, end); /* the size of the address space */
	resident = parse_number(&p, end);
	shared = parse_number(&p, end);
	out->resident = resident * page;
	out->anonymous = (resident > shared ? resident - shared : 0) * page;
	return 0;
}

/* The hexadecimal number at *p, which then points past it. */
static uint64_t parse_hex(const char **p, const char *end)
{
	uint64_t n = 0;

	for (; *p < end; (*p)++) {
		char c = **p;
		unsigned digit = c >= '0' && c <= '9'	? (unsigned)(c - '0')
				 : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
							: 16;

		if (digit == 16)
			break;
		n = n * 16 + digit;
	}
	return n;
}

/* *p past the next field of a line and the spaces after it. */
static void skip_field(const char **p, const char *end)
{
	while (*p < end && **p != ' ')
		(*p)++;
	while (*p < end && **p == ' ')
		(*p)++;
}

/* Of one line of maps ("start-end perms offset dev inode [path]", the
 * first `length` bytes of it, `whole` when that is all of it): -1 when
 * address lies past its mapping (the lines go up by address), else
 * whether the mapping that starts at or before it holds it and is
 * anonymous memory: no inode, no path but a name given with
 * PR_SET_VMA_ANON_NAME, and not PROT_NONE. */
static int maps_line_verdict(const char *line, size_t length, int whole,
			     uintptr_t address)
{
	const char *p = line, *end = line + length, *perms;
	uint64_t start = parse_hex(&p, end), stop, inode;

	if (address < start)
		return 0;
	if (p < end && *p == '-')
		p++;
	stop = parse_hex(&p, end);
	if (address >= stop)
		return -1;
	skip_field(&p, end);
	perms = p;
	if (end - perms < 4 ||
	    (perms[0] != 'r' && perms[1] != 'w' && perms[2] != 'x'))
		return 0;
	skip_field(&p, end); /* the permissions */
	skip_field(&p, end); /* the offset */
	skip_field(&p, end); /* the device */
	inode = parse_number(&p, end);
	while (p < end && *p == ' ')
		p++;
	if (inode != 0 || (p == end && !whole))
		return 0;
	return p == end || (end - p >= 6 && !__builtin_memcmp(p, "[anon:", 6));
}

int process_memory_anonymous_at(uintptr_t address)
{
	int saved_errno = errno, verdict = -1;
	char piece[512], line[160];
	size_t used = 0;
	int whole = 1;
	long fd = open_proc_file("/proc/self/maps"), n;

	if (fd < 0) {
		errno = saved_errno;
		return 0;
	}
	while (verdict < 0 &&
	       (n = syscall(SYS_read, fd, piece, sizeof(piece))) > 0)
		for (long i = 0; i < n && verdict < 0; i++) {
			if (piece[i] != '\n') {
				if (used < sizeof(line))
					line[used++] = piece[i];
				else
					whole = 0;
				continue;
			}
			verdict = maps_line_verdict(line, used, whole, address);
			used = 0;
			whole = 1;
		}
	syscall(SYS_close, fd);
	errno = saved_errno;
	return verdict > 0;
}
