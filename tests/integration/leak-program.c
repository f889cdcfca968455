/* leak-program - a long-running program with a known heap and a site
 * that leaks, for the Prometheus test of memprof-ctl serve.
 *
 * Usage: leak-program HOLD_KIB LEAK_KIB STEPS STOP_FILE
 * hold_steady holds HOLD_KIB KiB from the start; then, every 100 ms for
 * STEPS steps, leak_slowly keeps LEAK_KIB KiB more and never frees them.
 * It then says "live N bytes" on stdout (all it holds, in blocks of
 * 16 KiB), allocates nothing more until STOP_FILE exists, and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (16 * 1024)

/* Each site a function of its own name, as the metrics name it. */
#define SITE __attribute__((noinline))

static void nap(long ns)
{
	struct timespec t = { 0, ns };

	nanosleep(&t, NULL);
}

/* Blocks of BLOCK bytes, touched, never freed: the kernel takes them
 * back at exit. */
static size_t keep(size_t kib)
{
	size_t blocks = kib * 1024 / BLOCK;

	for (size_t i = 0; i < blocks; i++) {
		char *p = malloc(BLOCK);

		if (!p)
			exit(1);
		memset(p, 1, BLOCK);
	}
	return blocks * BLOCK;
}

SITE static size_t hold_steady(size_t kib)
{
	return keep(kib);
}

SITE static size_t leak_slowly(size_t kib)
{
	return keep(kib);
}

int main(int argc, char **argv)
{
	size_t live, leak_kib, steps;

	if (argc != 5) {
		fprintf(stderr, "usage: leak-program HOLD_KIB LEAK_KIB STEPS "
				"STOP_FILE\n");
		return 2;
	}
	leak_kib = strtoul(argv[2], NULL, 10);
	steps = strtoul(argv[3], NULL, 10);
	live = hold_steady(strtoul(argv[1], NULL, 10));
	for (size_t i = 0; i < steps; i++) {
		live += leak_slowly(leak_kib);
		nap(100000000);
	}
	printf("live %zu bytes\n", live);
	fflush(stdout);
	while (access(argv[4], F_OK) != 0)
		nap(20000000);
	return 0;
}
