/* stream-grower - a program whose streamed profile reaches a given size,
 * then gains a given number of events when asked, for serve-bench.sh.
 *
 * Usage: stream-grower PAIRS MORE_PAIRS GO_FILE STOP_FILE
 * Run with every allocation sampled (SPPROF_SAMPLING_RATE=1): PAIRS
 * times, a block is allocated and freed (an ALLOC and a FREE event), a
 * few of them kept so that the heap has live blocks; then it says
 * "ready" on stdout and allocates nothing until GO_FILE exists, when it
 * makes MORE_PAIRS pairs more and says "more"; it ends when STOP_FILE
 * exists (or after 600 s of waiting).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One block in KEEP_EVERY stays live, until the next one replaces it in
 * a ring of KEPT: a live heap of a few thousand blocks. */
#define KEEP_EVERY 64
#define KEPT 4096

static void *kept[KEPT];

static void churn(unsigned long pairs, unsigned long *made)
{
	for (unsigned long i = 0; i < pairs; i++, (*made)++) {
		char *p = malloc(64 + (*made % 7) * 16);

		if (!p)
			exit(1);
		p[0] = 1;
		if (*made % KEEP_EVERY == 0) {
			free(kept[(*made / KEEP_EVERY) % KEPT]);
			kept[(*made / KEEP_EVERY) % KEPT] = p;
		} else {
			free(p);
		}
	}
}

/* Until path exists: 0, or -1 after 600 s. */
static int wait_for(const char *path)
{
	struct timespec tick = { 0, 20000000 };

	for (int ticks = 0; ticks < 30000; ticks++) {
		if (access(path, F_OK) == 0)
			return 0;
		nanosleep(&tick, NULL);
	}
	return -1;
}

/* Not stdio, whose buffer would be a block of the heap. */
static void say(const char *line)
{
	if (write(STDOUT_FILENO, line, strlen(line)) < 0)
		exit(1);
}

int main(int argc, char **argv)
{
	unsigned long made = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: stream-grower PAIRS MORE_PAIRS GO_FILE "
				"STOP_FILE\n");
		return 2;
	}
	churn(strtoul(argv[1], NULL, 10), &made);
	say("ready\n");
	if (wait_for(argv[3]) < 0)
		return 1;
	churn(strtoul(argv[2], NULL, 10), &made);
	say("more\n");
	return wait_for(argv[4]) < 0;
}
