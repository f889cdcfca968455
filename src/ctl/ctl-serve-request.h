/* ctl-serve-request.h - what memprof-ctl serve reads from a request:
 * which page its path asks for, its query parameters and its
 * Authorization header.
 *
 * Contract: pure functions of the text libmicrohttpd hands over (the
 * path, each query key and value as decoded, the header's value), so
 * that they can be fed anything; they touch nothing else.  A value that
 * is not what the page takes sets a 400 status and a one-line reason.
 */
#ifndef SPPROF_CTL_SERVE_REQUEST_H
#define SPPROF_CTL_SERVE_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#define CTL_SERVE_MAX_SECONDS 300 /* of ?seconds= */
#define CTL_CREDENTIAL_SIZE 256   /* the longest name or secret, with NUL */

enum ctl_page {
	CTL_PAGE_INDEX,
	CTL_PAGE_PROFILE,    /* the gzip pprof of a process */
	CTL_PAGE_SYMBOLIZED, /* its .mlyze with its symbols inside */
	CTL_PAGE_METRICS,
};

struct ctl_route {
	const char *path;
	enum ctl_page page;
	bool takes_parameters;
};

/* The route of a path, or NULL. */
const struct ctl_route *ctl_serve_route(const char *path);

struct ctl_query {
	long pid;         /* 0: none asked */
	unsigned seconds; /* 0: none asked */
	unsigned given;   /* how many parameters */
	unsigned status;  /* of a bad parameter, else 0 */
	char why[160];
};

/* Takes one parameter (value may be NULL: "?key"); 0, or -1 with
 * q->status and q->why set. */
int ctl_serve_parameter(struct ctl_query *q, const char *key,
			const char *value);

enum ctl_credential_kind { CTL_NO_CREDENTIALS, CTL_BASIC, CTL_BEARER };

struct ctl_credentials {
	enum ctl_credential_kind kind;
	char name[CTL_CREDENTIAL_SIZE];   /* of Basic */
	char secret[CTL_CREDENTIAL_SIZE]; /* its password, or the token */
};

/* "Basic BASE64(NAME:PASSWORD)" or "Bearer TOKEN" (header NULL: none).
 * 0, or -1 when the header is neither or is malformed.  Clear the
 * secret with ctl_credentials_clear() when done. */
int ctl_serve_authorization(const char *header, struct ctl_credentials *out);

void ctl_credentials_clear(struct ctl_credentials *c);

#endif /* SPPROF_CTL_SERVE_REQUEST_H */
