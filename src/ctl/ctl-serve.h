/* ctl-serve.h - memprof-ctl serve: one read-only HTTP endpoint for the
 * profiled processes of this host, for the collectors that scrape Go
 * programs (Parca, Grafana Alloy) and for Prometheus.
 *
 * Contract: ctl_serve() listens on o->listen and answers GET and HEAD
 * only, by the table of routes in ctl-serve.c:
 *   /, /debug/pprof/          the index (ctl-serve-index.h)
 *   /debug/pprof/heap?pid=N   the gzip pprof of a recording process
 *   /debug/pprof/allocs?pid=N the same (ctl-serve-profile.h);
 *                             &seconds=S: what changed in S seconds
 *   /metrics                  the Prometheus exposition (ctl-metrics.h)
 * The processes are those `memprof-ctl list` shows that the server's user
 * may read: all of them as root, else only its own user's; a request for
 * another's is refused with 403.  Every refusal is a 4xx (5xx for a
 * failure of ours) with one line saying why.  Each connection has its
 * own thread, so a slow client or a long ?seconds= holds only its own;
 * there are at most o->max_connections of them, o->max_per_client from
 * one address, and a connection silent for o->timeout seconds is closed.
 * Prints the address it listens on, serves until SIGTERM or SIGINT and
 * returns the exit status: 0 then, 1 when it cannot listen, 2 when
 * o->listen is no address.
 */
#ifndef SPPROF_CTL_SERVE_H
#define SPPROF_CTL_SERVE_H

#include "ctl-metrics.h"

#define CTL_SERVE_DEFAULT_LISTEN "127.0.0.1:6064"
#define CTL_SERVE_MAX_SECONDS 300 /* of ?seconds= */

struct ctl_serve_options {
	const char *listen; /* ADDR:PORT, [IPv6]:PORT; port 0: any free one */
	unsigned max_connections;
	unsigned max_per_client;
	unsigned timeout;
	struct ctl_metrics_options metrics;
};

int ctl_serve(const struct ctl_serve_options *o);

#endif /* SPPROF_CTL_SERVE_H */
