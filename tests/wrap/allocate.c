/* allocate.c - test helper: allocate [--die] [PID_FILE]
 * Allocates and frees a few tens of MiB in blocks of varied sizes, keeping
 * some alive, so that a profile of it holds samples.  Appends its process
 * id to PID_FILE when given.  With --die it ends by SIGKILL, so its
 * profile is never finalised. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 4096
#define KEPT 64

static void record_pid(const char *path)
{
	FILE *file = fopen(path, "a");

	if (file == NULL || fprintf(file, "%ld\n", (long)getpid()) < 0 ||
	    fclose(file) != 0) {
		perror(path);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	static void *kept[KEPT];
	int die = argc > 1 && strcmp(argv[1], "--die") == 0;

	if (argc > 1 + die)
		record_pid(argv[1 + die]);
	for (size_t round = 0; round < ROUNDS; round++) {
		size_t size = 64 + (round * 7919) % 16384;
		char *block = malloc(size);

		if (block == NULL)
			return 2;
		memset(block, (int)round, size);
		free(kept[round % KEPT]);
		kept[round % KEPT] = block;
	}
	if (die)
		raise(SIGKILL);
	return 0;
}
