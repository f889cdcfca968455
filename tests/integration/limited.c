/* limited.c - a program that needs most of a tight address-space limit,
 * for limited.sh: it holds 60 MiB at once, in blocks of 1 MiB, prints
 * how much it held and exits with status 0 (1 when malloc failed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS 60
#define BLOCK (1 << 20)

int main(void)
{
	static char *blocks[BLOCKS];
	size_t held = 0;

	for (int i = 0; i < BLOCKS; i++) {
		blocks[i] = malloc(BLOCK);
		if (!blocks[i]) {
			printf("malloc failed after %zu bytes\n", held);
			return 1;
		}
		memset(blocks[i], i, BLOCK);
		held += BLOCK;
	}
	for (int i = 0; i < BLOCKS; i++)
		free(blocks[i]);
	printf("held %zu bytes\n", held);
	return 0;
}
