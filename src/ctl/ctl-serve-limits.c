/* ctl-serve-limits.c - requests under way, in all and per client (see
 * ctl-serve-limits.h).  At most `total` requests are under way, so as
 * many rows hold every client that has one. */
#include "config.h"

#include "ctl-serve-limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ctl_serve_limits_init(struct ctl_serve_limits *l, unsigned total,
			  unsigned per_client)
{
	l->total = total;
	l->per_client = per_client;
	l->under_way = 0;
	l->clients = calloc(total, sizeof(*l->clients));
	if (!l->clients)
		return -1;
	pthread_mutex_init(&l->lock, NULL);
	return 0;
}

void ctl_serve_limits_destroy(struct ctl_serve_limits *l)
{
	pthread_mutex_destroy(&l->lock);
	free(l->clients);
}

/* The row of client, or NULL; with a free row in *free_row. */
static struct ctl_serve_slot *row_of(struct ctl_serve_limits *l,
				     const char *client,
				     struct ctl_serve_slot **free_row)
{
	*free_row = NULL;
	for (unsigned i = 0; i < l->total; i++) {
		struct ctl_serve_slot *s = &l->clients[i];

		if (s->requests && strcmp(s->client, client) == 0)
			return s;
		if (!s->requests && !*free_row)
			*free_row = s;
	}
	return NULL;
}

unsigned ctl_serve_limits_take(struct ctl_serve_limits *l, const char *client)
{
	struct ctl_serve_slot *free_row, *row;
	unsigned refusal = 0;

	pthread_mutex_lock(&l->lock);
	row = row_of(l, client, &free_row);
	if (l->under_way >= l->total)
		refusal = CTL_SERVE_BUSY;
	else if (row && row->requests >= l->per_client)
		refusal = CTL_SERVE_TOO_MANY;
	else {
		if (!row) {
			row = free_row;
			snprintf(row->client, sizeof(row->client), "%s", client);
		}
		row->requests++;
		l->under_way++;
	}
	pthread_mutex_unlock(&l->lock);
	return refusal;
}

void ctl_serve_limits_give(struct ctl_serve_limits *l, const char *client)
{
	struct ctl_serve_slot *free_row, *row;

	pthread_mutex_lock(&l->lock);
	row = row_of(l, client, &free_row);
	if (row) {
		row->requests--;
		l->under_way--;
	}
	pthread_mutex_unlock(&l->lock);
}
