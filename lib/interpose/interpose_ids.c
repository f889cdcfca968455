/* interpose_ids.c - the set*id family, as seen by the program.
 *
 * A server started as root often gives its workers to another user
 * (nginx's "user nobody", a daemon's privilege drop).  After that the
 * worker can no longer write a file root created, nor create one where
 * only root may.  So before an effective user or group changes, while
 * the process still can, its profile is created and given to the new
 * owner (profiler_before_id_change); the call itself is the C library's,
 * unchanged.  The C library's functions are looked up once, at load time,
 * as for the exec family.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <sys/types.h>
#include <unistd.h>

#include "compiler.h"
#include "profiler.h"

typedef int (*set_one_fn)(unsigned);
typedef int (*set_two_fn)(unsigned, unsigned);
typedef int (*set_three_fn)(unsigned, unsigned, unsigned);

_Static_assert(sizeof(uid_t) == sizeof(unsigned) &&
		       sizeof(gid_t) == sizeof(unsigned),
	       "user and group ids are unsigned ints");

static struct {
	set_one_fn setuid, seteuid, setgid, setegid;
	set_two_fn setreuid, setregid;
	set_three_fn setresuid, setresgid;
} next;

__attribute__((constructor)) static void find_id_functions(void)
{
	*(void **)&next.setuid = dlsym(RTLD_NEXT, "setuid");
	*(void **)&next.seteuid = dlsym(RTLD_NEXT, "seteuid");
	*(void **)&next.setgid = dlsym(RTLD_NEXT, "setgid");
	*(void **)&next.setegid = dlsym(RTLD_NEXT, "setegid");
	*(void **)&next.setreuid = dlsym(RTLD_NEXT, "setreuid");
	*(void **)&next.setregid = dlsym(RTLD_NEXT, "setregid");
	*(void **)&next.setresuid = dlsym(RTLD_NEXT, "setresuid");
	*(void **)&next.setresgid = dlsym(RTLD_NEXT, "setresgid");
}

static int missing(void)
{
	errno = ENOSYS;
	return -1;
}

/* The effective user (group) each call sets is the one it names: for
 * setuid() and setgid() in every case, for the others their effective
 * argument, -1 leaving it as it is. */
static void before_user_change(uid_t effective)
{
	profiler_before_id_change(effective, (gid_t)-1);
}

static void before_group_change(gid_t effective)
{
	profiler_before_id_change((uid_t)-1, effective);
}

MEMPROF_PUBLIC int setuid(uid_t uid)
{
	before_user_change(uid);
	return next.setuid ? next.setuid(uid) : missing();
}

MEMPROF_PUBLIC int seteuid(uid_t euid)
{
	before_user_change(euid);
	return next.seteuid ? next.seteuid(euid) : missing();
}

MEMPROF_PUBLIC int setreuid(uid_t ruid, uid_t euid)
{
	before_user_change(euid);
	return next.setreuid ? next.setreuid(ruid, euid) : missing();
}

MEMPROF_PUBLIC int setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
	before_user_change(euid);
	return next.setresuid ? next.setresuid(ruid, euid, suid) : missing();
}

MEMPROF_PUBLIC int setgid(gid_t gid)
{
	before_group_change(gid);
	return next.setgid ? next.setgid(gid) : missing();
}

MEMPROF_PUBLIC int setegid(gid_t egid)
{
	before_group_change(egid);
	return next.setegid ? next.setegid(egid) : missing();
}

MEMPROF_PUBLIC int setregid(gid_t rgid, gid_t egid)
{
	before_group_change(egid);
	return next.setregid ? next.setregid(rgid, egid) : missing();
}

MEMPROF_PUBLIC int setresgid(gid_t rgid, gid_t egid, gid_t sgid)
{
	before_group_change(egid);
	return next.setresgid ? next.setresgid(rgid, egid, sgid) : missing();
}
