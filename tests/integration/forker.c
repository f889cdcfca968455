/* forker.c - a process tree for the fork and exec tests.
 *
 * Without arguments the program allocates, starts one child of each kind,
 * waits for them, allocates again and exits normally.  It prints one line
 * "ROLE PID" per process:
 *   parent  itself
 *   exit    a child that allocates and returns from main (two of them)
 *   _exit   a child that allocates and ends with _exit(), skipping exit handlers
 *   sh      a child that execs /bin/sh -c true
 *   exec    a child that execs this program with the argument "leaf"
 * Every process that allocates frees some blocks inherited from its
 * parent, too.  "forker leaf" allocates and exits; "forker squat PATH"
 * allocates, then creates PATH - the name its profile is meant to take -
 * before it exits.  Exits 1 when a child fails.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLOCKS 512
#define MAX_CHILDREN 8

static void *blocks[BLOCKS];

/* About 2 MiB in blocks of up to 8 KiB, half of them freed again (some
 * of those the parent's). */
static void allocate_some(unsigned seed)
{
	for (unsigned i = 0; i < BLOCKS; i++) {
		size_t size = 1 + (i * 2654435761u + seed) % 8192;

		if (i % 2)
			free(blocks[i]);
		blocks[i] = malloc(size);
		if (!blocks[i]) {
			perror("forker: malloc");
			exit(1);
		}
		memset(blocks[i], (int)i, size);
	}
	for (unsigned i = 0; i < BLOCKS; i += 2) {
		free(blocks[i]);
		blocks[i] = NULL;
	}
}

static pid_t start_child(const char *role, char *self, int kind)
{
	pid_t pid;

	fflush(stdout); /* else the child would print our buffer again */
	pid = fork();
	if (pid < 0) {
		perror("forker: fork");
		exit(1);
	}
	if (pid > 0) {
		printf("%s %ld\n", role, (long)pid);
		return pid;
	}
	switch (kind) {
	case 'e':
		allocate_some((unsigned)getpid());
		exit(0);
	case '_':
		allocate_some((unsigned)getpid());
		_exit(0);
	case 's':
		execl("/bin/sh", "sh", "-c", "true", (char *)NULL);
		break;
	case 'x':
		execl("/proc/self/exe", self, "leaf", (char *)NULL);
		break;
	}
	perror("forker: exec");
	_exit(127);
}

static int wait_for(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "forker: child %ld failed\n", (long)pid);
		return 1;
	}
	return 0;
}

static int squat(const char *path)
{
	FILE *f;

	allocate_some(7);
	f = fopen(path, "wx");
	if (!f || fprintf(f, "squatter %ld\n", (long)getpid()) < 0 ||
	    fclose(f) != 0) {
		perror(path);
		return 1;
	}
	allocate_some(11);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *role;
		int kind;
	} children[] = { { "exit", 'e' }, { "exit", 'e' }, { "_exit", '_' },
			 { "sh", 's' },   { "exec", 'x' } };
	pid_t pids[MAX_CHILDREN];
	size_t n = sizeof(children) / sizeof(children[0]);
	int failed = 0;

	if (argc == 2 && !strcmp(argv[1], "leaf")) {
		allocate_some(3);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "squat"))
		return squat(argv[2]);
	printf("parent %ld\n", (long)getpid());
	allocate_some(1);
	for (size_t i = 0; i < n; i++)
		pids[i] = start_child(children[i].role, argv[0],
				      children[i].kind);
	for (size_t i = 0; i < n; i++)
		failed |= wait_for(pids[i]);
	allocate_some(2);
	return failed;
}
