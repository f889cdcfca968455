/* wrap-manifest.c - the list of profiles the runtime writes.
 * See wrap-manifest.h for the contract. */
#include "config.h"

#include "wrap-manifest.h"
#include "wrap-message.h"
#include "wrap-publish.h"
#include "wrap-sender.h"
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

/* What the command's processes may make memprof-wrap keep and show at
 * most: more is dropped and counted.  Far above what a run sends (a few
 * hundred bytes per process), far below what fills memory or a terminal. */
#define TAKEN_BYTES_MAX (16u << 20)
#define PROFILES_MAX 10000
#define MESSAGES_SHOWN_MAX 1000
#define UNSAMPLED_LISTED_MAX 1000
/* Datagrams taken at one call: the command's end is noticed between two
 * calls, however fast datagrams come. */
#define RECEIVE_BATCH 256
/* Datagrams taken after the command ended: what its processes queued
 * (the kernel queues a few hundred), not what someone keeps sending. */
#define FINAL_DATAGRAMS_MAX 4096

/* Random bytes in the names of the socket and in the key. */
#define NAME_RANDOM_BYTES 12
#define KEY_RANDOM_BYTES 16

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

struct profile_list {
	struct profile *items;
	size_t count;
	/* Processes that ended without a sample: "pid<TAB>name" each. */
	char **unsampled;
	size_t unsampled_count;
	size_t unsampled_unlisted; /* past UNSAMPLED_LISTED_MAX */
	/* Processes the runtime left alone (a sandbox, a tight limit):
	 * how many, and the first ("pid why"). */
	size_t left_alone_count;
	char *first_left_alone;
};

static void add_unsampled(struct profile_list *list, const char *pid,
			  const char *name)
{
	char **grown;

	if (list->unsampled_count == UNSAMPLED_LISTED_MAX) {
		list->unsampled_unlisted++;
		return;
	}
	grown = realloc(list->unsampled, (list->unsampled_count + 1) *
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
	size_t count = list->unsampled_count + list->unsampled_unlisted;

	if (count == 0)
		return;
	wrap_error("%zu process%s ended without taking a sample, so without "
		   "a profile:", count, count == 1 ? "" : "es");
	for (size_t i = 0; i < list->unsampled_count; i++)
		wrap_show("  ", list->unsampled[i]);
	if (list->unsampled_unlisted > 0)
		wrap_error("  and %zu more, not listed", list->unsampled_unlisted);
}

/* The profile streamed to PART, a new one if need be; NULL when there
 * are PROFILES_MAX already. */
static struct profile *find_or_add(struct profile_list *list, const char *part)
{
	struct profile *grown;

	for (size_t i = 0; i < list->count; i++)
		if (strcmp(list->items[i].part, part) == 0)
			return &list->items[i];
	if (list->count == PROFILES_MAX)
		return NULL;
	grown = realloc(list->items, (list->count + 1) * sizeof *grown);
	if (grown == NULL) {
		wrap_error("out of memory");
		exit(1);
	}
	list->items = grown;
	grown[list->count] = (struct profile){ .part = wrap_format("%s", part) };
	return &grown[list->count++];
}

/* COUNT random bytes in hexadecimal (newly allocated), or NULL. */
static char *random_hex(size_t count)
{
	unsigned char random[32];
	char *hex;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 && count <= sizeof random
			      ? read(fd, random, count) : -1;

	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)count)
		return NULL;
	hex = wrap_alloc(2 * count + 1);
	for (size_t i = 0; i < count; i++)
		snprintf(hex + 2 * i, 3, "%02x", random[i]);
	return hex;
}

/* The socket's name: the process id and random bytes, so that no other
 * program has it.  (Other users can see it in /proc/net/unix: the key,
 * which they cannot see, tells the command's lines, wrap-sender.h.) */
static char *socket_name(void)
{
	char *random = random_hex(NAME_RANDOM_BYTES);
	char *name = random != NULL ? wrap_format("memprof-wrap.%ld.%s",
						   (long)getpid(), random)
				    : NULL;

	free(random);
	return name;
}

int wrap_manifest_create(struct wrap_manifest *manifest, const char *pattern,
			 uint64_t handed_size_max)
{
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	char *name = socket_name();
	char *key = random_hex(KEY_RANDOM_BYTES);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int on = 1;

	*manifest = (struct wrap_manifest){ .socket = -1 };
	if (name == NULL || key == NULL || fd < 0 ||
	    strlen(name) + 1 > sizeof address.sun_path) {
		wrap_error("cannot make a socket for the runtime: %s",
			   strerror(name == NULL || key == NULL ? EIO : errno));
		free(name);
		free(key);
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
		free(key);
		close(fd);
		return 1;
	}
	manifest->socket = fd;
	manifest->address = wrap_format("@%s#%s", name, key);
	manifest->key = strchr(manifest->address, '#') + 1;
	manifest->pattern = pattern;
	manifest->handed_size_max = handed_size_max;
	manifest->profiles = wrap_alloc(sizeof *manifest->profiles);
	*manifest->profiles = (struct profile_list){ .items = NULL };
	free(name);
	free(key);
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
static void publish_handed(const struct wrap_manifest *manifest,
			   struct profile *profile, int fd,
			   const struct ucred *sender)
{
	char *final = wrap_publish(profile->part, fd, sender->uid,
				   manifest->pattern,
				   manifest->handed_size_max);

	if (final != NULL) {
		free(profile->final);
		profile->final = final;
	}
}

/* Shows a message of the runtime, unless there were too many. */
static bool show_message(struct wrap_intake *intake, const char *text)
{
	if (intake->messages_shown == MESSAGES_SHOWN_MAX)
		return false;
	intake->messages_shown++;
	wrap_show("", text);
	return true;
}

/* Records what one line says; fd: the descriptor that came with it, or
 * -1; sender: who sent it.  False when it was dropped. */
static bool take_line(struct wrap_manifest *manifest,
		      const struct wrap_message *line, int fd,
		      const struct ucred *sender)
{
	struct profile_list *list = manifest->profiles;
	struct profile *profile;

	switch (line->kind) {
	case 'M':
		return show_message(&manifest->intake, line->subject);
	case 'C':
		wrap_create_part(fd, manifest->pattern, line->subject[0] == '1');
		return true;
	case 'S':
		add_unsampled(list, line->subject, line->detail);
		return true;
	case 'A':
		/* The first is named in a line of ours, escaped. */
		if (list->left_alone_count++ == 0) {
			char *text = wrap_format("%s %s", line->subject,
						 line->detail);

			list->first_left_alone = wrap_escape(text);
			free(text);
		}
		return true;
	}
	profile = find_or_add(list, line->subject);
	if (profile == NULL)
		return false;
	if (line->kind == 'P')
		profile->pid = line->detail ? atol(line->detail) : 0;
	else if (line->kind == 'N')
		profile->exec_failed = true;
	else if (line->kind == 'H')
		publish_handed(manifest, profile, fd, sender);
	else
		set_detail(profile, line->kind, line->detail);
	return true;
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

/* Takes one datagram of LENGTH bytes (FLAGS: recvmsg()'s), which came
 * with the descriptor fd (or -1) from SENDER, or counts why not. */
static void take_datagram(struct wrap_manifest *manifest, char *data,
			  size_t length, int flags, int fd,
			  const struct ucred *sender)
{
	struct wrap_intake *intake = &manifest->intake;
	struct wrap_message line;
	enum wrap_message_verdict verdict =
		wrap_message_read(data, length, manifest->key, fd >= 0, &line);

	if (verdict == WRAP_MESSAGE_FOREIGN || !wrap_sender_heard(sender)) {
		if (intake->refused++ == 0)
			intake->first_refused = *sender;
		return;
	}
	if (verdict != WRAP_MESSAGE_OK || (flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    intake->taken_bytes + length > TAKEN_BYTES_MAX ||
	    !take_line(manifest, &line, fd, sender)) {
		intake->dropped++;
		return;
	}
	intake->taken_bytes += length;
}

/* Takes at most MOST datagrams, each one whole line sent by one process;
 * every descriptor that came is closed here, read or not. */
static void receive(struct wrap_manifest *manifest, size_t most)
{
	static char data[4 * PATH_MAX + 2];
	union {
		struct cmsghdr header;
		char bytes[CMSG_SPACE(4 * sizeof(int)) +
			   CMSG_SPACE(sizeof(struct ucred))];
	} control;

	for (size_t count = 0; count < most; count++) {
		struct iovec iov = { data, sizeof data - 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = control.bytes,
				      .msg_controllen = sizeof control.bytes };
		struct ucred sender;
		ssize_t length;
		int fd;

		length = recvmsg(manifest->socket, &msg, MSG_CMSG_CLOEXEC);
		if (length < 0 && errno == EINTR)
			continue;
		if (length < 0)
			return;
		fd = datagram_extras(&msg, &sender);
		take_datagram(manifest, data, (size_t)length, msg.msg_flags,
			      fd, &sender);
		if (fd >= 0)
			close(fd);
	}
}

void wrap_manifest_receive(struct wrap_manifest *manifest)
{
	receive(manifest, RECEIVE_BATCH);
}

/* One line each for what was refused and what was dropped. */
static void report_intake(const struct wrap_intake *intake)
{
	if (intake->refused > 0)
		wrap_error("refused %zu datagram%s from processes outside the "
			   "command (the first from process %ld of user %ld)",
			   intake->refused, intake->refused == 1 ? "" : "s",
			   (long)intake->first_refused.pid,
			   (long)intake->first_refused.uid);
	if (intake->dropped > 0)
		wrap_error("dropped %zu line%s from the command's processes: "
			   "malformed, or past %u MiB of lines, %u profiles or "
			   "%u messages", intake->dropped,
			   intake->dropped == 1 ? "" : "s",
			   TAKEN_BYTES_MAX >> 20, PROFILES_MAX,
			   MESSAGES_SHOWN_MAX);
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

	char *line = wrap_format("%s %s%s", REPORT_COMMAND, shown, note);

	wrap_show("  ", line);
	free(line);
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

	receive(manifest, FINAL_DATAGRAMS_MAX);
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
	report_intake(&manifest->intake);
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
