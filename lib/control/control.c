/* control.c - the registry entry and the requests of memprof-ctl (see
 * control.h and control_page.h); what the entry says of the process is
 * written by control_notes.c. */
#include "config.h"

#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "control_signal.h"
#include "process_start.h"

static char registry[PATH_MAX]; /* "" when there is none */
static char entry[PATH_MAX];

#define PAGE_BYTES ((sizeof(struct control_page) + 4095) & ~(size_t)4095)

/* The registry directory, made if need be; "" when there is none.  Read
 * with secure_getenv(): a set-user-ID program uses the system's. */
static void find_registry(void)
{
	const char *runtime_dir = secure_getenv("XDG_RUNTIME_DIR");
	int n;

	if (runtime_dir && runtime_dir[0] == '/')
		n = snprintf(registry, sizeof(registry), "%s/%s", runtime_dir,
			     CONTROL_REGISTRY_NAME);
	else if (geteuid() == 0)
		n = snprintf(registry, sizeof(registry), "/run/%s",
			     CONTROL_REGISTRY_NAME);
	else
		n = snprintf(registry, sizeof(registry), "/run/user/%u/%s",
			     (unsigned)geteuid(), CONTROL_REGISTRY_NAME);
	if (n < 0 || (size_t)n >= sizeof(registry) ||
	    (mkdir(registry, 0700) < 0 && errno != EEXIST))
		registry[0] = '\0';
}

/* A new entry for this process, mapped; the descriptor is closed again
 * before the program could see it. */
static struct control_page *make_entry(void)
{
	struct control_page *page;
	struct rlimit limit;
	int fd;

	/* Growing a file past the limit would raise SIGXFSZ in the program. */
	if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur < PAGE_BYTES)
		return NULL;
	if ((size_t)snprintf(entry, sizeof(entry), "%s/%ld", registry,
			     (long)getpid()) >= sizeof(entry))
		return NULL;
	/* An entry left by a process that had this pid is replaced, not
	 * reused: a client may still have it mapped. */
	unlink(entry);
	fd = open(entry, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	page = ftruncate(fd, PAGE_BYTES) < 0
		       ? MAP_FAILED
		       : mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE,
			      MAP_SHARED, fd, 0);
	close(fd);
	if (page == MAP_FAILED) {
		unlink(entry);
		return NULL;
	}
	return page;
}

static void register_entry(void)
{
	struct control_page *page;

	if (!registry[0] || !(page = make_entry()))
		return;
	page->version = CONTROL_VERSION;
	page->pid = getpid();
	page->start_ticks = process_start_ticks(page->pid);
	atomic_store(&page->state, CONTROL_DORMANT);
	atomic_store(&page->signal_ready, control_signal_install() == 0);
	atomic_store_explicit(&page->magic, CONTROL_MAGIC,
			      memory_order_release);
	control_page = page;
}

void control_register(void)
{
	find_registry();
	register_entry();
}

/* The child inherits the parent's page (unmapping it in the parent
 * would fault a thread reading it); until this runs, control_answer()
 * leaves the parent's requests to the parent. */
void control_after_fork(void)
{
	if (control_page)
		munmap(control_page, PAGE_BYTES);
	control_page = NULL;
	register_entry();
}

void control_forget(void)
{
	control_page = NULL;
}

/* The page stays mapped: other threads may still be reading it. */
void control_unregister(void)
{
	struct control_page *page = control_page;

	if (!page || page->pid != getpid())
		return;
	control_page = NULL;
	unlink(entry);
}

void control_answer(void)
{
	struct control_page *page = control_page;
	uint64_t number;

	/* A fork() child, before its own entry, or a vfork() child, which
	 * shares our memory, sees its parent's page. */
	if (page->pid != getpid())
		return;
	number = atomic_exchange(&page->pending, 0);
	/* Another thread took it, or its client withdrew it. */
	if (!number)
		return;
	page->answer[0] = '\0';
	page->error = profiler_control((enum control_request)page->request,
				       page->argument, page->answer,
				       sizeof(page->answer));
	memprof_get_stats(&page->stats);
	atomic_store_explicit(&page->answered, number, memory_order_release);
}

void control_refresh_stats(void)
{
	static _Atomic uint64_t due_ns;
	struct control_page *page = control_page;
	uint64_t now = monotonic_ns(), due = atomic_load(&due_ns);

	/* One thread a round; a vfork() child leaves its parent's alone. */
	if (now < due || page->pid != getpid() ||
	    !atomic_compare_exchange_strong(&due_ns, &due,
					    now + STATS_REFRESH_NS))
		return;
	memprof_get_stats(&page->stats);
}
