/* ctl-serve.c - the HTTP side of memprof-ctl serve (see ctl-serve.h),
 * with libmicrohttpd: it learns who the client is, keeps to the limits on
 * requests, connections, their memory and their silence, and answers. */
#include "config.h"

#include "ctl-serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include "compiler.h"
#include "ctl-registry.h"
#include "ctl-serve-auth.h"
#include "ctl-serve-index.h"
#include "ctl-serve-limits.h"
#include "ctl-serve-silence.h"
#include "ctl-serve-profile.h"
#include "ctl-serve-targets.h"
#include "ctl-service.h"
#include "ctl-serve-request.h"
#include "ctl-stream.h"

#define WHY_SIZE 1024
/* Request line and headers past this get 431 from libmicrohttpd. */
#define CONNECTION_MEMORY (16 * 1024)
#define THREAD_STACK (512 * 1024)
/* How long the requests under way may take to end at a stop. */
#define STOP_GRACE_MS 2000
/* When a client refused by a limit may try again. */
#define RETRY_AFTER_SECONDS "5"
/* The silence allowed to a connection past its client's share. */
#define OVERDRAWN_TIMEOUT 2

enum {
	HTTP_OK = 200, HTTP_BAD_REQUEST = 400, HTTP_UNAUTHORIZED = 401,
	HTTP_FORBIDDEN = 403, HTTP_NOT_FOUND = 404,
	HTTP_METHOD_NOT_ALLOWED = 405, HTTP_CONFLICT = 409,
	HTTP_TOO_MANY_REQUESTS = 429, HTTP_INTERNAL_ERROR = 500,
	HTTP_UNAVAILABLE = 503,
};

struct server {
	const struct ctl_serve_options *o;
	const struct ctl_web_config *config; /* NULL: none */
	struct ctl_metrics_options metrics;  /* o->metrics, with the replays
						kept between scrapes */
	struct ctl_serve_limits limits;      /* requests under way */
	struct ctl_serve_limits connections; /* their connections */
	struct ctl_silence *silence;         /* of those past a share */
	/* One request at a time uses the replays (metrics.follow). */
	pthread_mutex_t replaying;
	int stop[2]; /* readable once the server stops */
};

struct request {
	struct server *server;
	struct MHD_Connection *c;
	struct ctl_client client;
	struct ctl_query query;
	char why[WHY_SIZE];
};

/* The headers a refusal carries: how to authenticate, when to retry. */
static const struct refusal_header {
	unsigned status;
	const char *name, *value;
} refusal_headers[] = {
	{ HTTP_UNAUTHORIZED, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
	  "Basic realm=\"memprof-ctl serve\", charset=\"UTF-8\"" },
	{ HTTP_UNAUTHORIZED, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
	  "Bearer realm=\"memprof-ctl serve\"" },
	{ HTTP_TOO_MANY_REQUESTS, MHD_HTTP_HEADER_RETRY_AFTER,
	  RETRY_AFTER_SECONDS },
	{ HTTP_UNAVAILABLE, MHD_HTTP_HEADER_RETRY_AFTER, RETRY_AFTER_SECONDS },
};

/* One line of text, the whole answer to a refusal or a failure. */
static enum MHD_Result reply_line(struct MHD_Connection *c, unsigned status,
				  const char *line)
{
	char text[WHY_SIZE + 2];
	size_t n = (size_t)snprintf(text, sizeof(text), "%s\n", line);
	struct MHD_Response *response = MHD_create_response_from_buffer(
		n < sizeof(text) ? n : sizeof(text) - 1, text,
		MHD_RESPMEM_MUST_COPY);
	enum MHD_Result rc;

	if (!response)
		return MHD_NO;
	/* The client may show only the status: the operator sees why. */
	if (status >= HTTP_INTERNAL_ERROR && status != HTTP_UNAVAILABLE)
		fprintf(stderr, "memprof-ctl serve: %u: %s\n", status, line);
	MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; charset=utf-8");
	for (size_t i = 0; i < ARRAY_SIZE(refusal_headers); i++)
		if (refusal_headers[i].status == status)
			MHD_add_response_header(response,
						refusal_headers[i].name,
						refusal_headers[i].value);
	rc = MHD_queue_response(c, status, response);
	MHD_destroy_response(response);
	return rc;
}

static enum MHD_Result reply(struct MHD_Connection *c,
			     struct MHD_Response *response, const char *type)
{
	enum MHD_Result rc;

	if (!response)
		return reply_line(c, HTTP_INTERNAL_ERROR, "out of memory");
	MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	rc = MHD_queue_response(c, HTTP_OK, response);
	MHD_destroy_response(response);
	return rc;
}

/* The user of process pid, or -1 when it is gone. */
static long user_of(long pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%ld", pid);
	return stat(path, &st) == 0 ? (long)st.st_uid : -1;
}

/* Why the client may not read process pid, or "" when it may.  A client
 * that may not read every process is told the same of a process that is
 * not there: the pids of others are none of its business. */
static void refusal(const struct ctl_client *client, long pid, char *why,
		    size_t size)
{
	long user = user_of(pid);

	why[0] = '\0';
	if (!client->all &&
	    (user < 0 || !ctl_serve_may_read(client, (uid_t)user)))
		snprintf(why, size, "process %ld is not one that %s may read",
			 pid, client->name);
	else if (geteuid() != 0 && user >= 0 && user != (long)geteuid())
		snprintf(why, size, "process %ld belongs to uid %u; this server "
			 "runs as uid %u and serves its own user's processes "
			 "only", pid, (unsigned)user, (unsigned)geteuid());
}

/* Whether process p is one of the service the request asks for (any,
 * when it asks for none). */
static bool of_service(const struct request *r, const struct ctl_process *p)
{
	char service[CTL_SERVICE_SIZE];

	if (!r->query.service[0])
		return true;
	ctl_service_of(p->pid, r->server->o->metrics.service_variable,
		       service, sizeof(service));
	return strcmp(service, r->query.service) == 0;
}

/* The processes of the registry the client of r may read (of the
 * service it asks for), in *procs. */
static int visible_processes(const struct request *r,
			     struct ctl_process **procs, size_t *count,
			     char *why, size_t size)
{
	char refused[WHY_SIZE];
	size_t kept = 0;

	*procs = NULL;
	*count = 0;
	if (!r->client.known)
		return 0;
	if (ctl_registry_list(procs, count, why, size) < 0)
		return -1;
	for (size_t i = 0; i < *count; i++) {
		refusal(&r->client, (*procs)[i].pid, refused, sizeof(refused));
		if (!refused[0] && of_service(r, &(*procs)[i]))
			(*procs)[kept++] = (*procs)[i];
	}
	*count = kept;
	return 0;
}

static int connection_fd(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_CONNECTION_FD);

	return info ? info->connect_fd : -1;
}

/* Whether the client hung up (or shut its side): then no one reads an
 * answer. */
static bool client_gone(const struct request *r)
{
	struct pollfd client = { .fd = connection_fd(r->c),
				 .events = POLLRDHUP };

	return poll(&client, 1, 0) > 0 &&
	       (client.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* The addresses of both ends of connection c: 0, or -1 with errno set. */
static int addresses_of(struct MHD_Connection *c,
			const struct sockaddr **peer,
			struct sockaddr_storage *local)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	socklen_t length = sizeof(*local);

	if (!info) {
		errno = ENOTCONN;
		return -1;
	}
	*peer = info->client_addr;
	return getsockname(connection_fd(c), (struct sockaddr *)local, &length);
}

/* What a render_fn returns for a client that hung up before its page
 * was drawn: no one reads an answer. */
#define RENDER_ABANDONED (-2)

/* Writes a page of the processes; 0, RENDER_ABANDONED, or -1 with why
 * set. */
typedef int render_fn(FILE *out, const struct request *r,
		      const struct ctl_process *procs, size_t count,
		      char *why, size_t size);

/* A page of the visible processes, as render writes it. */
static enum MHD_Result reply_rendered(struct request *r, render_fn *render,
				      const char *type)
{
	struct ctl_process *procs = NULL;
	size_t count = 0, length = 0;
	char *page = NULL;
	FILE *out;
	int rc = visible_processes(r, &procs, &count, r->why,
				   sizeof(r->why));

	if (rc == 0 && (out = open_memstream(&page, &length))) {
		rc = render(out, r, procs, count, r->why, sizeof(r->why));
		rc |= fclose(out);
	} else if (rc == 0) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		rc = -1;
	}
	free(procs);
	if (rc == RENDER_ABANDONED) {
		free(page);
		return MHD_NO; /* the connection is closed */
	}
	if (rc != 0) {
		free(page);
		return reply_line(r->c, HTTP_INTERNAL_ERROR, r->why);
	}
	return reply(r->c, MHD_create_response_from_buffer(
				   length, page, MHD_RESPMEM_MUST_FREE),
		     type);
}

static bool wants_json(const struct request *r)
{
	const char *accept = MHD_lookup_connection_value(
		r->c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);

	return accept && strstr(accept, "application/json");
}

static int render_index(FILE *out, const struct request *r,
			const struct ctl_process *procs, size_t count,
			char *why, size_t size)
{
	if (ctl_serve_index(out, procs, count, wants_json(r)) == 0)
		return 0;
	snprintf(why, size, "cannot write the index");
	return -1;
}

/* The replays kept between requests (ctl-follow.h), for r alone: one
 * request at a time takes them up, and one whose client left while it
 * waited its turn is not drawn for no one (false then). */
static bool take_replays(const struct request *r)
{
	pthread_mutex_lock(&r->server->replaying);
	if (!client_gone(r))
		return true;
	pthread_mutex_unlock(&r->server->replaying);
	return false;
}

/* The memory a request took besides the replays (whose memory is
 * bounded) goes back to the system, so that the server's memory does
 * not grow with the number of requests. */
static void give_replays(const struct request *r)
{
	malloc_trim(0);
	pthread_mutex_unlock(&r->server->replaying);
}

/* The metrics replay every stream in this process, taking up the
 * replays of the last request. */
static int render_metrics(FILE *out, const struct request *r,
			  const struct ctl_process *procs, size_t count,
			  char *why, size_t size)
{
	int rc;

	if (!take_replays(r))
		return RENDER_ABANDONED;
	rc = ctl_metrics_render(out, procs, count, &r->server->metrics, why,
				size);
	give_replays(r);
	return rc;
}

/* HOST:PORT of the server as the client of r reached it. */
static int server_address(const struct request *r, char *text, size_t size)
{
	const struct sockaddr *peer;
	struct sockaddr_storage local;
	const struct sockaddr_in6 *in6 = (const void *)&local;
	const struct sockaddr_in *in = (const void *)&local;
	char host[INET6_ADDRSTRLEN];
	bool v6;

	if (addresses_of(r->c, &peer, &local) < 0)
		return -1;
	v6 = local.ss_family == AF_INET6;
	ctl_serve_address_text((const struct sockaddr *)&local, host,
			       sizeof(host));
	snprintf(text, size, "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "",
		 (unsigned)ntohs(v6 ? in6->sin6_port : in->sin_port));
	return 0;
}

static int render_targets(FILE *out, const struct request *r,
			  const struct ctl_process *procs, size_t count,
			  char *why, size_t size)
{
	char address[INET6_ADDRSTRLEN + 16];

	if (server_address(r, address, sizeof(address)) < 0) {
		snprintf(why, size, "cannot tell the server's address: %s",
			 strerror(errno));
		return -1;
	}
	if (ctl_serve_targets(out, address, procs, count,
			      r->server->o->metrics.service_variable) == 0)
		return 0;
	snprintf(why, size, "cannot write the targets");
	return -1;
}

static enum MHD_Result serve_index(struct request *r)
{
	return reply_rendered(r, render_index,
			      wants_json(r) ? "application/json"
					    : "text/html; charset=utf-8");
}

/* Why a client that no one identified gets no data. */
static enum MHD_Result refuse_unknown(struct request *r)
{
	snprintf(r->why, sizeof(r->why), "%s: who you are is not known; "
		 "connect over loopback, or give the credentials of the "
		 "server's web configuration", r->client.name);
	return reply_line(r->c, HTTP_FORBIDDEN, r->why);
}

/* /targets: Prometheus' HTTP service discovery, a target per service. */
static enum MHD_Result serve_targets(struct request *r)
{
	if (!r->client.known)
		return refuse_unknown(r);
	return reply_rendered(r, render_targets, "application/json");
}

static enum MHD_Result serve_metrics(struct request *r)
{
	if (r->query.pid || r->query.seconds)
		return reply_line(r->c, HTTP_BAD_REQUEST,
				  "/metrics takes service= only");
	if (!r->client.known)
		return refuse_unknown(r);
	return reply_rendered(r, render_metrics,
			      "text/plain; version=0.0.4; charset=utf-8");
}

/* The recording process r asks for, in p, and its stream opened and
 * checked (ctl-stream.h) in *stream; 0, or an HTTP status with r->why
 * set. */
static unsigned find_recording(struct request *r, struct ctl_process *p,
			       int *stream)
{
	struct stat st;

	long pid = r->query.pid;

	refusal(&r->client, pid, r->why, sizeof(r->why));
	if (r->why[0])
		return HTTP_FORBIDDEN;
	if (ctl_registry_find(pid, p, r->why, sizeof(r->why)) < 0)
		return HTTP_NOT_FOUND;
	if (p->page.state != CONTROL_RECORDING || !p->page.part[0]) {
		snprintf(r->why, sizeof(r->why), "process %ld is not recording "
			 "(memprof-ctl start %ld)", pid, pid);
		return HTTP_CONFLICT;
	}
	*stream = ctl_stream_open(p, &st, r->why, sizeof(r->why));
	return *stream < 0 ? HTTP_FORBIDDEN : 0;
}


/* One descriptor that becomes readable when the server stops or the
 * client hangs up (an epoll set of both), for the waits of a profile;
 * -1 with r->why set. */
static int watch_for_the_end(struct request *r)
{
	struct epoll_event stop = { .events = EPOLLIN };
	struct epoll_event client = { .events = EPOLLRDHUP };
	int watch = epoll_create1(EPOLL_CLOEXEC);
	int fd = connection_fd(r->c);

	if (watch < 0 || fd < 0 ||
	    epoll_ctl(watch, EPOLL_CTL_ADD, r->server->stop[0], &stop) < 0 ||
	    epoll_ctl(watch, EPOLL_CTL_ADD, fd, &client) < 0) {
		snprintf(r->why, sizeof(r->why), "cannot watch the connection: "
			 "%s", strerror(errno));
		if (watch >= 0)
			close(watch);
		return -1;
	}
	return watch;
}


/* The recording processes of the service r asks for that its client may
 * read, all of one user (the first's), in *procs (free() it), and their
 * streams opened and checked in streams, *count of them (to close
 * whatever the outcome).  0, or an HTTP status with r->why set. */
static unsigned find_service(struct request *r, struct ctl_process **procs,
			     int *streams, size_t *count)
{
	struct ctl_process *all;
	size_t listed;
	struct stat st;

	*procs = NULL;
	*count = 0;
	if (visible_processes(r, &all, &listed, r->why, sizeof(r->why)) < 0)
		return HTTP_INTERNAL_ERROR;
	*procs = all;
	for (size_t i = 0; i < listed && *count < CTL_SERVE_STREAMS_MAX; i++) {
		if (all[i].uid != all[0].uid) {
			snprintf(r->why, sizeof(r->why), "the processes of "
				 "service %s run as several users: ask for "
				 "each by pid=", r->query.service);
			return HTTP_CONFLICT;
		}
		streams[*count] = ctl_stream_open(&all[i], &st, r->why,
						  sizeof(r->why));
		if (streams[*count] >= 0)
			all[(*count)++] = all[i];
	}
	if (*count)
		return 0;
	snprintf(r->why, sizeof(r->why), "no recording process of service %s "
		 "that %s may read", r->query.service, r->client.name);
	return HTTP_NOT_FOUND;
}

/* The profile of procs, whose streams are open, as r asks for it: a
 * pprof (of a process or of a service) from the replays kept between
 * requests; a difference over ?seconds=, which waits between two
 * readings, or a .mlyze with its symbols, from memprof-report run on the
 * one process's stream (serve_process() refuses service= for them).
 * 0, or an HTTP status with r->why set. */
static unsigned profile_of(struct request *r, enum ctl_profile_format format,
			   const struct ctl_process *procs, const int *streams,
			   size_t count, struct ctl_served_profile *profile)
{
	int end, rc;

	if (format == CTL_PROFILE_PPROF && !r->query.seconds) {
		if (!take_replays(r)) {
			snprintf(r->why, sizeof(r->why), "the client left");
			return HTTP_UNAVAILABLE;
		}
		rc = ctl_serve_followed(r->server->metrics.follow, procs,
					streams, count,
					r->query.service[0] != '\0', profile,
					r->why, sizeof(r->why));
		give_replays(r);
		return (unsigned)rc;
	}
	if ((end = watch_for_the_end(r)) < 0)
		return HTTP_INTERNAL_ERROR;
	rc = ctl_serve_profile(procs, streams[0], format, r->query.seconds,
			       end, profile, r->why, sizeof(r->why));
	close(end);
	return (unsigned)rc;
}

/* The profile of the process, or of the processes of the service, r
 * asks for; 0, or an HTTP status with r->why set. */
static unsigned profile_asked(struct request *r,
			      enum ctl_profile_format format,
			      struct ctl_served_profile *profile)
{
	struct ctl_process one, *procs = &one;
	int streams[CTL_SERVE_STREAMS_MAX];
	size_t opened = 0;
	unsigned status;

	if (r->query.service[0]) {
		status = find_service(r, &procs, streams, &opened);
	} else {
		status = find_recording(r, &one, &streams[0]);
		opened = status == 0;
	}
	if (status == 0)
		status = profile_of(r, format, procs, streams, opened, profile);
	for (size_t i = 0; i < opened; i++)
		close(streams[i]);
	if (procs != &one)
		free(procs);
	return status;
}

/* What a page of a profile serves. */
struct served_profile {
	enum ctl_profile_format format;
	const char *disposition; /* of the response: its file name */
	bool takes_seconds;      /* a difference over ?seconds= */
	bool takes_service;      /* a service's processes in one */
};

/* The profile of the process, or of the service, a request names, as
 * `kind` says. */
static enum MHD_Result serve_process(struct request *r,
				     const struct served_profile *kind)
{
	struct ctl_served_profile profile;
	struct MHD_Response *response;
	unsigned status;

	if (r->query.service[0] && (r->query.pid || r->query.seconds))
		return reply_line(r->c, HTTP_BAD_REQUEST,
				  "service= takes neither pid= nor seconds=");
	if (!r->query.pid && r->query.seconds)
		return reply_line(r->c, HTTP_BAD_REQUEST,
				  "seconds= needs pid=");
	if (r->query.seconds && !kind->takes_seconds)
		return reply_line(r->c, HTTP_BAD_REQUEST,
				  "seconds= is for /debug/pprof/ only");
	if (r->query.service[0] && !kind->takes_service)
		return reply_line(r->c, HTTP_BAD_REQUEST,
				  "service= is for /debug/pprof/ only: a .mlyze "
				  "file is the stream of one process");
	if (!r->query.pid && !r->query.service[0])
		return serve_index(r);
	if (!r->client.known)
		return refuse_unknown(r);
	status = profile_asked(r, kind->format, &profile);
	if (status != 0 && client_gone(r))
		return MHD_NO; /* abandoned: the connection is closed */
	if (status != 0)
		return reply_line(r->c, status, r->why);
	/* The response closes the file when it is sent. */
	response = MHD_create_response_from_fd((size_t)profile.size,
					       profile.fd);
	if (!response)
		close(profile.fd);
	else
		MHD_add_response_header(response, "Content-Disposition",
					kind->disposition);
	return reply(r->c, response, "application/octet-stream");
}

/* /debug/pprof/heap and /allocs: the same profile, whose sample types
 * hold both what is live and what was allocated. */
static enum MHD_Result serve_profile(struct request *r)
{
	static const struct served_profile pprof = {
		CTL_PROFILE_PPROF, "attachment; filename=\"profile.pb.gz\"",
		true, true
	};

	return serve_process(r, &pprof);
}

/* /debug/mlyze: the stream itself, with the symbols of its frames, read
 * the same on a machine without the process's binaries. */
static enum MHD_Result serve_symbolized(struct request *r)
{
	static const struct served_profile mlyze = {
		CTL_PROFILE_MLYZE, "attachment; filename=\"profile.mlyze\"",
		false, false
	};

	return serve_process(r, &mlyze);
}

static enum MHD_Result parse_parameter(void *ctx, enum MHD_ValueKind kind,
				       const char *key, const char *value)
{
	struct ctl_query *q = ctx;

	(void)kind;
	return ctl_serve_parameter(q, key, value) == 0 ? MHD_YES : MHD_NO;
}

static enum MHD_Result (*const pages[])(struct request *r) = {
	[CTL_PAGE_INDEX] = serve_index,
	[CTL_PAGE_PROFILE] = serve_profile,
	[CTL_PAGE_SYMBOLIZED] = serve_symbolized,
	[CTL_PAGE_METRICS] = serve_metrics,
	[CTL_PAGE_TARGETS] = serve_targets,
};

/* With client_auth_type RequireAndVerifyClientCert: whether the client
 * showed a certificate that client_ca_file signed. */
static bool verified_client(struct request *r)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(
		r->c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	unsigned status = 1;

	if (!r->server->config || !r->server->config->verify_clients)
		return true;
	return info && gnutls_certificate_verify_peers2(info->tls_session,
							&status) == 0 &&
	       status == 0 &&
	       gnutls_certificate_get_peers(info->tls_session, NULL);
}

/* Who the client is, in r->client: 0, or the status of a refusal with
 * r->why set. */
static unsigned identify(struct request *r)
{
	const struct sockaddr *peer;
	struct sockaddr_storage local;
	const char *authorization = MHD_lookup_connection_value(
		r->c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);

	if (!verified_client(r)) {
		snprintf(r->why, sizeof(r->why), "a client certificate signed "
			 "by the server's client_ca_file is needed");
		return HTTP_FORBIDDEN;
	}
	if (addresses_of(r->c, &peer, &local) < 0) {
		snprintf(r->why, sizeof(r->why), "cannot tell the addresses of "
			 "the connection: %s", strerror(errno));
		return HTTP_INTERNAL_ERROR;
	}
	return (unsigned)ctl_serve_identify(
		r->server->config, authorization, peer,
		(const struct sockaddr *)&local, &r->client, r->why,
		sizeof(r->why));
}

/* What serve keeps of a connection: the key of the client's share of the
 * connections it counts against, or, past that share, its silence, which
 * is watched. */
struct connection_note {
	char *share;
	struct ctl_silent *silent;
};

/* A connection counts against its client's share of the connections (by
 * its socket's owner or its address: its credentials come later); past
 * that share it is closed after OVERDRAWN_TIMEOUT seconds of silence
 * rather than --timeout (ctl-serve-silence.h), so that a client holding
 * connections open without asking anything cannot keep the others out
 * for long, while one that asks is answered. */
static void notify_connection(void *ctx, struct MHD_Connection *c,
			      void **context,
			      enum MHD_ConnectionNotificationCode code)
{
	struct server *s = ctx;
	struct connection_note *note = *context;
	const union MHD_ConnectionInfo *socket;
	const struct sockaddr *peer;
	struct sockaddr_storage local;
	struct ctl_client client;
	char why[WHY_SIZE];

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (note && note->share)
			ctl_serve_limits_give(&s->connections, note->share);
		if (note && note->silent)
			ctl_silence_forget(s->silence, note->silent);
		if (note)
			free(note->share);
		free(note);
		*context = NULL;
		return;
	}
	*context = note = calloc(1, sizeof(*note));
	if (!note)
		return;
	if (addresses_of(c, &peer, &local) == 0 &&
	    ctl_serve_identify(NULL, NULL, peer,
			       (const struct sockaddr *)&local, &client, why,
			       sizeof(why)) == 0 &&
	    ctl_serve_limits_take(&s->connections, client.name) == 0 &&
	    !(note->share = strdup(client.name)))
		ctl_serve_limits_give(&s->connections, client.name);
	if (!note->share &&
	    (socket = MHD_get_connection_info(
		     c, MHD_CONNECTION_INFO_CONNECTION_FD)))
		note->silent = ctl_silence_watch(s->silence, socket->connect_fd);
}

/* A request on a connection past its client's share is under way
 * (asking) or has ended, from when its silence counts. */
static void note_asking(struct server *s, struct MHD_Connection *c,
			bool asking)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct connection_note *note = info ? info->socket_context : NULL;

	if (note && note->silent)
		ctl_silence_asking(s->silence, note->silent, asking);
}

static void request_ended(void *ctx, struct MHD_Connection *c, void **state,
			  enum MHD_RequestTerminationCode how)
{
	(void)state;
	(void)how;
	note_asking(ctx, c, false);
}

/* The request of a known route, by a client within its limits. */
static enum MHD_Result serve(struct request *r, const struct ctl_route *route)
{
	MHD_get_connection_values(r->c, MHD_GET_ARGUMENT_KIND, parse_parameter,
				  &r->query);
	if (r->query.status)
		return reply_line(r->c, r->query.status, r->query.why);
	if (r->query.given && !route->takes_parameters)
		return reply_line(r->c, HTTP_BAD_REQUEST,
				  "this path takes no parameters");
	return pages[route->page](r);
}

static enum MHD_Result answer(void *ctx, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **state)
{
	struct request r = { .server = ctx, .c = c };
	const struct ctl_route *route = ctl_serve_route(url);
	enum MHD_Result rc;
	unsigned status;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)state;
	note_asking(r.server, c, true);
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply_line(c, HTTP_METHOD_NOT_ALLOWED,
				  "only GET and HEAD are served");
	if (!route)
		return reply_line(c, HTTP_NOT_FOUND, "no such path (the index "
			"at / lists what is served)");
	if ((status = identify(&r)) != 0)
		return reply_line(c, status, r.why);
	status = ctl_serve_limits_take(&r.server->limits, r.client.name);
	if (status == CTL_SERVE_BUSY)
		return reply_line(c, HTTP_UNAVAILABLE, "the server is busy "
				  "with as many requests as it takes "
				  "(--max-connections)");
	if (status == CTL_SERVE_TOO_MANY)
		return reply_line(c, HTTP_TOO_MANY_REQUESTS, "you have as many "
				  "requests under way as one client may "
				  "(--max-per-client)");
	rc = serve(&r, route);
	ctl_serve_limits_give(&r.server->limits, r.client.name);
	return rc;
}

/* 0-65535, in digits only. */
static bool valid_port(const char *port)
{
	size_t digits = strspn(port, "0123456789");

	return digits > 0 && digits <= 5 && !port[digits] &&
	       atol(port) <= 65535;
}

/* ADDR:PORT, or [ADDR]:PORT, as a socket address in *out (free it with
 * freeaddrinfo).  0, or -1 after saying why on stderr. */
static int parse_listen(const char *listen, struct addrinfo **out)
{
	const struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
					.ai_flags = AI_NUMERICSERV };
	const char *colon = strrchr(listen, ':');
	char host[256];
	size_t length = colon ? (size_t)(colon - listen) : 0;
	int rc;

	if (length >= 2 && listen[0] == '[' && listen[length - 1] == ']') {
		listen++;
		length -= 2;
	}
	if (!colon || length == 0 || length >= sizeof(host) ||
	    !valid_port(colon + 1)) {
		fprintf(stderr, "memprof-ctl: --listen takes ADDR:PORT, not "
			"'%s'\n", listen);
		return -1;
	}
	snprintf(host, sizeof(host), "%.*s", (int)length, listen);
	if ((rc = getaddrinfo(host, colon + 1, &hints, out)) != 0) {
		fprintf(stderr, "memprof-ctl: %s: %s\n", host,
			gai_strerror(rc));
		return -1;
	}
	return 0;
}

/* The options of TLS, when the web configuration has them: they end the
 * list at items[count]. */
static unsigned tls_options(const struct ctl_web_config *config,
			    struct MHD_OptionItem *items)
{
	unsigned n = 0;

	if (!config || !config->cert)
		return 0;
	items[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0,
					      config->cert };
	items[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0,
					      config->key };
	items[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
					      (void *)config->tls_priorities };
	if (config->client_ca)
		items[n++] = (struct MHD_OptionItem){
			MHD_OPTION_HTTPS_MEM_TRUST, 0, config->client_ca };
	return n;
}

static struct MHD_Daemon *start(struct server *s, const struct addrinfo *a)
{
	const struct ctl_serve_options *o = s->o;
	struct MHD_OptionItem tls[5] = { { MHD_OPTION_END, 0, NULL } };
	bool https = tls_options(s->config, tls) > 0;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD |
			 MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ITC |
			 (a->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0) |
			 (https ? MHD_USE_TLS : 0);

	if (https && !MHD_is_feature_supported(MHD_FEATURE_TLS)) {
		errno = ENOTSUP;
		fprintf(stderr, "memprof-ctl: this libmicrohttpd has no TLS\n");
		return NULL;
	}
	/* The limits on requests are ours (ctl-serve-limits.h), which answer
	 * with a status; the connections beyond them are accepted up to a
	 * cap, so that they can be answered. */
	return MHD_start_daemon(
		flags, 0, NULL, NULL, answer, s,
		MHD_OPTION_SOCK_ADDR, a->ai_addr,
		MHD_OPTION_CONNECTION_LIMIT, s->connections.total,
		MHD_OPTION_CONNECTION_TIMEOUT, o->timeout,
		MHD_OPTION_NOTIFY_CONNECTION, notify_connection, s,
		MHD_OPTION_NOTIFY_COMPLETED, request_ended, s,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY,
		MHD_OPTION_THREAD_STACK_SIZE, (size_t)THREAD_STACK,
		MHD_OPTION_ARRAY, tls,
		MHD_OPTION_END);
}

/* No new connection; the requests under way end (those waiting out their
 * ?seconds= answer 503), for STOP_GRACE_MS at most; then the rest are
 * closed. */
static void stop(struct MHD_Daemon *daemon, int stop_fd)
{
	MHD_socket listening = MHD_quiesce_daemon(daemon);
	const union MHD_DaemonInfo *info;

	if (listening != MHD_INVALID_SOCKET)
		close(listening);
	if (write(stop_fd, "", 1) < 0)
		perror("memprof-ctl");
	for (int waited = 0; waited < STOP_GRACE_MS; waited += 50) {
		info = MHD_get_daemon_info(daemon,
					   MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
		if (!info || info->num_connections == 0)
			break;
		usleep(50 * 1000);
	}
	MHD_stop_daemon(daemon);
}

/* The web configuration, when there is one, into *config and s->config;
 * 0, or -1 after saying why. */
static int configure(struct server *s, struct ctl_web_config *config)
{
	char why[WHY_SIZE];

	if (!s->o->web_config_file)
		return 0;
	if (ctl_web_config_load(s->o->web_config_file, config, why,
				sizeof(why)) < 0) {
		fprintf(stderr, "memprof-ctl: %s\n", why);
		ctl_web_config_free(config);
		return -1;
	}
	s->config = config;
	return 0;
}

int ctl_serve(const struct ctl_serve_options *o)
{
	struct server s = { .o = o, .metrics = o->metrics,
			    .replaying = PTHREAD_MUTEX_INITIALIZER };
	struct ctl_web_config config;
	struct MHD_Daemon *daemon = NULL;
	struct addrinfo *address;
	sigset_t stop_signals;
	int signal_number;

	if (parse_listen(o->listen, &address) < 0)
		return 2;
	if (configure(&s, &config) < 0) {
		freeaddrinfo(address);
		return 1;
	}
	if (ctl_serve_limits_init(&s.limits, o->max_connections,
				  o->max_per_client) < 0 ||
	    ctl_serve_limits_init(&s.connections,
				  o->max_connections * CTL_SERVE_CONNECTION_CAP,
				  o->max_per_client * CTL_SERVE_CONNECTION_SHARE) < 0) {
		fprintf(stderr, "memprof-ctl: out of memory\n");
		return 1;
	}
	/* A thread per connection would otherwise give each its own arena
	 * of freed memory. */
	mallopt(M_ARENA_MAX, 2);
	/* Blocked in every thread: only sigwait() below takes them. */
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
	signal(SIGPIPE, SIG_IGN);
	s.metrics.follow = ctl_follow_cache_new(o->metrics.growth_window_us);
	/* After the mask: its thread must not take the signals either. */
	s.silence = ctl_silence_start(OVERDRAWN_TIMEOUT);
	if (s.silence && pipe2(s.stop, O_CLOEXEC) == 0)
		daemon = start(&s, address);
	freeaddrinfo(address);
	if (!daemon) {
		ctl_silence_stop(s.silence);
		ctl_follow_cache_free(s.metrics.follow);
		fprintf(stderr, "memprof-ctl: cannot listen on %s: %s\n",
			o->listen, strerror(errno));
		return 1;
	}
	printf("memprof-ctl: serving on port %u\n",
	       MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT)->port);
	fflush(stdout);
	while (sigwait(&stop_signals, &signal_number) != 0)
		;
	stop(daemon, s.stop[1]);
	ctl_silence_stop(s.silence);
	close(s.stop[0]);
	close(s.stop[1]);
	ctl_serve_limits_destroy(&s.limits);
	ctl_serve_limits_destroy(&s.connections);
	ctl_follow_cache_free(s.metrics.follow);
	if (s.config)
		ctl_web_config_free(&config);
	return 0;
}
