/* memprof-wrap.c - run a command under the spprof-mem heap profiler.
 *
 * Contract: memprof-wrap [OPTION]... [--] COMMAND [ARGUMENT]...
 * First checks all it can before COMMAND runs: the runtime library exists,
 * COMMAND is found and executable, it (or its script interpreter) is a
 * dynamically linked program, the output directory is writable.  Then runs
 * COMMAND with libspprof-alloc preloaded and configured through the SPPROF_*
 * variables (the runtime's only interface), exits with COMMAND's status and
 * lists on stderr the profiles written.
 */
#include "config.h"

#include "wrap-child.h"
#include "wrap-manifest.h"
#include "wrap-options.h"
#include "wrap-output.h"
#include "wrap-target.h"
#include "wrap-util.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile_files.h"
#include "tool_files.h"

#ifndef SPPROF_RUNTIME_PATH
#error "SPPROF_RUNTIME_PATH must name the installed runtime library"
#endif

/* The Python bindings' extension module, which the runtime loads into
 * Python processes for their Python frames: where it is installed and
 * where it is built (both empty when configured without the bindings). */
#ifndef SPPROF_PYTHON_WALKER_PATH
#define SPPROF_PYTHON_WALKER_PATH ""
#define SPPROF_PYTHON_WALKER_BUILT ""
#endif

/* SPPROF_RUNTIME, else the build tree's runtime, else the installed one
 * (which locate_runtime() finds missing when it is). */
static char *choose_runtime(void)
{
	const char *chosen = getenv("SPPROF_RUNTIME");
	char path[PATH_MAX];

	if (chosen == NULL || *chosen == '\0')
		chosen = tool_file("memprof-wrap", TOOL_FILES_RUNTIME_BUILT,
				   SPPROF_RUNTIME_PATH, path);
	return wrap_format("%s", chosen ? chosen : SPPROF_RUNTIME_PATH);
}

/* The build tree's Python frame walker, else the installed one, else NULL
 * (no Python bindings: Python programs get native frames only). */
static char *choose_python_walker(void)
{
	char path[PATH_MAX];
	const char *found = tool_file("memprof-wrap", SPPROF_PYTHON_WALKER_BUILT,
				      SPPROF_PYTHON_WALKER_PATH, path);

	return found ? wrap_format("%s", found) : NULL;
}

/* Store the absolute path of the runtime in *RUNTIME; 0, or 1 after saying
 * why it cannot be used. */
static int locate_runtime(char **runtime)
{
	char *chosen = choose_runtime();
	char *cwd;

	if (access(chosen, R_OK) != 0) {
		wrap_error("profiler runtime %s: %s (set SPPROF_RUNTIME to "
			   "the path of libspprof-alloc.so.0)", chosen,
			   strerror(errno));
		free(chosen);
		return 1;
	}
	/* The command may change directory before it starts programs. */
	if (chosen[0] != '/' && (cwd = getcwd(NULL, 0)) != NULL) {
		*runtime = wrap_format("%s/%s", cwd, chosen);
		free(cwd);
		free(chosen);
	} else {
		*runtime = chosen;
	}
	if (strpbrk(*runtime, ": ") != NULL) {
		wrap_error("profiler runtime %s: LD_PRELOAD cannot name a path "
			   "with ':' or ' ' in it", *runtime);
		free(*runtime);
		return 1;
	}
	return 0;
}

static void set_variable(const char *name, const char *value)
{
	if (setenv(name, value, 1) != 0) {
		wrap_error("cannot set %s: %s", name, strerror(errno));
		exit(1);
	}
}

/* The environment COMMAND inherits: everything the runtime reads. */
static void configure_runtime(const char *runtime, const char *pattern,
			      const struct wrap_options *options,
			      const char *manifest)
{
	const char *preload = getenv("LD_PRELOAD");
	char *value;

	value = preload != NULL && *preload != '\0'
		? wrap_format("%s:%s", runtime, preload)
		: wrap_format("%s", runtime);
	set_variable("LD_PRELOAD", value);
	free(value);
	set_variable("SPPROF_OUTPUT", pattern);
	set_variable("SPPROF_FOLLOW_FORK", options->follow_fork ? "1" : "0");
	if (options->dormant)
		set_variable("SPPROF_DORMANT", "1");
	set_variable("SPPROF_MANIFEST", manifest);
	if (options->rate != 0) {
		value = wrap_format("%" PRIu64, options->rate);
		set_variable("SPPROF_SAMPLING_RATE", value);
		free(value);
	}
	if (options->max_size_given) {
		value = wrap_format("%" PRIu64, options->max_size);
		set_variable("SPPROF_MAX_SIZE", value);
		free(value);
	}
	/* A walker given in the environment (empty: none) is kept. */
	if (getenv("SPPROF_PYTHON_WALKER") == NULL &&
	    (value = choose_python_walker()) != NULL) {
		set_variable("SPPROF_PYTHON_WALKER", value);
		free(value);
	}
	if (options->python_allocators != NULL)
		set_variable("PYTHONMALLOC", options->python_allocators);
	if (options->unwind != NULL)
		set_variable("SPPROF_UNWIND", options->unwind);
	/* Set by the runtime in the first process it profiles; one inherited
	 * from an outer profiled process would misname every profile. */
	unsetenv("SPPROF_ROOT_PID");
}

/* The largest final profile a process may hand over: twice the size
 * limit of its stream (the runtime lets a stream whose live blocks alone
 * fill more than half the limit grow to twice their size), 0 for none. */
static uint64_t handed_size_max(const struct wrap_options *options)
{
	uint64_t limit = options->max_size_given ? options->max_size
						 : PROFILE_MAX_SIZE_DEFAULT;

	return limit > UINT64_MAX / 2 ? 0 : 2 * limit;
}

int main(int argc, char **argv)
{
	struct wrap_options options;
	struct wrap_manifest manifest;
	char *runtime = NULL, *path = NULL, *pattern = NULL;
	bool descendants_running = false;
	int status = wrap_parse_args(argc, argv, &options);

	if (status != WRAP_RUN)
		return status;
	status = locate_runtime(&runtime);
	if (status == 0)
		status = wrap_resolve_command(options.command[0], &path);
	if (status == 0)
		status = wrap_check_target(path, runtime);
	if (status == 0)
		status = wrap_output_pattern(options.output,
					     options.command[0],
					     options.quiet, &pattern);
	if (status == 0)
		status = wrap_manifest_create(&manifest, pattern,
					      handed_size_max(&options));
	if (status == 0) {
		configure_runtime(runtime, pattern, &options, manifest.address);
		status = wrap_run(path, options.command, &manifest,
				  &descendants_running);
		wrap_manifest_report(&manifest, options.quiet,
				     descendants_running);
		wrap_manifest_remove(&manifest);
	}
	free(runtime);
	free(path);
	free(pattern);
	return status;
}
