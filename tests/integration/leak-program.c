/* leak-program - a long-running program with a known heap and a site
 * that leaks, for the Prometheus test of memprof-ctl serve.
 *
 * Usage: leak-program HOLD_KIB LEAK_KIB STEPS STOP_FILE
 * hold_steady holds HOLD_KIB KiB from the start; then, every 100 ms for
 * STEPS steps, leak_slowly keeps LEAK_KIB KiB more and never frees them.
 * It then says "live N bytes" on stdout (all its heap: the blocks of
 * 16 KiB it holds) and allocates nothing more until STOP_FILE exists or
 * 300 s have passed; exits 0.
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

/* The sites: each calls malloc itself (not as a tail call, which would
 * leave no frame), so that it is the site. */
SITE static char *hold_steady(void)
{
	char *p = malloc(BLOCK);

	if (p)
		memset(p, 1, BLOCK);
	return p;
}

SITE static char *leak_slowly(void)
{
	char *p = malloc(BLOCK);

	if (p)
		memset(p, 2, BLOCK);
	return p;
}

/* Blocks of BLOCK bytes from `site`, never freed: the kernel takes them
 * back at exit. */
static size_t keep(size_t kib, char *(*site)(void))
{
	size_t blocks = kib * 1024 / BLOCK;

	for (size_t i = 0; i < blocks; i++)
		if (!site())
			exit(1);
	return blocks * BLOCK;
}

int main(int argc, char **argv)
{
	size_t live, leak_kib, steps;
	char line[64];
	int length;

	if (argc != 5) {
		fprintf(stderr, "usage: leak-program HOLD_KIB LEAK_KIB STEPS "
				"STOP_FILE\n");
		return 2;
	}
	leak_kib = strtoul(argv[2], NULL, 10);
	steps = strtoul(argv[3], NULL, 10);
	live = keep(strtoul(argv[1], NULL, 10), hold_steady);
	for (size_t i = 0; i < steps; i++) {
		live += keep(leak_kib, leak_slowly);
		nap(100000000);
	}
	/* Not stdio, whose buffer would be a block of the heap too. */
	length = snprintf(line, sizeof(line), "live %zu bytes\n", live);
	if (write(STDOUT_FILENO, line, (size_t)length) != length)
		return 1;
	for (int ticks = 0; ticks < 3000 && access(argv[4], F_OK) != 0;
	     ticks++)
		nap(100000000);
	return 0;
}
