/* undisturbed.c - a program that would notice a profiler that disturbs it.
 *
 * Usage: undisturbed fds | churn N | hold MIB | exec PROGRAM ARG... |
 *        vanish DIR N
 *   fds     prints the descriptor its first open() gets and the
 *           descriptors it has, closes every descriptor above 2 (as
 *           daemons do), allocates enough for the profile to grow, then
 *           writes and reads back a file of its own
 *   churn   allocates and frees N blocks, printing a checksum
 *   hold    keeps MIB blocks of 1 MiB live, says "ready" on stdout, and
 *           waits to be killed
 *   exec    keeps 8 blocks of 1 MiB live and execs PROGRAM
 *   vanish  churns, removes directory DIR and everything in it (where
 *           the profile is being written), and churns on
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MIB (1u << 20)

static void list_descriptors(const char *when)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int self = dirfd(d);

	printf("%s:", when);
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && atoi(e->d_name) != self)
			printf(" %s", e->d_name);
	printf("\n");
	closedir(d);
}

static unsigned long churn(long n)
{
	unsigned long sum = 0;

	for (long i = 0; i < n; i++) {
		unsigned char *p = malloc(64 + (size_t)(i % 4000));

		p[0] = (unsigned char)i;
		/* Keeps the compiler from eliding the malloc/free pair. */
		__asm__ volatile("" : : "r"(p) : "memory");
		sum += p[0];
		free(p);
	}
	return sum;
}

static int descriptors(void)
{
	int fd = open("/dev/null", O_RDONLY);
	char text[64] = "";
	FILE *f;

	printf("first open: %d\n", fd);
	list_descriptors("open");
	syscall(SYS_close_range, 3u, ~0u, 0u);
	printf("churn: %lu\n", churn(200000));
	f = fopen("undisturbed.out", "w+");
	if (!f || fprintf(f, "own data\n") < 0 || fseek(f, 0, SEEK_SET) ||
	    !fgets(text, sizeof(text), f))
		return 1;
	printf("read back: %s", text);
	list_descriptors("with own file");
	return fclose(f) != 0;
}

static int remove_directory(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	return rmdir(dir);
}

static int vanish(const char *dir, long n)
{
	printf("churn: %lu\n", churn(n));
	if (remove_directory(dir) < 0) {
		perror(dir);
		return 1;
	}
	printf("churn: %lu\n", churn(n));
	return 0;
}

static void hold(long mib)
{
	for (long i = 0; i < mib; i++)
		memset(malloc(MIB), 1, 4096);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "fds"))
		return descriptors();
	if (argc == 3 && !strcmp(argv[1], "churn")) {
		printf("churn: %lu\n", churn(atol(argv[2])));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "hold"))
		hold(atol(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "vanish"))
		return vanish(argv[2], atol(argv[3]));
	if (argc >= 3 && !strcmp(argv[1], "exec")) {
		for (int i = 0; i < 8; i++)
			memset(malloc(MIB), 1, 4096);
		fflush(stdout);
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	}
	fprintf(stderr, "usage: undisturbed fds | churn N | hold MIB | "
			"exec PROGRAM ARG... | vanish DIR N\n");
	return 2;
}
