/* drop-privileges.c - test helper: drop-privileges UID GID
 * What a server started as root does with its workers: the parent forks
 * a worker that changes its group and user to GID and UID before it
 * allocates anything, then allocates and frees a few MiB; the parent
 * allocates too and waits for it.  Exit status 0, or 2 when an id cannot
 * be changed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLOCKS 2048

static void allocate(void)
{
	static void *blocks[BLOCKS];

	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < BLOCKS; i++) {
			blocks[i] = malloc(512 + (size_t)i * 8);
			memset(blocks[i], i, 512);
		}
		for (int i = 0; i < BLOCKS; i++)
			free(blocks[i]);
	}
}

int main(int argc, char **argv)
{
	pid_t worker;
	int status;

	if (argc != 3) {
		fprintf(stderr, "usage: drop-privileges UID GID\n");
		return 2;
	}
	worker = fork();
	if (worker < 0) {
		perror("fork");
		return 2;
	}
	if (worker == 0) {
		if (setgid((gid_t)atol(argv[2])) != 0 ||
		    setuid((uid_t)atol(argv[1])) != 0) {
			perror("drop-privileges");
			_exit(2);
		}
		allocate();
		exit(0);
	}
	allocate();
	if (waitpid(worker, &status, 0) != worker)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
