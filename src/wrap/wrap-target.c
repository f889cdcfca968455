/* wrap-target.c - what COMMAND really is, checked before it runs.
 * See wrap-target.h for the contract. */
#include "config.h"

#include "wrap-target.h"
#include "wrap-util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kernel follows at most this many #! levels (BINPRM_MAX_RECURSION). */
#define MAX_INTERPRETER_DEPTH 4
/* The kernel reads the #! line from this many first bytes at most. */
#define INTERPRETER_LINE_MAX 256
/* What execvp() runs a file that is neither ELF nor #! script with. */
#define FALLBACK_SHELL "/bin/sh"

/* 0 when PATH is a file this process may execute, else why not (errno). */
static int execute_problem(const char *path)
{
	struct stat status;

	if (stat(path, &status) != 0)
		return errno;
	if (S_ISDIR(status.st_mode))
		return EISDIR;
	if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) != 0)
		return errno;
	return 0;
}

static int report_unusable(const char *path, int problem)
{
	wrap_error("%s: %s", path, strerror(problem));
	return problem == ENOENT ? 127 : 126;
}

/* Like execvp(): try each PATH directory in turn; when none holds an
 * executable file, a file that exists but cannot run explains the failure
 * better than "not found". */
static int search_path(const char *command, char **path)
{
	const char *search = getenv("PATH");
	char *unusable = NULL;
	int unusable_problem = 0;
	const char *end;

	if (search == NULL)
		search = "/bin:/usr/bin"; /* execvp()'s default */
	for (const char *dir = search; *command != '\0'; dir = end + 1) {
		char *candidate;
		int problem;

		end = strchrnul(dir, ':');
		/* An empty entry means the current directory. */
		candidate = end == dir ? wrap_format("./%s", command)
			    : wrap_format("%.*s/%s", (int)(end - dir), dir, command);
		problem = execute_problem(candidate);
		if (problem == 0) {
			free(unusable);
			*path = candidate;
			return 0;
		}
		if (unusable == NULL && problem != ENOENT && problem != ENOTDIR) {
			unusable = candidate;
			unusable_problem = problem;
		} else {
			free(candidate);
		}
		if (*end == '\0')
			break;
	}
	if (unusable != NULL) {
		int status = report_unusable(unusable, unusable_problem);

		free(unusable);
		return status;
	}
	wrap_error("%s: command not found", command);
	return 127;
}

int wrap_resolve_command(const char *command, char **path)
{
	int problem;

	if (strchr(command, '/') == NULL)
		return search_path(command, path);
	problem = execute_problem(command);
	if (problem != 0)
		return report_unusable(command, problem);
	*path = wrap_format("%s", command);
	return 0;
}

/* What decides whether a program can have the runtime preloaded. */
struct elf_summary {
	bool is_elf;
	unsigned char elf_class; /* e_ident[EI_CLASS] */
	unsigned char encoding;  /* e_ident[EI_DATA] */
	unsigned machine;        /* e_machine */
	bool is_static;
};

/* With a dynamic section but no interpreter, a file is either the dynamic
 * loader or a library run directly (both name a soname or dependencies),
 * or a static PIE, which relocates itself and never meets the loader. */
static bool dynamic_section_links(Elf *elf, const GElf_Phdr *segment)
{
	Elf_Data *data = elf_getdata_rawchunk(elf, segment->p_offset,
					      segment->p_filesz, ELF_T_DYN);
	size_t entry_size = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);
	GElf_Dyn entry;

	if (data == NULL || entry_size == 0)
		return true; /* unreadable: leave the verdict to the loader */
	for (size_t i = 0; i < data->d_size / entry_size; i++) {
		if (gelf_getdyn(data, (int)i, &entry) == NULL ||
		    entry.d_tag == DT_NULL)
			break;
		if (entry.d_tag == DT_NEEDED || entry.d_tag == DT_SONAME)
			return true;
	}
	return false;
}

static bool links_dynamically(Elf *elf)
{
	size_t count;
	GElf_Phdr segment;
	bool linked = false;

	if (elf_getphdrnum(elf, &count) != 0)
		return true; /* unreadable: leave the verdict to the loader */
	for (size_t i = 0; i < count; i++) {
		if (gelf_getphdr(elf, (int)i, &segment) == NULL)
			continue;
		if (segment.p_type == PT_INTERP)
			return true;
		if (segment.p_type == PT_DYNAMIC)
			linked = dynamic_section_links(elf, &segment);
	}
	return linked;
}

/* Fill *SUMMARY from PATH's ELF headers; -1 with errno if PATH cannot be
 * opened.  A file that is not ELF gets is_elf false. */
static int summarize_elf(const char *path, struct elf_summary *summary)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	GElf_Ehdr header;

	if (fd < 0)
		return -1;
	*summary = (struct elf_summary){ .is_elf = false };
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf != NULL && elf_kind(elf) == ELF_K_ELF &&
	    gelf_getehdr(elf, &header) != NULL) {
		summary->is_elf = true;
		summary->elf_class = header.e_ident[EI_CLASS];
		summary->encoding = header.e_ident[EI_DATA];
		summary->machine = header.e_machine;
		summary->is_static = !links_dynamically(elf);
	}
	elf_end(elf);
	close(fd);
	return 0;
}

/* The interpreter named on PATH's #! line (newly allocated), or NULL when
 * PATH has none and execvp() would hand it to the fallback shell. */
static char *read_interpreter(const char *path)
{
	char line[INTERPRETER_LINE_MAX + 1];
	ssize_t length = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t start = 2, end;

	if (fd >= 0) {
		length = read(fd, line, INTERPRETER_LINE_MAX);
		close(fd);
	}
	if (length < 2 || line[0] != '#' || line[1] != '!')
		return NULL;
	line[length] = '\0';
	start += strspn(line + start, " \t");
	end = start + strcspn(line + start, " \t\n");
	if (end == start)
		return NULL;
	return wrap_format("%.*s", (int)(end - start), line + start);
}

static int check_elf(const char *path, const char *script,
		     const struct elf_summary *program,
		     const struct elf_summary *runtime, const char *runtime_path)
{
	char *name = script == NULL ? wrap_format("%s", path)
		     : wrap_format("%s (interpreter of %s)", path, script);
	int status = 0;

	if (program->is_static) {
		wrap_error("%s: statically linked executable; the profiler "
			   "needs a dynamically linked program", name);
		status = 1;
	} else if (program->elf_class != runtime->elf_class ||
		   program->encoding != runtime->encoding ||
		   program->machine != runtime->machine) {
		wrap_error("%s: built for another architecture than the "
			   "profiler runtime %s", name, runtime_path);
		status = 1;
	}
	free(name);
	return status;
}

/* Check PATH, which runs SCRIPT when SCRIPT is not NULL. */
static int check_program(const char *path, const char *script, int depth,
			 const struct elf_summary *runtime,
			 const char *runtime_path)
{
	struct elf_summary program;
	char *interpreter;
	int status;

	if (script != NULL) {
		int problem = execute_problem(path);

		if (problem != 0) {
			wrap_error("%s: bad interpreter %s: %s", script, path,
				   strerror(problem));
			return 126;
		}
	}
	/* A file we may execute but not read: the kernel will judge it. */
	if (summarize_elf(path, &program) != 0)
		return 0;
	if (program.is_elf)
		return check_elf(path, script, &program, runtime, runtime_path);
	if (depth == MAX_INTERPRETER_DEPTH)
		return 0; /* the kernel will refuse it with its own error */
	interpreter = read_interpreter(path);
	status = check_program(interpreter != NULL ? interpreter
				: FALLBACK_SHELL, path, depth + 1,
			       runtime, runtime_path);
	free(interpreter);
	return status;
}

int wrap_check_target(const char *path, const char *runtime)
{
	struct elf_summary library;

	if (summarize_elf(runtime, &library) != 0) {
		wrap_error("profiler runtime %s: %s", runtime, strerror(errno));
		return 1;
	}
	if (!library.is_elf) {
		wrap_error("profiler runtime %s: not an ELF shared library",
			   runtime);
		return 1;
	}
	return check_program(path, NULL, 0, &library, runtime);
}
