/* wrap-manifest.c - the list of profiles the runtime writes.
 * See wrap-manifest.h for the contract. */
#include "config.h"

#include "wrap-manifest.h"
#include "wrap-publish.h"
#include "wrap-util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The command printed for each profile. */
#define REPORT_COMMAND "memprof-report --top 20"

/* One profile: the file it streams to, and its final name once written. */
struct profile {
	char *part;
	long pid;           /* the process writing it; 0 when not said */
	char *final;        /* NULL until finalised */
	char *exec_program; /* the image was replaced by exec of this */
	char *stopped;      /* why recording stopped early, or NULL */
	char *unwritten;    /* why the final file could not be written */
	bool exec_failed;   /* ... but that exec failed */
};

/* Shows a line a process sent, without the control characters it could
 * slip in. */
static void show_message(const char *text)
{
	for (const char *c = text; *c != '\0'; c++)
		fputc((unsigned char)*c < ' ' && *c != '\t' ? '?' : *c, stderr);
	fputc('\n', stderr);
}

struct profile_list {
	struct profile *items;
	size_t count;
	/* Processes that ended without a sample: "pid<TAB>name" each. */
	char **unsampled;
	size_t unsampled_count;
	/* Processes the runtime left alone (a sandbox, a tight limit):
	 * how many, and the first ("pid why"). */
	size_t left_alone_count;
	char *first_left_alone;
};

static void add_unsampled(struct profile_list *list, const char *pid,
			  const char *name)
{
	char **grown = realloc(list->unsampled, (list->unsampled_count + 1) *
							sizeof *grown);

	if (grown == NULL) {
		wrap_error("out of memory");
		exit(1);
	}
	list->unsampled = grown;
	grown[list->unsampled_count++] = wrap_format("pid %s  %s", pid, name);
}

/* Every process is accounted for: those that took no sample have no
 * profile, and are named here. */
static void list_unsampled(const struct profile_list *list)
{
	size_t count = list->unsampled_count;

	if (count == 0)
		return;
	wrap_error("%zu process%s ended without taking a sample, so without "
		   "a profile:", count, count == 1 ? "" : "es");
	for (size_t i = 0; i < count; i++) {
		fputs("  ", stderr);
		show_message(list->unsampled[i]);
	}
}

static struct profile *find_or_add(struct profile_list *list, const char *part)
{
	struct profile *grown;

	for (size_t i = 0; i < list->count; i++)
		if (strcmp(list->items[i].part, part) == 0)
			return &list->items[i];
	grown = realloc(list->items, (list->count + 1) * sizeof *grown);
	if (grown == NULL) {
		wrap_error("out of memory");
		exit(1);
	}
	list->items = grown;
	grown[list->count] = (struct profile){ .part = wrap_format("%s", part) };
	return &grown[list->count++];
}

/* The socket's name: the process id and random bytes, so that no other
 * program has it.  (Other users can see it in /proc/net/unix: what their
 * lines may make memprof-wrap do is checked, wrap-publish.h.) */
static char *socket_name(void)
{
	unsigned char random[12];
	char hex[2 * sizeof random + 1];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, random, sizeof random) : -1;

	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)sizeof random)
		return NULL;
	for (size_t i = 0; i < sizeof random; i++)
		snprintf(hex + 2 * i, 3, "%02x", random[i]);
	return wrap_format("memprof-wrap.%ld.%s", (long)getpid(), hex);
}

int wrap_manifest_create(struct wrap_manifest *manifest, const char *pattern)
{
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	char *name = socket_name();
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int on = 1;

	*manifest = (struct wrap_manifest){ .socket = -1 };
	if (name == NULL || fd < 0 || strlen(name) + 1 > sizeof address.sun_path) {
		wrap_error("cannot make a socket for the runtime: %s",
			   strerror(name == NULL ? EIO : errno));
		free(name);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	/* sun_path starts with a zero byte: the abstract namespace. */
	memcpy(address.sun_path + 1, name, strlen(name));
	/* Each line comes with its sender's credentials, from the kernel. */
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0 ||
	    bind(fd, (struct sockaddr *)&address,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			     strlen(name))) != 0) {
		wrap_error("cannot make a socket for the runtime: %s",
			   strerror(errno));
		free(name);
		close(fd);
		return 1;
	}
	manifest->socket = fd;
	manifest->address = wrap_format("@%s", name);
	manifest->pattern = pattern;
	manifest->profiles = wrap_alloc(sizeof *manifest->profiles);
	*manifest->profiles = (struct profile_list){ .items = NULL };
	free(name);
	return 0;
}

/* Records what a line "KIND part<TAB>detail" says of a profile. */
static void set_detail(struct profile *profile, char kind, const char *detail)
{
	char **field = kind == 'F'   ? &profile->final
		       : kind == 'X' ? &profile->exec_program
		       : kind == 'E' ? &profile->stopped
		       : kind == 'W' ? &profile->unwritten
				     : NULL;

	if (field != NULL) {
		free(*field);
		*field = wrap_format("%s", detail);
	}
}

/* What a process handed over: its final profile, open on fd. */
static void publish_handed(struct profile *profile, int fd,
			   const struct ucred *sender, const char *pattern)
{
	char *final = fd >= 0 ? wrap_publish(profile->part, fd, sender->uid,
					     pattern)
			      : NULL;

	if (final != NULL) {
		free(profile->final);
		profile->final = final;
	}
}

/* Records what one line "KIND part[<TAB>detail]" says; fd: the
 * descriptor that came with it, or -1; sender: who sent it. */
static void take_line(struct wrap_manifest *manifest, char *line, int fd,
		      const struct ucred *sender)
{
	struct profile_list *list = manifest->profiles;
	char *tab;

	if (line[0] == 'M') {
		show_message(line + 2);
	} else if (line[0] == 'P') {
		tab = strchr(line, '\t');
		if (tab != NULL)
			*tab = '\0';
		find_or_add(list, line + 2)->pid = tab ? atol(tab + 1) : 0;
	} else if (line[0] == 'N') {
		find_or_add(list, line + 2)->exec_failed = true;
	} else if (line[0] == 'H') {
		publish_handed(find_or_add(list, line + 2), fd, sender,
			       manifest->pattern);
	} else if (line[0] == 'C') {
		if (fd >= 0)
			wrap_create_part(fd, manifest->pattern, line[2] == '1');
	} else if ((tab = strchr(line, '\t')) == NULL) {
		return;
	} else if (line[0] == 'S') {
		*tab = '\0';
		add_unsampled(list, line + 2, tab + 1);
	} else if (line[0] == 'A') {
		*tab = ' ';
		/* Shown later in a line of ours: no control characters. */
		for (char *c = line + 2; *c != '\0'; c++)
			if ((unsigned char)*c < ' ')
				*c = '?';
		if (list->left_alone_count++ == 0)
			list->first_left_alone = wrap_format("%s", line + 2);
	} else {
		*tab = '\0';
		set_detail(find_or_add(list, line + 2), line[0], tab + 1);
	}
}

/* The descriptor a datagram carried (-1: none; any more are closed) and
 * its sender's credentials (uid -1 when the kernel gave none). */
static int datagram_extras(struct msghdr *msg, struct ucred *sender)
{
	int fd = -1;

	*sender = (struct ucred){ .pid = 0, .uid = (uid_t)-1,
				  .gid = (gid_t)-1 };
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL;
	     c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len == CMSG_LEN(sizeof *sender))
			memcpy(sender, CMSG_DATA(c), sizeof *sender);
		if (c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof fd;
		     i++) {
			int passed;

			memcpy(&passed, CMSG_DATA(c) + i * sizeof fd, sizeof fd);
			if (fd < 0)
				fd = passed;
			else
				close(passed);
		}
	}
	return fd;
}

/* Each datagram is one whole line, sent by one process. */
void wrap_manifest_receive(struct wrap_manifest *manifest)
{
	static char line[4 * PATH_MAX + 2];
	union {
		struct cmsghdr header;
		char bytes[CMSG_SPACE(4 * sizeof(int)) +
			   CMSG_SPACE(sizeof(struct ucred))];
	} control;
	ssize_t length;

	for (;;) {
		struct iovec iov = { line, sizeof line - 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = control.bytes,
				      .msg_controllen = sizeof control.bytes };
		struct ucred sender;
		int fd;

		length = recvmsg(manifest->socket, &msg, MSG_CMSG_CLOEXEC);
		if (length < 0 && errno == EINTR)
			continue;
		if (length < 0)
			return;
		fd = datagram_extras(&msg, &sender);
		if (length >= 3 && line[length - 1] == '\n' && line[1] == ' ' &&
		    !(msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
			line[length - 1] = '\0';
			take_line(manifest, line, fd, &sender);
		}
		if (fd >= 0)
			close(fd);
	}
}

char *wrap_shell_quote(const char *text)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789%+,-./:=@_";
	size_t quotes = 0;
	char *quoted, *out;

	if (*text != '\0' && text[strspn(text, safe)] == '\0')
		return wrap_format("%s", text);
	for (const char *p = strchr(text, '\''); p; p = strchr(p + 1, '\''))
		quotes++;
	/* Each ' becomes '\'' (close, escaped quote, reopen). */
	quoted = out = wrap_alloc(strlen(text) + 3 * quotes + 3);
	*out++ = '\'';
	for (; *text != '\0'; text++) {
		if (*text == '\'')
			out = stpcpy(out, "'\\'");
		*out++ = *text;
	}
	stpcpy(out, "'");
	return quoted;
}

/* PATH as the user would type it from the current directory CWD. */
static char *shown_path(const char *path, const char *cwd)
{
	size_t length = cwd != NULL ? strlen(cwd) : 0;
	const char *shown = path;
	char *word, *quoted;

	if (length > 1 && strncmp(path, cwd, length) == 0 &&
	    path[length] == '/')
		shown = path + length + 1;
	/* A name starting with '-' would read as an option. */
	word = shown[0] == '-' ? wrap_format("./%s", shown)
	       : wrap_format("%s", shown);
	quoted = wrap_shell_quote(word);
	free(word);
	return quoted;
}

/* What to say after the command that reads PROFILE (newly allocated). */
static char *profile_note(const struct profile *profile,
			  bool descendants_running)
{
	if (profile->final != NULL && profile->exec_program != NULL)
		return wrap_format(profile->exec_failed
					   ? "   # ended at an exec of %s that "
					     "failed; the process went on in "
					     "a new profile"
					   : "   # replaced by exec of %s",
				   profile->exec_program);
	if (profile->final != NULL)
		return wrap_format("%s", "");
	if (profile->stopped != NULL)
		return wrap_format("   # partial: recording stopped (%s)",
				   profile->stopped);
	if (profile->unwritten != NULL)
		return wrap_format("   # not finalised: the final file could "
				   "not be written (%s)",
				   profile->unwritten);
	if (descendants_running)
		return wrap_format("%s", "   # not finalised: its process "
					 "still runs or was killed");
	return wrap_format("%s", "   # partial: its process ended before "
				 "finalising");
}

/* The name a profile still being written will have once its process
 * ends (its part file's, without ".part"), or NULL: it is not being
 * written, or the name is not the runtime's. */
static char *future_name(const struct profile *profile)
{
	static const char suffix[] = ".part";
	size_t length = strlen(profile->part);

	if (profile->final != NULL || profile->stopped != NULL ||
	    profile->unwritten != NULL || profile->pid <= 0 ||
	    (kill((pid_t)profile->pid, 0) != 0 && errno != EPERM) ||
	    length <= sizeof suffix - 1 ||
	    strcmp(profile->part + length - (sizeof suffix - 1), suffix) != 0)
		return NULL;
	return wrap_format("%.*s", (int)(length - (sizeof suffix - 1)),
			   profile->part);
}

/* A profile still being written is shown under the name it will have:
 * its part file is gone by the time anyone reads the hint. */
static void print_profile(const struct profile *profile, const char *cwd,
			  bool descendants_running)
{
	char *future = future_name(profile);
	char *shown = shown_path(profile->final != NULL ? profile->final
				 : future != NULL       ? future
							: profile->part,
				 cwd);
	char *part = shown_path(profile->part, cwd);
	char *note = future != NULL
			     ? wrap_format("   # written when process %ld "
					   "ends (until then it streams to %s)",
					   profile->pid, part)
			     : profile_note(profile, descendants_running);

	fprintf(stderr, "  %s %s%s\n", REPORT_COMMAND, shown, note);
	free(note);
	free(part);
	free(shown);
	free(future);
}

/* A profile not finalised counts only if its part file is there. */
static bool is_listed(const struct profile *profile)
{
	return profile->final != NULL || access(profile->part, F_OK) == 0;
}

void wrap_manifest_report(struct wrap_manifest *manifest, bool quiet,
			  bool descendants_running)
{
	const struct profile_list *list = manifest->profiles;
	char *cwd = getcwd(NULL, 0);
	size_t listed = 0;

	wrap_manifest_receive(manifest);
	for (size_t i = 0; i < list->count; i++)
		listed += is_listed(&list->items[i]);
	if (listed == 0 && list->left_alone_count > 0)
		wrap_error("no profile was written: the profiler left %zu "
			   "process%s alone (pid %s)", list->left_alone_count,
			   list->left_alone_count == 1 ? "" : "es",
			   list->first_left_alone);
	else if (listed == 0)
		wrap_error("no profile was written (the command ended before "
			   "any allocation was recorded, or it cleared "
			   "LD_PRELOAD or ran only statically linked programs)");
	else if (!quiet)
		wrap_error("%zu profile%s written; read %s with:", listed,
			   listed == 1 ? "" : "s", listed == 1 ? "it" : "them");
	/* Finalised profiles first, in the order their processes started;
	 * then those never finalised, which matter less. */
	for (int finalised = 1; finalised >= 0 && !quiet; finalised--) {
		for (size_t i = 0; i < list->count; i++) {
			const struct profile *profile = &list->items[i];

			if ((profile->final != NULL) == finalised &&
			    is_listed(profile))
				print_profile(profile, cwd,
					      descendants_running);
		}
	}
	if (!quiet)
		list_unsampled(list);
	if (!quiet && descendants_running)
		wrap_error("some processes started by the command still run; "
			   "profiles they write later are not listed");
	free(cwd);
}

void wrap_manifest_remove(struct wrap_manifest *manifest)
{
	struct profile_list *list = manifest->profiles;

	if (manifest->socket >= 0)
		close(manifest->socket);
	for (size_t i = 0; list != NULL && i < list->count; i++) {
		free(list->items[i].part);
		free(list->items[i].final);
		free(list->items[i].exec_program);
		free(list->items[i].stopped);
		free(list->items[i].unwritten);
	}
	if (list != NULL)
		free(list->first_left_alone);
	for (size_t i = 0; list != NULL && i < list->unsampled_count; i++)
		free(list->unsampled[i]);
	if (list != NULL) {
		free(list->items);
		free(list->unsampled);
	}
	free(list);
	free(manifest->address);
	*manifest = (struct wrap_manifest){ .socket = -1 };
}
