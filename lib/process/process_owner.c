/* process_owner.c - the page that tells the runtime's own process from a
 * child it never saw being made (see process_owner.h). */
#include "config.h"

#include "process_owner.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rawmem.h"

#define OWNER_PAGE_BYTES 4096

_Atomic pid_t *process_owner_word;

/* getpid() by raw system call: the C library's wrapper is one too, but
 * this says so, for the hooks that must not touch thread-local storage. */
static pid_t current_pid(void)
{
	return (pid_t)syscall(SYS_getpid);
}

void process_owner_init(void)
{
	_Atomic pid_t *word = rawmem_map(OWNER_PAGE_BYTES);

	if (!word)
		return;
	if (madvise((void *)word, OWNER_PAGE_BYTES, MADV_WIPEONFORK) < 0) {
		/* An old kernel: no child is told apart but by its id. */
	}
	atomic_store(word, current_pid());
	process_owner_word = word;
}

void process_owner_after_fork(void)
{
	if (process_owner_word)
		atomic_store(process_owner_word, current_pid());
}

int process_is_owner_exactly(void)
{
	_Atomic pid_t *word = process_owner_word;

	return !word || atomic_load(word) == current_pid();
}
