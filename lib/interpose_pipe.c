/* interpose_pipe.c - keeps the unwinder's descriptors out of the program.
 *
 * libunwind opens a pipe the first time it unwinds, to test addresses
 * before reading them on some recovery paths, and keeps it open for the
 * life of the process: two descriptors the program would find in
 * /proc/self/fd, and numbers its own open() would not get.  The runtime
 * refuses that pipe: pipe2() called from libunwind's code fails, which
 * libunwind takes as "address not readable" on those paths (the stack
 * walk then ends there; the runtime checks every address it records
 * anyway).  Every other caller gets the C library's pipe2().
 */
#include "config.h"

#ifdef HAVE_LIBUNWIND

#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <libunwind.h>
#include <stdint.h>
#include <unistd.h>

#include "compiler.h"
#include "unwind.h"

static int (*next_pipe2)(int[2], int);
static uintptr_t unwinder_lo, unwinder_hi;

__attribute__((constructor)) static void find_pipe2(void)
{
	*(void **)&next_pipe2 = dlsym(RTLD_NEXT, "pipe2");
	code_range_of((const void *)(uintptr_t)&unw_backtrace, &unwinder_lo,
		      &unwinder_hi);
}

MEMPROF_PUBLIC int pipe2(int fds[2], int flags)
{
	uintptr_t caller = (uintptr_t)__builtin_return_address(0);

	if ((caller >= unwinder_lo && caller < unwinder_hi) || !next_pipe2) {
		errno = next_pipe2 ? EMFILE : ENOSYS;
		return -1;
	}
	return next_pipe2(fds, flags);
}

#endif /* HAVE_LIBUNWIND */
