/* idle-child.c - test helper: a parent that forks a child which writes
 * its process id on stdout and exits without allocating anything (so
 * that it takes no sample); the parent waits for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	pid_t child = fork();
	int status;

	if (child < 0) {
		perror("fork");
		return 2;
	}
	if (child == 0) {
		char line[32];
		int n = snprintf(line, sizeof line, "%ld\n", (long)getpid());

		if (write(STDOUT_FILENO, line, (size_t)n) != n)
			_exit(2);
		exit(0);
	}
	if (waitpid(child, &status, 0) != child)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
