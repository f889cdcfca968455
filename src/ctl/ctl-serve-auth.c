/* ctl-serve-auth.c - who a client of memprof-ctl serve is (see
 * ctl-serve-auth.h). */
#include "config.h"

#include "ctl-serve-auth.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "ctl-peer.h"
#include "ctl-serve-request.h"
#include "ctl-serve-secrets.h"

void ctl_serve_address_text(const struct sockaddr *a, char *text, size_t size)
{
	const struct sockaddr_in6 *in6 = (const void *)a;
	const struct sockaddr_in *in = (const void *)a;
	const void *raw = a->sa_family == AF_INET6 ? (const void *)&in6->sin6_addr
						   : (const void *)&in->sin_addr;

	if (!inet_ntop(a->sa_family, raw, text, (socklen_t)size))
		snprintf(text, size, "?");
}

static int by_credentials(const struct ctl_web_config *config,
			  const char *authorization, struct ctl_client *out,
			  char *why, size_t size)
{
	struct ctl_credentials given;
	const struct ctl_web_account *a = NULL;

	if (ctl_serve_authorization(authorization, &given) < 0) {
		snprintf(why, size, "the Authorization header is neither "
			 "Basic nor Bearer, or is malformed");
		return CTL_SERVE_UNAUTHORIZED;
	}
	if (config)
		a = ctl_serve_account_of(config, &given);
	ctl_credentials_clear(&given);
	if (!a) {
		snprintf(why, size, "wrong credentials");
		return CTL_SERVE_UNAUTHORIZED;
	}
	snprintf(out->name, sizeof(out->name), "%s", a->name);
	out->known = true;
	out->reader = ctl_web_config_reader(config, a->name);
	out->all = !out->reader || out->reader->all;
	return 0;
}

int ctl_serve_identify(const struct ctl_web_config *config,
		       const char *authorization, const struct sockaddr *peer,
		       const struct sockaddr *local, struct ctl_client *out,
		       char *why, size_t size)
{
	char address[INET6_ADDRSTRLEN];
	uid_t uid;

	memset(out, 0, sizeof(*out));
	if (authorization)
		return by_credentials(config, authorization, out, why, size);
	if (ctl_peer_user(peer, local, &uid) == 0) {
		snprintf(out->name, sizeof(out->name), "uid %u", (unsigned)uid);
		out->known = out->local_user = true;
		out->uid = uid;
		out->all = uid == 0;
		return 0;
	}
	ctl_serve_address_text(peer, address, sizeof(address));
	snprintf(out->name, sizeof(out->name), "unknown client %s", address);
	if (config && config->account_count) {
		snprintf(why, size, "credentials are needed (Basic or Bearer)");
		return CTL_SERVE_UNAUTHORIZED;
	}
	return 0;
}

bool ctl_serve_may_read(const struct ctl_client *c, uid_t owner)
{
	if (c->all)
		return true;
	if (c->local_user)
		return owner == c->uid;
	for (size_t i = 0; c->reader && i < c->reader->user_count; i++)
		if (c->reader->uids && c->reader->uids[i] == owner)
			return true;
	return false;
}
