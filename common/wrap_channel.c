/* wrap_channel.c - lines to memprof-wrap (see wrap_channel.h). */
#include "config.h"

#include "wrap_channel.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "outbuf.h"

/* How long a line waits for room in memprof-wrap's queue, which it
 * empties as lines come, and a request for its answer: only a memprof-wrap
 * that is stopped makes a process wait this long. */
#define SEND_WAIT_SECONDS 2
#define ANSWER_WAIT_SECONDS 5

int channel_is_wrap(const char *target)
{
	return target[0] == '@';
}

/* The manifest file, opened to append: an existing regular file, or a new
 * one, never one reached through a symbolic link, nor a FIFO that would
 * block the program.  -1 with errno set. */
static int open_manifest_file(const char *path)
{
	const int append = O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC;

	for (int tries = 0; tries < 2; tries++) {
		int fd = open(path, append | O_NONBLOCK | O_NOCTTY);

		if (fd >= 0 || errno != ENOENT)
			return fd;
		/* Created by this process, or by another one meanwhile. */
		fd = open(path, append | O_CREAT | O_EXCL, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

static int append_to_file(const char *path, const char *line, size_t n)
{
	struct stat st;
	int fd, err = 0;

	fd = open_manifest_file(path);
	if (fd < 0)
		return errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		err = EINVAL;
	else if ((uint64_t)st.st_size + n <= file_size_limit())
		err = write_all(fd, line, n);
	close(fd);
	return err;
}

/* Sends msg on fd, with the descriptor pass_fd unless it is -1: 0 or an
 * errno value. */
static int send_message(int fd, struct msghdr *msg, int pass_fd)
{
	union {
		struct cmsghdr header;
		char bytes[CMSG_SPACE(sizeof(int))];
	} control;

	if (pass_fd >= 0) {
		struct cmsghdr *c;

		memset(&control, 0, sizeof(control));
		msg->msg_control = control.bytes;
		msg->msg_controllen = sizeof(control.bytes);
		c = CMSG_FIRSTHDR(msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
	}
	while (sendmsg(fd, msg, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return errno;
	return 0;
}

/* Sends line to the socket named by `address`, "NAME#KEY": each datagram
 * starts with the key and a space, which tells memprof-wrap that it comes
 * from a process it runs (other users see the name, not the key). */
static int send_datagram(const char *address, const char *line, size_t n,
			 int pass_fd)
{
	struct sockaddr_un to = { .sun_family = AF_UNIX };
	size_t name_len = strcspn(address, "#");
	const char *key = address[name_len] ? address + name_len + 1 : "";
	struct iovec iov[] = {
		{ .iov_base = (void *)key, .iov_len = strlen(key) },
		{ .iov_base = (void *)" ", .iov_len = 1 },
		{ .iov_base = (void *)line, .iov_len = n },
	};
	struct msghdr msg = { .msg_name = &to,
			      .msg_iov = iov,
			      .msg_iovlen = 3 };
	struct timeval wait = { .tv_sec = SEND_WAIT_SECONDS };
	int fd, err;

	if (name_len + 1 > sizeof(to.sun_path))
		return ENAMETOOLONG;
	/* A leading zero byte: the abstract namespace. */
	memcpy(to.sun_path + 1, address, name_len);
	msg.msg_namelen =
		(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + name_len);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof(wait));
	err = send_message(fd, &msg, pass_fd);
	close(fd);
	return err;
}

int channel_answer(int requester, const char *text, int pass_fd)
{
	struct iovec iov = { .iov_base = (void *)text,
			     .iov_len = strlen(text) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	return send_message(requester, &msg, pass_fd);
}

int channel_send(const char *target, const char *line, size_t n,
		 int pass_fd)
{
	if (channel_is_wrap(target))
		return send_datagram(target + 1, line, n, pass_fd);
	return pass_fd >= 0 ? EINVAL : append_to_file(target, line, n);
}

/* The descriptor a message carried, or -1. */
static int passed_descriptor(struct msghdr *msg)
{
	struct cmsghdr *c = CMSG_FIRSTHDR(msg);
	int fd = -1;

	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(fd)))
		memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	return fd;
}

static int receive_answer(int fd, char *reply, size_t reply_size,
			  int *reply_fd)
{
	union {
		struct cmsghdr header;
		char bytes[CMSG_SPACE(sizeof(int))];
	} control;
	struct iovec iov = { .iov_base = reply, .iov_len = reply_size - 1 };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = control.bytes,
			      .msg_controllen = sizeof(control.bytes) };
	struct timeval wait = { .tv_sec = ANSWER_WAIT_SECONDS };
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
	do
		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno;
	*reply_fd = passed_descriptor(&msg);
	reply[n] = '\0';
	return n > 0 ? 0 : ECONNRESET;
}

int channel_request(const char *target, const char *line, size_t n,
		    char *reply, size_t reply_size, int *reply_fd)
{
	int pair[2], err;

	*reply_fd = -1;
	if (!channel_is_wrap(target))
		return EINVAL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
		return errno;
	err = send_datagram(target + 1, line, n, pair[1]);
	close(pair[1]);
	if (!err)
		err = receive_answer(pair[0], reply, reply_size, reply_fd);
	close(pair[0]);
	return err;
}
