/* ctl-serve.c - the HTTP side of memprof-ctl serve (see ctl-serve.h),
 * with libmicrohttpd: it parses the requests, and enforces the limits on
 * connections, their memory and their silence. */
#include "config.h"

#include "ctl-serve.h"

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
#include <sys/stat.h>
#include <unistd.h>

#include <microhttpd.h>

#include "compiler.h"
#include "ctl-registry.h"
#include "ctl-serve-index.h"
#include "ctl-serve-profile.h"
#include "ctl-stream.h"

#define WHY_SIZE 1024
/* Request line and headers past this get 431 from libmicrohttpd. */
#define CONNECTION_MEMORY (16 * 1024)
#define THREAD_STACK (512 * 1024)
/* How long the requests under way may take to end at a stop. */
#define STOP_GRACE_MS 2000
/* A number macro as a string literal. */
#define NUMBER_TEXT(n) NUMBER_TEXT_(n)
#define NUMBER_TEXT_(n) #n

enum {
	HTTP_OK = 200, HTTP_BAD_REQUEST = 400, HTTP_FORBIDDEN = 403,
	HTTP_NOT_FOUND = 404, HTTP_METHOD_NOT_ALLOWED = 405,
	HTTP_CONFLICT = 409, HTTP_INTERNAL_ERROR = 500,
};

struct server {
	const struct ctl_serve_options *o;
	int stop[2]; /* readable once the server stops */
};

struct request {
	const struct server *server;
	struct MHD_Connection *c;
	long pid;         /* 0: none asked */
	unsigned seconds; /* 0: none asked */
	unsigned status;  /* of a bad query, else 0 */
	char why[WHY_SIZE];
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
	if (status >= HTTP_INTERNAL_ERROR)
		fprintf(stderr, "memprof-ctl serve: %u: %s\n", status, line);
	MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; charset=utf-8");
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

/* Why the server may not read process pid (it runs as another user, not
 * as root), or "" when it may. */
static void refusal(long pid, char *why, size_t size)
{
	long user = user_of(pid);

	why[0] = '\0';
	if (geteuid() == 0 || user < 0 || user == (long)geteuid())
		return;
	snprintf(why, size, "process %ld belongs to uid %u; this server runs "
		 "as uid %u and serves its own user's processes only",
		 pid, (unsigned)user, (unsigned)geteuid());
}

/* The processes of the registry the server may read, in *procs. */
static int visible_processes(struct ctl_process **procs, size_t *count,
			     char *why, size_t size)
{
	char refused[WHY_SIZE];
	size_t kept = 0;

	if (ctl_registry_list(procs, count, why, size) < 0)
		return -1;
	for (size_t i = 0; i < *count; i++) {
		refusal((*procs)[i].pid, refused, sizeof(refused));
		if (!refused[0])
			(*procs)[kept++] = (*procs)[i];
	}
	*count = kept;
	return 0;
}

/* Writes a page of the processes; 0, or -1 with why set. */
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
	int rc = visible_processes(&procs, &count, r->why, sizeof(r->why));

	if (rc == 0 && (out = open_memstream(&page, &length))) {
		rc = render(out, r, procs, count, r->why, sizeof(r->why));
		rc |= fclose(out);
	} else if (rc == 0) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		rc = -1;
	}
	free(procs);
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

/* The metrics replay every stream in this process: one rendering at a
 * time, whose memory goes back to the system after it, so that the
 * server's memory is that of one rendering however many scrapes come. */
static int render_metrics(FILE *out, const struct request *r,
			  const struct ctl_process *procs, size_t count,
			  char *why, size_t size)
{
	static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;
	int rc;

	pthread_mutex_lock(&one_at_a_time);
	rc = ctl_metrics_render(out, procs, count, &r->server->o->metrics,
				why, size);
	malloc_trim(0);
	pthread_mutex_unlock(&one_at_a_time);
	return rc;
}

static enum MHD_Result serve_index(struct request *r)
{
	return reply_rendered(r, render_index,
			      wants_json(r) ? "application/json"
					    : "text/html; charset=utf-8");
}

static enum MHD_Result serve_metrics(struct request *r)
{
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

	refusal(r->pid, r->why, sizeof(r->why));
	if (r->why[0])
		return HTTP_FORBIDDEN;
	if (ctl_registry_find(r->pid, p, r->why, sizeof(r->why)) < 0)
		return HTTP_NOT_FOUND;
	if (p->page.state != CONTROL_RECORDING || !p->page.part[0]) {
		snprintf(r->why, sizeof(r->why), "process %ld is not recording "
			 "(memprof-ctl start %ld)", r->pid, r->pid);
		return HTTP_CONFLICT;
	}
	*stream = ctl_stream_open(p, &st, r->why, sizeof(r->why));
	return *stream < 0 ? HTTP_FORBIDDEN : 0;
}

/* /debug/pprof/heap and /allocs: the same profile, whose sample types
 * hold both what is live and what was allocated. */
static enum MHD_Result serve_profile(struct request *r)
{
	struct ctl_process p;
	struct ctl_served_profile profile;
	struct MHD_Response *response;
	unsigned status;
	int stream;

	if (!r->pid && r->seconds)
		return reply_line(r->c, HTTP_BAD_REQUEST,
				  "seconds= needs pid=");
	if (!r->pid)
		return serve_index(r);
	if ((status = find_recording(r, &p, &stream)) != 0)
		return reply_line(r->c, status, r->why);
	status = (unsigned)ctl_serve_profile(&p, stream, r->seconds,
					     r->server->stop[0], &profile,
					     r->why, sizeof(r->why));
	close(stream);
	if (status != 0)
		return reply_line(r->c, status, r->why);
	/* The response closes the file when it is sent. */
	response = MHD_create_response_from_fd((size_t)profile.size,
					       profile.fd);
	if (!response)
		close(profile.fd);
	else
		MHD_add_response_header(response, "Content-Disposition",
					"attachment; filename=\"profile.pb.gz\"");
	return reply(r->c, response, "application/octet-stream");
}

/* A whole number in [1, max] from a query value, or 0. */
static unsigned long whole_number(const char *value, unsigned long max)
{
	char *end;
	unsigned long n;

	if (!value || value[0] < '0' || value[0] > '9')
		return 0;
	errno = 0;
	n = strtoul(value, &end, 10);
	return errno || *end || n > max ? 0 : n;
}

static void parse_pid(struct request *r, const char *value)
{
	r->pid = (long)whole_number(value, INT32_MAX);
	if (!r->pid)
		r->status = HTTP_BAD_REQUEST;
}

static void parse_seconds(struct request *r, const char *value)
{
	r->seconds = (unsigned)whole_number(value, CTL_SERVE_MAX_SECONDS);
	if (!r->seconds)
		r->status = HTTP_BAD_REQUEST;
}

/* gc=1 asks Go to collect its garbage first: a C program has none to
 * collect, so it is accepted and changes nothing. */
static void parse_gc(struct request *r, const char *value)
{
	(void)value;
	(void)r;
}

/* debug=0 is the binary profile, the only one served. */
static void parse_debug(struct request *r, const char *value)
{
	if (!value || strcmp(value, "0") != 0)
		r->status = HTTP_BAD_REQUEST;
}

static const struct parameter {
	const char *name;
	void (*parse)(struct request *r, const char *value);
	const char *expected; /* for the reason of a 400 */
} parameters[] = {
	{ "pid", parse_pid, "a process id" },
	{ "seconds", parse_seconds,
	  "a whole number of seconds, 1-" NUMBER_TEXT(CTL_SERVE_MAX_SECONDS) },
	{ "debug", parse_debug, "0 (only the binary profile is served)" },
	{ "gc", parse_gc, "anything" },
};

static enum MHD_Result parse_parameter(void *ctx, enum MHD_ValueKind kind,
				       const char *key, const char *value)
{
	struct request *r = ctx;

	(void)kind;
	for (size_t i = 0; i < ARRAY_SIZE(parameters); i++) {
		if (strcmp(key, parameters[i].name) != 0)
			continue;
		parameters[i].parse(r, value);
		if (r->status)
			snprintf(r->why, sizeof(r->why), "%s= takes %s",
				 parameters[i].name, parameters[i].expected);
		return r->status ? MHD_NO : MHD_YES;
	}
	r->status = HTTP_BAD_REQUEST;
	snprintf(r->why, sizeof(r->why), "unknown parameter (pid, seconds, "
		 "debug and gc are known)");
	return MHD_NO;
}

static const struct route {
	const char *path;
	enum MHD_Result (*serve)(struct request *r);
	bool takes_parameters;
} routes[] = {
	{ "/", serve_index, false },
	{ "/debug/pprof/", serve_index, false },
	{ "/debug/pprof/heap", serve_profile, true },
	{ "/debug/pprof/allocs", serve_profile, true },
	{ "/metrics", serve_metrics, false },
};

static const struct route *route_of(const char *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(routes); i++)
		if (strcmp(path, routes[i].path) == 0)
			return &routes[i];
	return NULL;
}

static enum MHD_Result answer(void *ctx, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **state)
{
	struct request r = { .server = ctx, .c = c };
	const struct route *route = route_of(url);
	int given;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)state;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply_line(c, HTTP_METHOD_NOT_ALLOWED,
				  "only GET and HEAD are served");
	if (!route)
		return reply_line(c, HTTP_NOT_FOUND, "no such path (the index "
			"at / lists what is served)");
	given = MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND,
					       parse_parameter, &r);
	if (r.status)
		return reply_line(c, r.status, r.why);
	if (given && !route->takes_parameters)
		return reply_line(c, HTTP_BAD_REQUEST,
				  "this path takes no parameters");
	return route->serve(&r);
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

static struct MHD_Daemon *start(struct server *s, const struct addrinfo *a)
{
	const struct ctl_serve_options *o = s->o;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD |
			 MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ITC |
			 (a->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0);

	return MHD_start_daemon(
		flags, 0, NULL, NULL, answer, s,
		MHD_OPTION_SOCK_ADDR, a->ai_addr,
		MHD_OPTION_CONNECTION_LIMIT, o->max_connections,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, o->max_per_client,
		MHD_OPTION_CONNECTION_TIMEOUT, o->timeout,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY,
		MHD_OPTION_THREAD_STACK_SIZE, (size_t)THREAD_STACK,
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

int ctl_serve(const struct ctl_serve_options *o)
{
	struct server s = { .o = o };
	struct MHD_Daemon *daemon = NULL;
	struct addrinfo *address;
	sigset_t stop_signals;
	int signal_number;

	if (parse_listen(o->listen, &address) < 0)
		return 2;
	/* A thread per connection would otherwise give each its own arena
	 * of freed memory. */
	mallopt(M_ARENA_MAX, 2);
	/* Blocked in every thread: only sigwait() below takes them. */
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(s.stop, O_CLOEXEC) == 0)
		daemon = start(&s, address);
	freeaddrinfo(address);
	if (!daemon) {
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
	close(s.stop[0]);
	close(s.stop[1]);
	return 0;
}
