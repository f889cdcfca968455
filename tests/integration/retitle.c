/* retitle.c - test helper: retitle TITLE ARG...
 * Does what servers do to show what a process is doing in ps(1): writes
 * TITLE over its own arguments (argv[0] onwards, the rest zeroed), then
 * allocates a little and exits.  The arguments after TITLE are there to
 * be overwritten.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	char title[256];
	char *start = argv[0], *end = argv[argc - 1] + strlen(argv[argc - 1]);
	void *kept;

	if (argc < 2 || strlen(argv[1]) >= sizeof title) {
		fprintf(stderr, "usage: retitle TITLE ARG...\n");
		return 2;
	}
	strcpy(title, argv[1]);
	memset(start, 0, (size_t)(end - start));
	memcpy(start, title, strlen(title) < (size_t)(end - start)
				     ? strlen(title)
				     : (size_t)(end - start));
	kept = malloc(1 << 20);
	memset(kept, 1, 1 << 20);
	free(kept);
	return 0;
}
