/* ctl-serve.h - memprof-ctl serve: one read-only HTTP endpoint for the
 * profiled processes of this host, for the collectors that scrape Go
 * programs (Parca, Grafana Alloy) and for Prometheus.
 *
 * Contract: ctl_serve() listens on o->listen and answers GET and HEAD
 * only, by the table of routes in ctl-serve-request.c:
 *   /, /debug/pprof/          the index (ctl-serve-index.h)
 *   /debug/pprof/heap?pid=N   the gzip pprof of a recording process
 *   /debug/pprof/allocs?pid=N the same (ctl-serve-profile.h);
 *                             &seconds=S: what changed in S seconds
 *   /debug/pprof/heap?service=NAME  the processes of a service merged
 *                             (ctl-service.h)
 *   /metrics                  the Prometheus exposition (ctl-metrics.h);
 *                             ?service=NAME: of one service
 *   /targets                  a target per service, for Prometheus' HTTP
 *                             service discovery (ctl-serve-targets.h)
 * The processes are those `memprof-ctl list` shows that both the server's
 * user and the client may read (ctl-serve-auth.h: by the credentials the
 * web configuration o->web_config_file accepts, else on loopback by the
 * owner of the client's socket; an unknown client sees an empty index and
 * is refused data).  Every refusal is a 4xx (5xx for a failure of ours)
 * with one line saying why.  Each connection has its own thread, so a
 * slow client or a long ?seconds= holds only its own; at most
 * o->max_connections requests are under way (more get 503), at most
 * o->max_per_client of one client (more get 429), both with Retry-After;
 * connections are accepted up to CTL_SERVE_CONNECTION_CAP times
 * o->max_connections, so that the surplus is answered, not reset.  A
 * connection silent for o->timeout seconds is closed, one past
 * CTL_SERVE_CONNECTION_SHARE times o->max_per_client of its client after
 * two seconds; a request whose client hangs up is abandoned.  With a web configuration that has
 * tls_server_config, it speaks HTTPS only.
 * Prints the address it listens on, serves until SIGTERM or SIGINT and
 * returns the exit status: 0 then, 1 when it cannot listen or its web
 * configuration is refused, 2 when o->listen is no address.
 */
#ifndef SPPROF_CTL_SERVE_H
#define SPPROF_CTL_SERVE_H

#include "ctl-metrics.h"

#define CTL_SERVE_DEFAULT_LISTEN "127.0.0.1:6064"
/* Connections accepted, as a multiple of max_connections. */
#define CTL_SERVE_CONNECTION_CAP 4
/* A client's share of them, as a multiple of max_per_client. */
#define CTL_SERVE_CONNECTION_SHARE 2

struct ctl_serve_options {
	const char *listen; /* ADDR:PORT, [IPv6]:PORT; port 0: any free one */
	const char *web_config_file; /* NULL: none */
	unsigned max_connections;
	unsigned max_per_client;
	unsigned timeout;
	struct ctl_metrics_options metrics;
};

int ctl_serve(const struct ctl_serve_options *o);

#endif /* SPPROF_CTL_SERVE_H */
