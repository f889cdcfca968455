/* attach-program - a program started without the runtime, for attach.sh.
 *
 * Usage: attach-program GO_FILE STOP_FILE
 * Allocates blocks of many sizes and alignments (4 KiB and larger among
 * them), says "ready", and allocates and frees on every thread, each
 * thread signalling the main one (SIGUSR1, handled) every pass, until
 * GO_FILE exists (the runtime is attached meanwhile).  Then it reallocs
 * and frees those earlier blocks, checking their bytes, holds 8 MiB from
 * hold_after_attach(), and churns on until STOP_FILE exists; says how
 * many early blocks it gave back and "done", and exits 0.
 */
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define THREADS 4
#define HELD_BLOCKS 512
#define HELD_BLOCK (16 * 1024)

static const size_t sizes[] = { 1,     24,    100,   4095,	4096,
				4097,  16384, 65536, 100000, 1 << 20,
				3 << 20 };
enum { KINDS = 5 };
#define EARLY (sizeof(sizes) / sizeof(sizes[0]) * KINDS)

static void *early[EARLY];
static size_t early_size[EARLY];
static volatile int stopping;
static volatile sig_atomic_t signals_taken;
static pthread_t main_thread;

/* The signals arrive while a debugger stops the process and calls into
 * it: they must reach the program as they would without one. */
static void take_signal(int signal)
{
	(void)signal;
	signals_taken++;
}

static void nap(long ns)
{
	struct timespec t = { 0, ns };

	nanosleep(&t, NULL);
}

static int exists(const char *file)
{
	return access(file, F_OK) == 0;
}

static void *allocate(int kind, size_t size)
{
	void *p = NULL;

	switch (kind) {
	case 0: return malloc(size);
	case 1: return calloc(1, size);
	case 2: return memalign(4096, size);
	case 3: return aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	default: return posix_memalign(&p, 65536, size) ? NULL : p;
	}
}

static void allocate_early(void)
{
	for (size_t i = 0; i < EARLY; i++) {
		early_size[i] = sizes[i / KINDS];
		early[i] = allocate((int)(i % KINDS), early_size[i]);
		if (!early[i])
			exit(3);
		memset(early[i], (int)(i & 0xff), early_size[i]);
	}
}

/* Every other block through realloc first; all bytes as written. */
static size_t give_back_early(void)
{
	for (size_t i = 0; i < EARLY; i++) {
		unsigned char *p = early[i];

		if (p[0] != (i & 0xff) || p[early_size[i] - 1] != (i & 0xff))
			exit(4);
		if (i % 2 && !(p = realloc(p, early_size[i] * 2)))
			exit(5);
		if (p[early_size[i] - 1] != (i & 0xff))
			exit(6);
		free(p);
	}
	return EARLY;
}

static void *__attribute__((noinline)) churn(void *arg)
{
	(void)arg;
	while (!stopping) {
		for (int i = 0; i < 64; i++) {
			char *p = malloc(256 + (size_t)i * 96);

			if (p)
				memset(p, i, 16);
			free(p);
		}
		pthread_kill(main_thread, SIGUSR1);
		nap(100000);
	}
	return NULL;
}

static void *__attribute__((noinline)) hold_after_attach(void **held)
{
	for (int i = 0; i < HELD_BLOCKS; i++)
		if (!(held[i] = malloc(HELD_BLOCK)))
			exit(7);
		else
			memset(held[i], 1, HELD_BLOCK);
	return held;
}

int main(int argc, char **argv)
{
	static void *held[HELD_BLOCKS];
	pthread_t threads[THREADS];
	size_t given_back;

	if (argc != 3)
		return 2;
	main_thread = pthread_self();
	sigaction(SIGUSR1, &(struct sigaction){ .sa_handler = take_signal,
						.sa_flags = SA_RESTART },
		  NULL);
	allocate_early();
	for (int i = 0; i < THREADS; i++)
		pthread_create(&threads[i], NULL, churn, NULL);
	printf("ready\n");
	fflush(stdout);
	while (!exists(argv[1]))
		nap(10000000);
	given_back = give_back_early();
	hold_after_attach(held);
	while (!exists(argv[2]))
		nap(10000000);
	stopping = 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(threads[i], NULL);
	for (int i = 0; i < HELD_BLOCKS; i++)
		free(held[i]);
	if (!signals_taken)
		return 8;
	printf("gave back %zu early blocks\ndone\n", given_back);
	return 0;
}
