/* mapped.c - anonymous mappings beside the malloc heap, of known sizes.
 *
 * "mixed" holds, until it exits, 64 MiB mapped anonymously by
 * map_pages() (256 mappings of 512 KiB whose upper half each is unmapped
 * at once, as allocators that align their chunks do) and 16 MiB
 * allocated through malloc() by fill_heap() (4 KiB blocks, and two
 * blocks of 1 MiB, which the C library maps itself and which must count
 * as heap, not as mappings).  Before that it maps and gives back
 * mappings that must leave nothing: one unmapped in two halves, one
 * moved and grown by mremap(), one replaced by mmap(MAP_FIXED), and a
 * reservation (PROT_NONE), which is never sampled.
 * "malloc-only" allocates 32 MiB in blocks the C library maps, and maps
 * nothing itself.
 * "grown" holds 64 MiB mapped by grow_pages(): 64 mappings of 64 KiB,
 * seldom sampled at that size, each grown to 1 MiB by mremap() (moved
 * where it must); and, grown as well, a mapping of a file and a
 * reservation (PROT_NONE), which hold no memory of the program's.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define KiB ((size_t)1024)
#define MiB (1024 * KiB)

#define MAPPINGS 256
#define MAPPING_BYTES (512 * KiB)
#define HEAP_BLOCKS 3584
#define HEAP_BLOCK_BYTES (4 * KiB)

static void *map_anonymous(size_t bytes, int prot)
{
	void *p = mmap(NULL, bytes, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static void unmap(void *p, size_t bytes)
{
	if (munmap(p, bytes) != 0) {
		perror("munmap");
		exit(1);
	}
}

/* Mappings that leave nothing behind. */
static __attribute__((noinline)) void map_and_give_back(void)
{
	char *halves = map_anonymous(32 * MiB, PROT_READ | PROT_WRITE);
	char *grown = map_anonymous(1 * MiB, PROT_READ | PROT_WRITE);
	char *replaced = map_anonymous(8 * MiB, PROT_READ | PROT_WRITE);
	void *reserved = map_anonymous(256 * MiB, PROT_NONE);

	unmap(halves, 16 * MiB);
	unmap(halves + 16 * MiB, 16 * MiB);
	grown = mremap(grown, 1 * MiB, 8 * MiB, MREMAP_MAYMOVE);
	if (grown == MAP_FAILED) {
		perror("mremap");
		exit(1);
	}
	unmap(grown, 8 * MiB);
	if (mmap(replaced, 8 * MiB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED, -1, 0) == MAP_FAILED) {
		perror("mmap MAP_FIXED");
		exit(1);
	}
	unmap(replaced, 8 * MiB);
	unmap(reserved, 256 * MiB);
}

/* The site of the mappings: mmap() called here. */
static __attribute__((noinline)) void map_pages(void)
{
	for (int i = 0; i < MAPPINGS; i++) {
		char *p = mmap(NULL, MAPPING_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			exit(1);
		}
		unmap(p + MAPPING_BYTES / 2, MAPPING_BYTES / 2);
		memset(p, 1, MAPPING_BYTES / 2); /* resident */
	}
}

static __attribute__((noinline)) void fill_heap(void)
{
	for (int i = 0; i < HEAP_BLOCKS; i++) {
		char *p = malloc(HEAP_BLOCK_BYTES);

		if (!p)
			exit(1);
		memset(p, 1, HEAP_BLOCK_BYTES);
	}
	for (int i = 0; i < 2; i++) {
		char *p = malloc(1 * MiB);

		if (!p)
			exit(1);
		memset(p, 1, 1 * MiB);
	}
}

static __attribute__((noinline)) void hold_large_blocks(void)
{
	for (int i = 0; i < 4; i++)
		if (!malloc(8 * MiB))
			exit(1);
}

#define GROWN_MAPPINGS 64
#define GROWN_FROM (64 * KiB)
#define GROWN_TO (1 * MiB)

static void *grown_or_exit(void *p)
{
	if (p == MAP_FAILED) {
		perror("mremap");
		exit(1);
	}
	return p;
}

/* The site of the grown mappings: mmap() and mremap() called here. */
static __attribute__((noinline)) void grow_pages(void)
{
	for (int i = 0; i < GROWN_MAPPINGS; i++) {
		char *p = mmap(NULL, GROWN_FROM, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			exit(1);
		}
		p = grown_or_exit(mremap(p, GROWN_FROM, GROWN_TO,
					 MREMAP_MAYMOVE));
		memset(p, 1, GROWN_TO); /* resident */
	}
}

/* Grown too, but no memory of the program's: a file, a reservation. */
static __attribute__((noinline)) void grow_others(void)
{
	FILE *f = tmpfile();
	void *p;

	if (!f || ftruncate(fileno(f), 64 * MiB) != 0) {
		perror("tmpfile");
		exit(1);
	}
	for (int i = 0; i < 4; i++) {
		p = mmap(NULL, GROWN_FROM, PROT_READ, MAP_PRIVATE, fileno(f), 0);
		if (p == MAP_FAILED) {
			perror("mmap of a file");
			exit(1);
		}
		grown_or_exit(mremap(p, GROWN_FROM, 16 * MiB, MREMAP_MAYMOVE));
		p = map_anonymous(GROWN_FROM, PROT_NONE);
		grown_or_exit(mremap(p, GROWN_FROM, 16 * MiB, MREMAP_MAYMOVE));
	}
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "mixed") == 0) {
		map_and_give_back();
		map_pages();
		fill_heap();
	} else if (argc == 2 && strcmp(argv[1], "malloc-only") == 0) {
		hold_large_blocks();
	} else if (argc == 2 && strcmp(argv[1], "grown") == 0) {
		grow_pages();
		grow_others();
	} else {
		fputs("usage: mapped mixed|malloc-only|grown\n", stderr);
		return 2;
	}
	return 0;
}
