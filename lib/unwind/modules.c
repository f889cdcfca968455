/* modules.c - loaded-module map (see modules.h). */
#include "config.h"

#include "modules.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "loaded_objects.h"
#include "rawmem.h"
#include "spinlock.h"

#define MODULES_MAX 8192
#define PATH_ARENA_BYTES (4u << 20)
/* How long a refresh waits for the one under way before giving up. */
#define REFRESH_WAIT_NS 10000000ull

static struct module *modules;
static _Atomic uint32_t n_modules;
static char *path_arena;
static size_t path_arena_used;

/* Refreshes asked for and done (a refresh does those asked before it
 * started), and the lock of the thread doing them. */
static _Atomic uint64_t refreshes_asked, refreshes_done;
static _Atomic int refreshing;

int modules_init(void)
{
	modules = rawmem_map(MODULES_MAX * sizeof(struct module));
	path_arena = rawmem_map(PATH_ARENA_BYTES);
	if (!modules || !path_arena) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static const char *keep_path(const char *path)
{
	size_t len = strlen(path) + 1;
	char *copy;

	if (path_arena_used + len > PATH_ARENA_BYTES)
		return "[unknown]";
	copy = path_arena + path_arena_used;
	memcpy(copy, path, len);
	path_arena_used += len;
	return copy;
}

static const char *module_path(const char *name, char *buf, size_t size)
{
	ssize_t n;

	if (name && name[0])
		return name;
	/* dl_iterate_phdr names the main program "". */
	n = readlink("/proc/self/exe", buf, size - 1);
	if (n <= 0)
		return "[main program]";
	buf[n] = '\0';
	return buf;
}

static void read_build_id(const struct dl_phdr_info *info, struct module *m)
{
	struct object_segment notes;
	int next = 0;

	while (object_next_segment(info, PT_NOTE, &next, &notes)) {
		const uint8_t *p = (const uint8_t *)notes.start;
		const uint8_t *end = (const uint8_t *)notes.end;

		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)p;
			size_t name_sz = (note->n_namesz + 3) & ~3u;
			size_t desc_sz = (note->n_descsz + 3) & ~3u;
			const uint8_t *desc = p + sizeof(*note) + name_sz;

			if (desc + desc_sz > end)
				break;
			if (note->n_type == NT_GNU_BUILD_ID &&
			    note->n_namesz == 4 &&
			    !memcmp(p + sizeof(*note), "GNU", 4) &&
			    note->n_descsz <= MODULE_BUILD_ID_MAX) {
				memcpy(m->build_id, desc, note->n_descsz);
				m->build_id_len = note->n_descsz;
				return;
			}
			p = desc + desc_sz;
		}
	}
}

static int known(const struct module *m)
{
	uint32_t n = atomic_load_explicit(&n_modules, memory_order_acquire);

	for (uint32_t i = 0; i < n; i++)
		if (modules[i].start == m->start && modules[i].end == m->end &&
		    modules[i].load_bias == m->load_bias)
			return 1;
	return 0;
}

static int add_module(const struct dl_phdr_info *info, void *data)
{
	struct module m = { .start = UINTPTR_MAX };
	struct object_segment load;
	char exe[PATH_MAX];
	uint32_t n = atomic_load_explicit(&n_modules, memory_order_relaxed);
	int next = 0;

	(void)data;
	while (object_next_segment(info, PT_LOAD, &next, &load)) {
		if (load.start < m.start)
			m.start = load.start;
		if (load.end > m.end)
			m.end = load.end;
	}
	m.load_bias = info->dlpi_addr;
	if (m.start >= m.end || known(&m) || n >= MODULES_MAX)
		return 0;
	read_build_id(info, &m);
	m.path = keep_path(module_path(info->dlpi_name, exe, sizeof(exe)));
	modules[n] = m;
	atomic_store_explicit(&n_modules, n + 1, memory_order_release);
	return 0;
}

/* The thread that holds `refreshing` waits for the dynamic linker's lock
 * in loaded_objects_each(), which a thread of the program may hold while it
 * allocates (in a dl_iterate_phdr() callback of its own, or while
 * dlclose() frees).  Were that allocation sampled, and its refresh to
 * wait for `refreshing`, neither thread would go on: so the lock is only
 * tried, a thread that finds it held leaves its refresh to the holder,
 * which does every refresh asked for before it lets go, and waits for it
 * only briefly. */
void modules_refresh(void)
{
	uint64_t mine = atomic_fetch_add(&refreshes_asked, 1) + 1;
	uint64_t give_up = 0, asked;

	while (atomic_load(&refreshes_done) < mine) {
		if (!spin_trylock(&refreshing)) {
			if (!give_up)
				give_up = monotonic_ns() + REFRESH_WAIT_NS;
			else if (monotonic_ns() > give_up)
				return;
			sched_yield();
			continue;
		}
		do {
			asked = atomic_load(&refreshes_asked);
			loaded_objects_each(add_module, NULL);
			atomic_store(&refreshes_done, asked);
		} while (atomic_load(&refreshes_asked) != asked);
		spin_unlock(&refreshing);
	}
}

void modules_after_fork(void)
{
	atomic_store(&refreshing, 0);
	atomic_store(&refreshes_done, atomic_load(&refreshes_asked));
}

uint32_t modules_count(void)
{
	return atomic_load_explicit(&n_modules, memory_order_acquire);
}

const struct module *modules_get(uint32_t id)
{
	return id < modules_count() ? &modules[id] : NULL;
}

long modules_find(uintptr_t address)
{
	for (uint32_t i = modules_count(); i-- > 0;)
		if (address >= modules[i].start && address < modules[i].end)
			return (long)i;
	return -1;
}
