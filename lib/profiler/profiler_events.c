/* profiler_events.c - what the runtime does when its library loads, the
 * process forks, executes another program or exits (see profiler.h). */
#include "config.h"

#include "profiler.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <spprof/memprof.h>

#include "code_map.h"
#include "environ_edit.h"
#include "late_binding.h"
#include "malloc_owner.h"
#include "modules.h"
#include "control.h"
#include "names.h"
#include "profile_meta.h"
#include "mapping_table.h"
#include "profiler_state.h"
#include "process_owner.h"
#include "real_alloc.h"
#include "sandbox.h"
#include "unwind.h"
#include "wrap_channel.h"
#include "writer.h"

/* ---- leaving a process alone (process_owner.h, sandbox.h) ----------------- */

/* Set once the runtime has left this process alone; its children
 * inherit it. */
static int stood_aside;

/* Stops the runtime's work in this process for good, without a system
 * call: no event, no file, no registry entry.  The frees of the blocks it
 * sampled still find their way back (profiler_release), from memory. */
static void stand_aside(void)
{
	stood_aside = 1;
	atomic_store(&prof.track_allocs, 0);
	atomic_store(&prof.track_frees, 0);
	writer_stand_aside();
	control_forget();
}

int profiler_may_work_here(void)
{
	if (likely(process_is_owner()) && !stood_aside)
		return 1;
	stand_aside(); /* a child made by clone() itself: its parent's state */
	return 0;
}

/* For the hooks that run in children sharing our memory (_exit, exec),
 * maybe on thread-local storage of their own: asks before touching any. */
static int may_work_here_exactly(void)
{
	return !stood_aside && process_is_owner_exactly();
}

/* Tells memprof-wrap why this process records no more ("A pid<TAB>why"),
 * so that it does not take the missing profile for an early end. */
static void announce_stepping_aside(const char *why)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "A %ld\t%s\n", (long)getpid(),
			 why);

	if (channel_is_wrap(prof.settings.manifest) && n > 0 &&
	    (size_t)n < sizeof(line))
		channel_send(prof.settings.manifest, line, (size_t)n, -1);
}

static void finish_now(const char *exec_program);

void profiler_before_sandbox(const char *what)
{
	int saved_errno;

	if (!may_work_here_exactly())
		return;
	saved_errno = errno;
	finish_now(NULL);
	if (writer_enabled() || prof.settings.output[0]) {
		runtime_message("process %ld %s: its profile ends here",
				(long)getpid(), what);
		announce_stepping_aside(what);
	}
	control_unregister();
	stand_aside();
	errno = saved_errno;
}

/* Under more seccomp filters than the first process of the tree, any
 * system call the runtime makes may be the one a filter kills for: none
 * is made, but the write of this message on standard error when no
 * memprof-wrap would show it (its socket is one more system call, and
 * the program's standard error is not memprof-wrap's to write to).  The
 * first process hands its count on to the others. */
static int sandboxed_at_load(void)
{
	static const char message[] =
		"libspprof-alloc: this process runs under a seccomp filter, "
		"which may kill it for the profiler's system calls: nothing "
		"is recorded in it\n";
	static char first_count[64];
	const char *manifest = getenv("SPPROF_MANIFEST");
	const char *inherited = getenv(SANDBOX_FILTERS_VARIABLE);
	long filters = sandbox_seccomp_filters();

	if (!inherited) {
		snprintf(first_count, sizeof(first_count), "%s=%ld",
			 SANDBOX_FILTERS_VARIABLE, filters);
		if (getenv("SPPROF_OUTPUT") && environ_put(first_count) < 0) {
			/* its children count from 0: left alone under any */
		}
		return 0;
	}
	if (filters <= strtol(inherited, NULL, 10))
		return 0;
	stand_aside();
	if (getenv("SPPROF_OUTPUT") &&
	    !(manifest && channel_is_wrap(manifest)) &&
	    write(STDERR_FILENO, message, sizeof(message) - 1) < 0) {
		/* nobody to tell */
	}
	return 1;
}

/* The most address space the runtime takes at its start and first
 * samples: its tables at their first sizes and the names' arena (about
 * 80 MiB), the pool of pages for sampled blocks (64 MiB, sample_pool.h)
 * and the stream's window.  A process limited to a few times that
 * (ulimit -v, RLIMIT_AS; RLIMIT_DATA counts the same private mappings)
 * would run out of memory under the runtime where it ran bare. */
#define RUNTIME_ADDRESS_SPACE ((rlim_t)160 << 20)
#define ADDRESS_SPACE_SHARE 4

/* Why the address space is too small for the runtime to take its share,
 * in why; 0 when it is not. */
static int too_little_address_space(char *why, size_t size)
{
	static const struct {
		int resource;
		const char *name;
	} limits[] = {
		{ RLIMIT_AS, "its address space (ulimit -v)" },
		{ RLIMIT_DATA, "its data (ulimit -d)" },
	};
	struct rlimit limit;

	for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
		if (getrlimit(limits[i].resource, &limit) < 0 ||
		    limit.rlim_cur == RLIM_INFINITY ||
		    limit.rlim_cur / ADDRESS_SPACE_SHARE >= RUNTIME_ADDRESS_SPACE)
			continue;
		snprintf(why, size, "limits %s to %llu MiB, where the profiler "
			 "would take %llu MiB", limits[i].name,
			 (unsigned long long)(limit.rlim_cur >> 20),
			 (unsigned long long)(RUNTIME_ADDRESS_SPACE >> 20));
		return 1;
	}
	return 0;
}

/* Leaves a process whose limits leave no room for the runtime alone,
 * before it maps anything: the program runs as it runs bare. */
static int too_tight_at_load(void)
{
	char why[160];

	if (!prof.settings.output[0] ||
	    !too_little_address_space(why, sizeof(why)))
		return 0;
	runtime_message("process %ld %s: nothing is recorded in it",
			(long)getpid(), why);
	announce_stepping_aside(why);
	stand_aside();
	return 1;
}

/* Signals wait from before fork() until after it: a handler that
 * allocated in the child before the runtime's state is reset there would
 * find it as the parent's threads left it.  The handlers take no lock
 * that a sampled allocation or free may wait for: fork() takes the
 * program's stream list lock after them, whose holder may wait for a
 * stream's lock, whose holder may be allocating (see interpose_decide() in
 * interpose.c).  The child resets what the parent's threads held. */
static INITIAL_EXEC_TLS sigset_t mask_before_fork;

static void before_fork(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &mask_before_fork);
	profiler_may_work_here(); /* a child of clone() hands it down */
	if (profiler_tables_ready()) {
		heap_map_prefork(&prof.heap);
		heap_map_prefork(&prof.in_place);
	}
}

static void after_fork_in_parent(void)
{
	if (profiler_tables_ready()) {
		heap_map_postfork_parent(&prof.heap);
		heap_map_postfork_parent(&prof.in_place);
	}
	pthread_sigmask(SIG_SETMASK, &mask_before_fork, NULL);
}

/* A child's profile starts empty; so do the counters its stats report
 * (the heap map and stack table, and their counters, are inherited). */
static void reset_counters(void)
{
	/* The statistics kept by counters (memprof-stats.def). */
	static const unsigned per_profile[] = {
#define MEMPROF_STAT(type, field, key, source, kind, unit, description) \
	STAT_COUNTER_##source
#include <spprof/memprof-stats.def>
#undef MEMPROF_STAT
	};

	for (size_t i = 0; i < ARRAY_SIZE(per_profile); i++)
		counters_clear(&prof.counters, per_profile[i]);
	atomic_store(&prof.min_depth, UINT32_MAX);
}

static void after_fork_in_child(void)
{
	int follow = prof.settings.follow_fork;

	process_owner_after_fork();
	mapping_table_postfork_child();
	if (stood_aside) {
		sampler_reseed_thread();
		heap_map_after_fork(&prof.heap);
		heap_map_after_fork(&prof.in_place);
		pthread_sigmask(SIG_SETMASK, &mask_before_fork, NULL);
		return;
	}
	strings_after_fork();
	code_map_after_fork();
	modules_after_fork();
	control_after_fork();
	sampler_reseed_thread(); /* else parent and child sample alike */
	heap_map_after_fork(&prof.heap);
	heap_map_after_fork(&prof.in_place);
	reset_counters();
	if (!follow) {
		atomic_store(&prof.track_allocs, 0);
		atomic_store(&prof.track_frees, 0);
	}
	writer_postfork_child(follow);
	control_set_state(writer_recording() ? CONTROL_RECORDING
					     : CONTROL_DORMANT);
	pthread_sigmask(SIG_SETMASK, &mask_before_fork, NULL);
}

/* Drops our entry from LD_PRELOAD and our settings from the environment,
 * so that programs this one executes run without the profiler.  The
 * environment changes allocate nothing (environ_edit.h). */
static void stop_following_children(void)
{
	static const char variable[] = "LD_PRELOAD=";
	static char entry[sizeof(variable) + PATH_MAX * 4];
	const char *preload = getenv("LD_PRELOAD");
	char *kept = entry + strlen(variable);
	size_t n = 0;

	environ_remove("SPPROF_OUTPUT");
	environ_remove("SPPROF_MANIFEST");
	if (!preload || strlen(preload) >= sizeof(entry) - strlen(variable))
		return;
	for (const char *p = preload; *p;) {
		size_t len = strcspn(p, ": ");
		const char *slash = memrchr(p, '/', len);
		const char *base = slash ? slash + 1 : p;

		if (strncmp(base, "libspprof-alloc", 15) != 0) {
			if (n)
				kept[n++] = ':';
			memcpy(kept + n, p, len);
			n += len;
		}
		p += len;
		p += strspn(p, ": ");
	}
	kept[n] = '\0';
	memcpy(entry, variable, strlen(variable));
	if (!n)
		environ_remove("LD_PRELOAD");
	else if (environ_put(entry) < 0)
		runtime_message("cannot take the profiler out of LD_PRELOAD: "
				"%s", error_text(errno));
}

/* A window's label (started_by, or NULL for a plain start) is set before
 * sampling begins: another thread's first sample creates the file, and
 * then the label can no longer change. */
static void start_recording(const char *started_by)
{
	struct runtime_config *s = &prof.settings;
	int descendant = s->root_pid && s->root_pid != getpid();
	static char root_pid[32];

	if (!s->root_pid) {
		snprintf(root_pid, sizeof(root_pid), "SPPROF_ROOT_PID=%ld",
			 (long)getpid());
		if (environ_put(root_pid) < 0)
			runtime_message("cannot set SPPROF_ROOT_PID: %s",
					error_text(errno));
	}
	if (!s->follow_fork)
		stop_following_children();
	if (memprof_init(s->sampling_rate) < 0 ||
	    writer_configure(s, &prof.stacks, &prof.heap, &prof.in_place,
			     s->sampling_rate, descendant) < 0 ||
	    (started_by &&
	     (errno = writer_restart(s->output, started_by)) != 0) ||
	    memprof_start() < 0)
		runtime_message("cannot start profiling: %s", error_text(errno));
}

/* A Python process started by memprof-wrap gets its frame walker from the
 * language binding named by SPPROF_PYTHON_WALKER, without any change to
 * the program; other programs never load it.  A dormant one gets it too,
 * here at load: a window started later on request must not load code on
 * the allocation path, where dlopen() could wait for the loader's lock. */
static void attach_python_walker(void)
{
	const char *plugin = prof.settings.python_walker;
	int (*attach)(void);
	const char *(*refusal)(void);
	const char *why;
	void *handle;

	if (!plugin[0] || !dlsym(RTLD_DEFAULT, "Py_IsInitialized"))
		return;
	handle = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		runtime_message("cannot load the Python frame walker: %s",
				dlerror());
		return;
	}
	*(void **)&attach = dlsym(handle, "memprof_python_attach");
	*(void **)&refusal = dlsym(handle, "memprof_python_refusal");
	if (attach && attach() == 0)
		return;
	/* The walker says which interpreter it cannot read, once, here. */
	why = refusal ? refusal() : NULL;
	if (why)
		runtime_message("no Python frames: %s; stacks keep native "
				"frames only",
				why);
	else
		runtime_message("%s: cannot attach the Python frame walker; "
				"stacks keep native frames only",
				plugin);
}

/* A program whose malloc is not the runtime's is told at once: a profile
 * without samples would otherwise read as a program that does not
 * allocate. */
static void check_malloc_owner(void)
{
	const char *other;

	malloc_owner_check();
	other = malloc_owner_other();
	if (other && prof.settings.output[0])
		runtime_message("%s defines malloc and comes before the "
				"profiler in symbol lookup: the program "
				"allocates through it, unseen, and its "
				"profile will hold none of those allocations",
				other);
}

/* A window begun by memprof-ctl attach has its streamed file at once
 * (unless a thread's first sample made it already): memprof-ctl names it
 * when the load is done. */
static void begin_attached_file(void)
{
	char name[PATH_MAX];

	writer_begin(name, sizeof(name));
}

void profiler_load(void)
{
	int saved_errno = enter_runtime(), late;

	real_alloc_init();
	if (sandboxed_at_load()) {
		leave_runtime(saved_errno);
		return;
	}
	process_owner_init();
	meta_note_command_line();
	profiler_read_settings_once();
	sampler_init_entropy(prof.settings.seed);
	unwind_init(prof.settings.unwind);
	pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
	control_register();
	late = late_binding_needed();
	if (late) /* no SPPROF_ROOT_PID: its children run without us */
		prof.settings.root_pid = getpid();
	else
		check_malloc_owner();
	/* Before recording starts: until every slot is rewritten, a block
	 * could reach the C library from one of our functions. */
	if (late && late_binding_apply() < 0) {
		runtime_message("loaded late, %s: nothing is recorded",
				late_binding_refusal());
		control_note_refusal(ENOTSUP, late_binding_refusal());
		prof.settings.output[0] = '\0';
	}
	attach_python_walker();
	if (too_tight_at_load()) {
		leave_runtime(saved_errno);
		return;
	}
	if (prof.settings.output[0] && !prof.settings.dormant) {
		start_recording(late ? STARTED_BY_ATTACH : NULL);
		if (late)
			begin_attached_file();
		control_set_state(CONTROL_RECORDING);
	}
	leave_runtime(saved_errno);
}

/* Finishes the profile now, with the statistics as they are. */
static void finish_now(const char *exec_program)
{
	memprof_stats stats;
	int saved_errno;

	if (!writer_enabled())
		return;
	saved_errno = enter_runtime();
	memprof_get_stats(&stats);
	writer_finish_now(&stats, exec_program);
	leave_runtime(saved_errno);
}

void profiler_exit_now(void)
{
	if (!may_work_here_exactly())
		return;
	finish_now(NULL);
	control_unregister();
}

void profiler_before_exec(const char *program)
{
	if (!may_work_here_exactly())
		return;
	finish_now(program);
	control_unregister();
}

void profiler_exec_failed(void)
{
	int saved_errno;

	if (!may_work_here_exactly())
		return;
	control_after_fork(); /* the same process, back in the registry */
	control_set_state(writer_recording() ? CONTROL_RECORDING
					     : CONTROL_DORMANT);
	if (!writer_enabled())
		return;
	saved_errno = enter_runtime();
	writer_exec_failed();
	leave_runtime(saved_errno);
}

void profiler_before_id_change(uid_t uid, gid_t gid)
{
	int saved_errno;

	if (!may_work_here_exactly() || !writer_enabled() || ((uid == (uid_t)-1 || uid == geteuid()) &&
				  (gid == (gid_t)-1 || gid == getegid())))
		return;
	saved_errno = enter_runtime();
	writer_before_id_change(uid, gid);
	leave_runtime(saved_errno);
}

void profiler_unload(void)
{
	if (!may_work_here_exactly())
		return;
	if (writer_enabled())
		memprof_shutdown();
	control_unregister();
}
