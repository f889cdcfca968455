/* allocate.c - test helper: allocate PID_FILE [die | tree | linger]
 * Appends its process id to PID_FILE, then allocates and frees a few tens
 * of MiB in blocks of varied sizes, keeping some alive, so that a profile
 * of it holds samples.
 *   die   end by SIGKILL, so that the profile is never finalised;
 *   tree  first start two more processes that do the same: a forked copy
 *         and an executed one (PID_FILE then gets three lines);
 *   linger  after the allocations, wait until PID_FILE.end exists (a
 *           minute at most), then end normally: the test decides when,
 *           so a busy machine cannot end it early.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

static void allocate(void)
{
	static void *kept[KEPT];

	for (size_t round = 0; round < ROUNDS; round++) {
		size_t size = 64 + (round * 7919) % 16384;
		char *block = malloc(size);

		if (block == NULL)
			exit(2);
		memset(block, (int)round, size);
		free(kept[round % KEPT]);
		kept[round % KEPT] = block;
	}
}

/* Start a forked copy and an executed copy of this program. */
static void start_tree(char **argv)
{
	pid_t forked = fork();
	pid_t executed;
	int status;

	if (forked == 0) {
		record_pid(argv[1]);
		allocate();
		exit(0);
	}
	executed = fork();
	if (executed == 0) {
		execl("/proc/self/exe", argv[0], argv[1], (char *)NULL);
		_exit(127);
	}
	if (forked < 0 || executed < 0 ||
	    waitpid(forked, &status, 0) < 0 || status != 0 ||
	    waitpid(executed, &status, 0) < 0 || status != 0)
		exit(2);
}

static void linger(const char *pid_file)
{
	char end[4096];
	struct stat st;

	snprintf(end, sizeof(end), "%s.end", pid_file);
	for (int tenths = 0; tenths < 600 && stat(end, &st) != 0; tenths++)
		usleep(100000);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "";

	if (argc < 2)
		return 2;
	if (strcmp(mode, "tree") == 0)
		start_tree(argv);
	record_pid(argv[1]);
	allocate();
	if (strcmp(mode, "die") == 0)
		raise(SIGKILL);
	if (strcmp(mode, "linger") == 0)
		linger(argv[1]);
	return 0;
}
