/* ctl-serve-limits.h - how many requests memprof-ctl serve works on at
 * once: in all, and for one client.
 *
 * Contract: a request takes a slot before its work and gives it back
 * after.  ctl_serve_limits_take() refuses one with 503 when `total`
 * requests are under way, and with 429 when its client (by the name
 * ctl_serve_identify() gave: an account, a local user, or the address of
 * an unknown client) has `per_client` of them; then the request is to be
 * answered so (with Retry-After), not dropped.  Thread-safe.
 */
#ifndef SPPROF_CTL_SERVE_LIMITS_H
#define SPPROF_CTL_SERVE_LIMITS_H

#include <pthread.h>
#include <stddef.h>

struct ctl_serve_slot {
	char client[320]; /* "" when free */
	unsigned requests;
};

struct ctl_serve_limits {
	pthread_mutex_t lock;
	unsigned total, per_client;
	unsigned under_way;
	struct ctl_serve_slot *clients; /* total of them */
};

enum { CTL_SERVE_TOO_MANY = 429, CTL_SERVE_BUSY = 503 };

/* 0, or -1 out of memory. */
int ctl_serve_limits_init(struct ctl_serve_limits *l, unsigned total,
			  unsigned per_client);
void ctl_serve_limits_destroy(struct ctl_serve_limits *l);

/* 0, CTL_SERVE_BUSY or CTL_SERVE_TOO_MANY. */
unsigned ctl_serve_limits_take(struct ctl_serve_limits *l, const char *client);
void ctl_serve_limits_give(struct ctl_serve_limits *l, const char *client);

#endif /* SPPROF_CTL_SERVE_LIMITS_H */
