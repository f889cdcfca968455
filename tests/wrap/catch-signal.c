/* catch-signal.c - test helper: catch-signal READY_FILE
 * Writes its process id to READY_FILE once its handlers are in place, then
 * waits; when SIGINT, SIGTERM, SIGHUP or SIGQUIT arrives it exits with
 * 100 + the signal number, which tells the test which signal reached it. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static void leave(int number)
{
	_exit(100 + number);
}

int main(int argc, char **argv)
{
	static const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	FILE *ready;

	if (argc != 2)
		return 2;
	for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
		signal(caught[i], leave);
	ready = fopen(argv[1], "w");
	if (ready == NULL || fprintf(ready, "%ld\n", (long)getpid()) < 0 ||
	    fclose(ready) != 0)
		return 2;
	for (;;)
		pause();
}
