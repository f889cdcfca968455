/* ctl-serve-request.c - what memprof-ctl serve reads from a request (see
 * ctl-serve-request.h). */
#include "config.h"

#include "ctl-serve-request.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compiler.h"

/* A number macro as a string literal. */
#define NUMBER_TEXT(n) NUMBER_TEXT_(n)
#define NUMBER_TEXT_(n) #n

enum { HTTP_BAD_REQUEST = 400 };

static const struct ctl_route routes[] = {
	{ "/", CTL_PAGE_INDEX, false },
	{ "/debug/pprof/", CTL_PAGE_INDEX, false },
	{ "/debug/pprof/heap", CTL_PAGE_PROFILE, true },
	{ "/debug/pprof/allocs", CTL_PAGE_PROFILE, true },
	{ "/debug/mlyze", CTL_PAGE_SYMBOLIZED, true },
	{ "/metrics", CTL_PAGE_METRICS, false },
};

const struct ctl_route *ctl_serve_route(const char *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(routes); i++)
		if (strcmp(path, routes[i].path) == 0)
			return &routes[i];
	return NULL;
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

static bool parse_pid(struct ctl_query *q, const char *value)
{
	return (q->pid = (long)whole_number(value, INT32_MAX)) != 0;
}

static bool parse_seconds(struct ctl_query *q, const char *value)
{
	q->seconds = (unsigned)whole_number(value, CTL_SERVE_MAX_SECONDS);
	return q->seconds != 0;
}

/* gc=1 asks Go to collect its garbage first: a C program has none to
 * collect, so it is accepted and changes nothing. */
static bool parse_gc(struct ctl_query *q, const char *value)
{
	(void)q;
	(void)value;
	return true;
}

/* debug=0 is the binary profile, the only one served. */
static bool parse_debug(struct ctl_query *q, const char *value)
{
	(void)q;
	return value && strcmp(value, "0") == 0;
}

static const struct parameter {
	const char *name;
	bool (*parse)(struct ctl_query *q, const char *value);
	const char *expected; /* for the reason of a 400 */
} parameters[] = {
	{ "pid", parse_pid, "a process id" },
	{ "seconds", parse_seconds,
	  "a whole number of seconds, 1-" NUMBER_TEXT(CTL_SERVE_MAX_SECONDS) },
	{ "debug", parse_debug, "0 (only the binary profile is served)" },
	{ "gc", parse_gc, "anything" },
};

int ctl_serve_parameter(struct ctl_query *q, const char *key,
			const char *value)
{
	q->given++;
	for (size_t i = 0; i < ARRAY_SIZE(parameters); i++) {
		if (strcmp(key, parameters[i].name) != 0)
			continue;
		if (parameters[i].parse(q, value))
			return 0;
		q->status = HTTP_BAD_REQUEST;
		snprintf(q->why, sizeof(q->why), "%s= takes %s",
			 parameters[i].name, parameters[i].expected);
		return -1;
	}
	q->status = HTTP_BAD_REQUEST;
	snprintf(q->why, sizeof(q->why), "unknown parameter (pid, seconds, "
		 "debug and gc are known)");
	return -1;
}

/* The value of a base64 digit, or -1. */
static int base64_digit(char c)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "abcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *at = c ? strchr(digits, c) : NULL;

	return at ? (int)(at - digits) : -1;
}

/* Standard base64 with its padding into out (NUL-terminated); the length,
 * or -1 when it is not base64 or does not fit. */
static long base64_decode(const char *in, char *out, size_t size)
{
	size_t length = strlen(in), n = 0;
	uint32_t bits = 0;
	int held = 0;

	if (length % 4)
		return -1;
	for (size_t i = 0; i < length; i++) {
		int digit = base64_digit(in[i]);

		if (in[i] == '=' && i >= length - 2 &&
		    strspn(in + i, "=") == length - i)
			break;
		if (digit < 0)
			return -1;
		bits = bits << 6 | (uint32_t)digit;
		if ((held += 6) >= 8) {
			if (n + 1 >= size)
				return -1;
			held -= 8;
			out[n++] = (char)(bits >> held & 0xff);
		}
	}
	out[n] = '\0';
	return (long)n;
}

static int basic(const char *encoded, struct ctl_credentials *out)
{
	char pair[2 * CTL_CREDENTIAL_SIZE];
	long length = base64_decode(encoded, pair, sizeof(pair));
	char *colon = length > 0 ? memchr(pair, ':', (size_t)length) : NULL;
	size_t name_length = colon ? (size_t)(colon - pair) : 0;
	int rc = -1;

	/* A NUL inside would cut the name or the password short. */
	if (colon && name_length > 0 && name_length < CTL_CREDENTIAL_SIZE &&
	    strlen(pair) == (size_t)length &&
	    strlen(colon + 1) < CTL_CREDENTIAL_SIZE) {
		out->kind = CTL_BASIC;
		memcpy(out->name, pair, name_length);
		out->name[name_length] = '\0';
		strcpy(out->secret, colon + 1);
		rc = 0;
	}
	explicit_bzero(pair, sizeof(pair));
	return rc;
}

static int bearer(const char *token, struct ctl_credentials *out)
{
	size_t length = strlen(token);

	if (length == 0 || length >= CTL_CREDENTIAL_SIZE ||
	    strcspn(token, " \t") != length)
		return -1;
	out->kind = CTL_BEARER;
	memcpy(out->secret, token, length + 1);
	return 0;
}

int ctl_serve_authorization(const char *header, struct ctl_credentials *out)
{
	static const struct scheme {
		const char *name;
		int (*parse)(const char *value, struct ctl_credentials *out);
	} schemes[] = { { "Basic", basic }, { "Bearer", bearer } };

	memset(out, 0, sizeof(*out));
	if (!header)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(schemes); i++) {
		size_t n = strlen(schemes[i].name);
		const char *value = header + n;

		/* The scheme is case-insensitive (RFC 9110, 11.1). */
		if (strncasecmp(header, schemes[i].name, n) != 0 ||
		    *value != ' ')
			continue;
		while (*value == ' ')
			value++;
		if (schemes[i].parse(value, out) == 0)
			return 0;
		ctl_credentials_clear(out);
		return -1;
	}
	return -1;
}

void ctl_credentials_clear(struct ctl_credentials *c)
{
	explicit_bzero(c, sizeof(*c));
}
