/* wrap-sender.c - who may talk to memprof-wrap's socket.
 * See wrap-sender.h for the contract. */
#include "config.h"

#include "wrap-sender.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Deeper than any real process tree: a loop in /proc ends here. */
#define TREE_DEPTH_MAX 4096
/* Walks of a tree whose processes keep ending as it is read. */
#define WALKS_MAX 8

/* The parent of process PID, or -1 when it is gone. */
static pid_t parent_of(pid_t pid)
{
	char path[64], stat[512];
	const char *close_paren;
	ssize_t n;
	int fd, parent;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, stat, sizeof stat - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	stat[n] = '\0';
	/* "pid (name) state ppid ...": the name may hold anything. */
	close_paren = strrchr(stat, ')');
	if (close_paren == NULL ||
	    sscanf(close_paren + 1, " %*c %d", &parent) != 1)
		return -1;
	return parent;
}

bool wrap_sender_in_tree(pid_t sender)
{
	/* A process of the chain that ends while it is read has handed its
	 * children to memprof-wrap (a subreaper) by then: the walk starts
	 * again from the sender, whose parent has changed. */
	for (int walk = 0; walk < WALKS_MAX; walk++) {
		pid_t pid = sender;

		for (int depth = 0; pid > 1 && pid != getpid() &&
				    depth < TREE_DEPTH_MAX;
		     depth++)
			pid = parent_of(pid);
		if (pid != -1)
			return pid == getpid();
	}
	return false;
}

bool wrap_sender_heard(const struct ucred *sender)
{
	if (sender->pid <= 0)
		return false;
	if (wrap_sender_in_tree(sender->pid))
		return true;
	/* Ended, perhaps while its tree was walked: the key vouches for it. */
	return kill(sender->pid, 0) != 0 && errno == ESRCH;
}
