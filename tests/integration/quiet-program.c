/* quiet-program - a program that stops allocating, for the tests of
 * memprof-ctl's requests to such processes.
 *
 * Usage: quiet-program LIVE_KIB [own|block]
 * Holds LIVE_KIB KiB in blocks of 16 KiB, says so on stdout ("holding N
 * bytes"), then only reads its standard input, allocating nothing, until
 * the input ends; then prints "SIGURG N" (how many times its own handler
 * ran) and exits 0.  With "own", it handles SIGURG itself (set with
 * signal(), and checked to read back with sigaction()), as a program that
 * uses out-of-band data does.  With "block", it blocks SIGURG, so that
 * requests can reach it only when it allocates.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (16 * 1024)

static volatile sig_atomic_t urgent;

static void on_urgent(int signal)
{
	(void)signal;
	urgent++;
}

static int handle_urgent(void)
{
	struct sigaction now;

	if (signal(SIGURG, on_urgent) == SIG_ERR ||
	    sigaction(SIGURG, NULL, &now) < 0 ||
	    now.sa_handler != on_urgent) {
		fprintf(stderr, "quiet-program: SIGURG's action does not read "
			"back as set\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	size_t blocks;
	char byte;

	const char *mode = argc > 2 ? argv[2] : "";
	sigset_t urgent_only;

	if (argc < 2 || (mode[0] && strcmp(mode, "own") && strcmp(mode, "block"))) {
		fprintf(stderr, "usage: quiet-program LIVE_KIB [own|block]\n");
		return 2;
	}
	if (!strcmp(mode, "own") && handle_urgent() < 0)
		return 1;
	sigemptyset(&urgent_only);
	sigaddset(&urgent_only, SIGURG);
	if (!strcmp(mode, "block"))
		sigprocmask(SIG_BLOCK, &urgent_only, NULL);
	blocks = strtoul(argv[1], NULL, 10) * 1024 / BLOCK;
	for (size_t i = 0; i < blocks; i++) {
		char *p = malloc(BLOCK);

		if (!p)
			return 1;
		memset(p, 1, BLOCK);
	}
	printf("holding %zu bytes\n", blocks * BLOCK);
	fflush(stdout);
	for (;;) {
		ssize_t n = read(0, &byte, 1);

		if (n == 0)
			break;
		if (n < 0 && errno != EINTR)
			return 1;
	}
	printf("SIGURG %d\n", (int)urgent);
	return 0;
}
