/* handler-allocs.c - a signal handler that frees and allocates while the
 * program churns through its live heap.
 *
 * The main thread keeps LIVE_BLOCKS blocks live, replacing the oldest one
 * ROUNDS * LIVE_BLOCKS times, while a timer interrupts it every
 * TICK_MICROSECONDS; the handler frees the block its previous call
 * allocated and allocates another.  With every block sampled, the
 * runtime's live-block table grows, then is rebuilt every few thousand
 * blocks, and many ticks land inside a rebuild: the handler must not
 * wait for it.  Allocating in a handler is not async-signal-safe; it is
 * made safe here by the C library's per-thread cache: the handler's
 * block is made before the timer starts, so each call frees a 32-byte
 * block into that cache and takes one back from it, never waiting for a
 * lock the interrupted thread may hold.  The main thread's blocks are
 * HANDLER_BLOCK + 96 bytes or more, so that the handler never changes a
 * list of that cache which the interrupted thread was changing.
 *
 * Usage: handler-allocs [ROUNDS]
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#include "runtime-api.h"

#define LIVE_BLOCKS 3000
#define TICK_MICROSECONDS 50
#define HANDLER_BLOCK 32
#define SMALLEST_BLOCK (HANDLER_BLOCK + 96)

static void *handler_block;
static volatile sig_atomic_t handler_calls;

static void free_and_allocate(int sig)
{
	int saved_errno = errno;

	(void)sig;
	free(handler_block);
	handler_block = malloc(HANDLER_BLOCK);
	handler_calls++;
	errno = saved_errno;
}

static int start_ticking(long microseconds)
{
	struct sigaction on_tick = { .sa_handler = free_and_allocate,
				     .sa_flags = SA_RESTART };
	struct itimerval every = { .it_interval.tv_usec = microseconds,
				   .it_value.tv_usec = microseconds };

	return sigaction(SIGALRM, &on_tick, NULL) ||
	       setitimer(ITIMER_REAL, &every, NULL);
}

/* Block i holds its own number, checked when it is freed. */
static void *numbered_block(size_t i)
{
	size_t *block = malloc(SMALLEST_BLOCK + i % 4000);

	if (!block) {
		fputs("handler-allocs: out of memory\n", stderr);
		exit(1);
	}
	*block = i;
	return block;
}

static void free_numbered(size_t *block, size_t i)
{
	if (*block != i) {
		fprintf(stderr, "handler-allocs: block %zu holds %zu\n", i,
			*block);
		exit(1);
	}
	free(block);
}

static void report(void)
{
	struct runtime_api api;
	memprof_stats s;

	printf("handler-allocs: %ld handler calls", (long)handler_calls);
	if (runtime_api_load(&api) == 0 && api.get_stats(&s) == 0)
		printf(", %llu samples, %llu heap map slots",
		       (unsigned long long)s.total_samples,
		       (unsigned long long)s.heap_map_capacity);
	putchar('\n');
}

int main(int argc, char **argv)
{
	static void *live[LIVE_BLOCKS];
	long rounds = argc > 1 ? atol(argv[1]) : 100;

	if (rounds < 1) {
		fputs("Usage: handler-allocs [ROUNDS]\n", stderr);
		return 2;
	}
	handler_block = malloc(HANDLER_BLOCK);
	if (start_ticking(TICK_MICROSECONDS)) {
		perror("handler-allocs: cannot start the timer");
		return 1;
	}
	for (size_t i = 0; i < (size_t)rounds * LIVE_BLOCKS; i++) {
		if (i >= LIVE_BLOCKS)
			free_numbered(live[i % LIVE_BLOCKS], i - LIVE_BLOCKS);
		live[i % LIVE_BLOCKS] = numbered_block(i);
	}
	start_ticking(0);
	for (size_t i = 0; i < LIVE_BLOCKS; i++)
		free(live[i]);
	free(handler_block);
	report();
	return handler_calls ? 0 : 1;
}
