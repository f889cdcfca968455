/* print-env.c - test helper: print "NAME=value" for each NAME given, or
 * "NAME unset", so a test can see the environment memprof-wrap set up. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *value = getenv(argv[i]);

		if (value != NULL)
			printf("%s=%s\n", argv[i], value);
		else
			printf("%s unset\n", argv[i]);
	}
	return 0;
}
