/* print-argv.c - test helper: print each argument on its own line, so a
 * test can see exactly what memprof-wrap passed on. */
#include <stdio.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		printf("%s\n", argv[i]);
	return 0;
}
