/* pool.c - a pool allocator that reports its blocks to spprof-mem.
 *
 * The pool carves blocks of one size out of 1 MiB chunks it takes from
 * malloc(), and keeps the blocks given back on a free list, so malloc()
 * sees its chunks and never its blocks.  It reports each block through
 * <spprof/memprof-pool.h>, and each chunk with memprof_pool_chunk(), so
 * that a profile charges the blocks to the code that asked for them and
 * counts their bytes once.  The same binary runs with or without the
 * runtime:
 *
 *   cc -O2 -g -o pool pool.c $(pkg-config --cflags --libs spprof-alloc-api)
 *   ./pool                                  # prints what it holds
 *   memprof-wrap -o pool.mlyze ./pool       # the same, profiled
 *   memprof-report --at end pool.mlyze      # make_nodes, make_names...
 *
 * With --show-chunks it does not mark its chunks, and the profile counts
 * both the chunks and the blocks carved from them.
 */
#include <spprof/memprof-pool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES ((size_t)1 << 20)

static size_t chunk_bytes; /* taken from malloc() by all pools */

struct free_block {
	struct free_block *next;
};

struct pool {
	size_t block_size;
	char *next, *end;	   /* the part of the newest chunk not carved */
	struct free_block *freed; /* blocks given back */
	int mark_chunks;
};

static void pool_init(struct pool *pool, size_t block_size, int mark_chunks)
{
	*pool = (struct pool){
		/* Room for the free list's link, and aligned for any use. */
		.block_size = (block_size + 15) & ~(size_t)15,
		.mark_chunks = mark_chunks,
	};
}

/* A chunk is kept until the program ends, as its blocks are. */
static int pool_grow(struct pool *pool)
{
	char *chunk = malloc(CHUNK_BYTES);

	if (!chunk)
		return -1;
	if (pool->mark_chunks)
		memprof_pool_chunk(chunk);
	chunk_bytes += CHUNK_BYTES;
	pool->next = chunk;
	pool->end = chunk + CHUNK_BYTES;
	return 0;
}

/* size: what the caller asked for, at most the pool's block size; the
 * profile counts that (as it counts what malloc() was asked for). */
static void *pool_alloc(struct pool *pool, size_t size)
{
	void *block;

	if (pool->freed) {
		block = pool->freed;
		pool->freed = pool->freed->next;
	} else {
		if ((size_t)(pool->end - pool->next) < pool->block_size &&
		    pool_grow(pool) < 0)
			return NULL;
		block = pool->next;
		pool->next += pool->block_size;
	}
	memprof_pool_alloc(block, size);
	return block;
}

static void pool_free(struct pool *pool, void *block)
{
	struct free_block *f = block;

	memprof_pool_free(block);
	f->next = pool->freed;
	pool->freed = f;
}

/* The program: three callers keep what they take, a fourth gives it all
 * back.  Each prints the bytes it still holds. */

#define NODE_BYTES 40
#define NAME_BYTES_MAX 200
#define BUFFER_BYTES 4000

static struct pool small, medium, large;

struct node {
	struct node *next;
	char payload[NODE_BYTES - sizeof(struct node *)];
};

static struct node *nodes;

static size_t make_nodes(size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct node *node = pool_alloc(&small, sizeof(*node));

		if (!node)
			exit(1);
		node->next = nodes;
		nodes = node;
	}
	return n * sizeof(struct node);
}

static size_t make_names(size_t n)
{
	size_t held = 0;

	for (size_t i = 0; i < n; i++) {
		size_t bytes = 16 + (i * 7919) % (NAME_BYTES_MAX - 16);
		char *name = pool_alloc(&medium, bytes);

		if (!name)
			exit(1);
		memset(name, 'a', bytes);
		held += bytes;
	}
	return held;
}

static size_t make_buffers(size_t n)
{
	size_t held = 0;

	while (held < n * BUFFER_BYTES) {
		unsigned char *buffer = pool_alloc(&large, BUFFER_BYTES);

		if (!buffer)
			exit(1);
		buffer[0] = (unsigned char)held;
		held += BUFFER_BYTES;
	}
	return held;
}

static size_t churn(size_t n)
{
	void **blocks = malloc(n * sizeof(*blocks));

	if (!blocks)
		exit(1);
	for (size_t round = 0; round < 4; round++) {
		for (size_t i = 0; i < n; i++)
			if (!(blocks[i] = pool_alloc(&small, NODE_BYTES)))
				exit(1);
		for (size_t i = 0; i < n; i++)
			pool_free(&small, blocks[i]);
	}
	free(blocks);
	return 0;
}

int main(int argc, char **argv)
{
	int mark_chunks = !(argc > 1 && strcmp(argv[1], "--show-chunks") == 0);

	pool_init(&small, NODE_BYTES, mark_chunks);
	pool_init(&medium, NAME_BYTES_MAX, mark_chunks);
	pool_init(&large, BUFFER_BYTES, mark_chunks);
	printf("churn %zu\n", churn(200000));
	printf("make_nodes %zu\n", make_nodes(400000));
	printf("make_names %zu\n", make_names(100000));
	printf("make_buffers %zu\n", make_buffers(4000));
	printf("chunk_bytes %zu\n", chunk_bytes);
	return 0; /* the profile ends with the pools' blocks held */
}
