/* late_dlopen.c - dlopen() for a program bound late (see late_dlopen.h). */
#include "config.h"

#include "late_dlopen.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "late_binding.h"

#define SEARCH_PATH_ROOM 8192

/* Room for a search path; a longer one is left to dlopen(). */
union search_path {
	Dl_serinfo info;
	char bytes[SEARCH_PATH_ROOM];
};

/* The search path of the object at `address`, in `room`; NULL when it
 * does not fit. */
static Dl_serinfo *search_path(const void *address, union search_path *room)
{
	struct link_map *map = NULL;
	Dl_serinfo size;
	Dl_info info;

	if (!dladdr1(address, &info, (void **)&map, RTLD_DL_LINKMAP) || !map ||
	    dlinfo(map, RTLD_DI_SERINFOSIZE, &size) != 0 ||
	    size.dls_size > sizeof(*room))
		return NULL;
	room->info = size;
	return dlinfo(map, RTLD_DI_SERINFO, &room->info) == 0 ? &room->info
							     : NULL;
}

/* How many directories the caller's search path starts with before the
 * system's, which end every search path alike (the loader lists them
 * with no mark of their own, so they are told from the runtime's). */
static unsigned directories_of_its_own(const Dl_serinfo *caller)
{
	union search_path room;
	const Dl_serinfo *ours = search_path((const void *)late_dlopen, &room);
	unsigned n = caller->dls_cnt;

	for (unsigned k = ours ? ours->dls_cnt : 0; n && k; n--, k--)
		if (strcmp(caller->dls_serpath[n - 1].dls_name,
			   ours->dls_serpath[k - 1].dls_name))
			break;
	return n;
}

/* The C library's dlopen(): a preloaded runtime exports one of its own
 * (interpose_dlopen.c), which would lead back here. */
static void *c_dlopen(const char *file, int mode)
{
	static void *(*next)(const char *, int);

	if (!next)
		*(void **)&next = dlsym(RTLD_NEXT, "dlopen");
	return next ? next(file, mode) : NULL;
}

/* The object as the caller's dlopen() of a bare name finds it: first in
 * the directories of the caller's own search path (its run paths and
 * LD_LIBRARY_PATH, in the loader's order), then as dlopen() finds it
 * (its cache, the system's directories). */
void *dlopen_for(const void *caller, const char *file, int mode)
{
	union search_path room;
	const Dl_serinfo *paths;
	char path[PATH_MAX];
	void *handle;
	unsigned own;

	if (!file || strchr(file, '/'))
		return c_dlopen(file, mode);
	handle = c_dlopen(file, mode | RTLD_NOLOAD);
	if (handle || !(paths = search_path(caller, &room)))
		return handle ? handle : c_dlopen(file, mode);
	own = directories_of_its_own(paths);
	for (unsigned i = 0; i < own; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s",
				     paths->dls_serpath[i].dls_name,
				     file) >= sizeof(path) ||
		    access(path, F_OK) != 0)
			continue;
		if ((handle = c_dlopen(path, mode)))
			return handle;
	}
	return c_dlopen(file, mode);
}

void *late_dlopen(const char *file, int mode)
{
	void *handle = dlopen_for(__builtin_return_address(0), file, mode);

	if (handle)
		late_binding_refresh();
	return handle;
}
