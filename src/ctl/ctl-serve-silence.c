/* ctl-serve-silence.c - connections past their client's share, closed
 * after a few seconds of silence (see ctl-serve-silence.h). */
#include "ctl-serve-silence.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

/* How often the watcher looks. */
#define LOOK_EVERY_MS 250

struct ctl_silent {
	int fd;
	bool asking;
	uint64_t silent_since_ms;
	struct ctl_silent *prev, *next;
};

struct ctl_silence {
	pthread_mutex_t lock;
	pthread_cond_t stopping;
	bool stop;
	uint64_t allowed_ms;
	struct ctl_silent *watched;
	pthread_t watcher;
};

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static void *watch(void *arg)
{
	struct ctl_silence *s = arg;
	struct timespec until;

	pthread_mutex_lock(&s->lock);
	while (!s->stop) {
		uint64_t now = now_ms();

		for (struct ctl_silent *c = s->watched; c; c = c->next)
			if (!c->asking && now - c->silent_since_ms >= s->allowed_ms)
				shutdown(c->fd, SHUT_RDWR);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += LOOK_EVERY_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&s->stopping, &s->lock, &until);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct ctl_silence *ctl_silence_start(unsigned seconds)
{
	struct ctl_silence *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->stopping, NULL);
	s->allowed_ms = (uint64_t)seconds * 1000;
	if (pthread_create(&s->watcher, NULL, watch, s) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

void ctl_silence_stop(struct ctl_silence *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->stopping);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->watcher, NULL);
	while (s->watched)
		ctl_silence_forget(s, s->watched);
	free(s);
}

struct ctl_silent *ctl_silence_watch(struct ctl_silence *s, int fd)
{
	struct ctl_silent *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->fd = fd;
	c->silent_since_ms = now_ms();
	pthread_mutex_lock(&s->lock);
	c->next = s->watched;
	if (c->next)
		c->next->prev = c;
	s->watched = c;
	pthread_mutex_unlock(&s->lock);
	return c;
}

void ctl_silence_asking(struct ctl_silence *s, struct ctl_silent *c,
			bool asking)
{
	pthread_mutex_lock(&s->lock);
	c->asking = asking;
	c->silent_since_ms = now_ms();
	pthread_mutex_unlock(&s->lock);
}

void ctl_silence_forget(struct ctl_silence *s, struct ctl_silent *c)
{
	pthread_mutex_lock(&s->lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		s->watched = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&s->lock);
	free(c);
}
