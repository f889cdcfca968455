/* ctl-serve-auth.h - who a client of memprof-ctl serve is, and what it
 * may read.
 *
 * Contract: ctl_serve_identify() names the client of one request:
 *  - by its credentials, checked against the web configuration's accounts
 *    (ctl-web-config.h): Basic NAME:PASSWORD against basic_auth_users,
 *    Bearer TOKEN against bearer_tokens; such a client reads what its
 *    entry of `readers` says, every process when it has none.  Wrong
 *    credentials are a 401, never a fall back to what follows;
 *  - else, from a loopback address, by the user owning its socket
 *    (ctl-peer.h): that user's processes, root's: all;
 *  - else it is unknown and may read nothing: a 401 when the
 *    configuration has accounts (it should have given credentials),
 *    otherwise an unknown client whose requests for data are refused.
 * Secrets are checked as ctl-serve-secrets.h says.
 */
#ifndef SPPROF_CTL_SERVE_AUTH_H
#define SPPROF_CTL_SERVE_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "ctl-web-config.h"

struct ctl_client {
	/* "NAME", "uid N", or "unknown client ADDRESS": for messages, and
	 * the key of its limits. */
	char name[320];
	bool known;
	bool all; /* may read every process */
	bool local_user; /* identified by its socket: the processes of uid */
	uid_t uid;
	const struct ctl_web_reader *reader; /* else what readers says */
};

enum { CTL_SERVE_UNAUTHORIZED = 401 };

/* config may be NULL (no web configuration); authorization is the
 * header's value or NULL.  0, or CTL_SERVE_UNAUTHORIZED with why set. */
int ctl_serve_identify(const struct ctl_web_config *config,
		       const char *authorization, const struct sockaddr *peer,
		       const struct sockaddr *local, struct ctl_client *out,
		       char *why, size_t size);

/* The IPv4 or IPv6 address of a (without its port), as text; "?". */
void ctl_serve_address_text(const struct sockaddr *a, char *text,
			    size_t size);

/* Whether the client may read a process of that user. */
bool ctl_serve_may_read(const struct ctl_client *c, uid_t owner);

#endif /* SPPROF_CTL_SERVE_AUTH_H */
