/* ctl-serve-auth.c - who a client of memprof-ctl serve is (see
 * ctl-serve-auth.h). */
#include "config.h"

#include "ctl-serve-auth.h"

#include <arpa/inet.h>
#include <crypt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-peer.h"
#include "ctl-serve-request.h"

/* Checked when the name has no account, so that a wrong name takes as
 * long as a wrong password: a bcrypt hash of cost 10 of no password. */
static const char no_account_hash[] =
	"$2b$10$SQaZBbxxsk7oa8g.Pzw9ceGMzX2QwVa7FGnmYORvA8LhvtBQ8net2";

/* Whether secret hashes to hash; every byte of the result is compared. */
static bool matches(const char *secret, const char *hash)
{
	struct crypt_data *data = calloc(1, sizeof(*data));
	size_t length = strlen(hash) + 1;
	unsigned char differ = 0;
	const char *got;

	if (!data)
		return false;
	got = crypt_rn(secret, hash, data, sizeof(*data));
	if (!got || strlen(got) + 1 != length)
		differ = 1;
	for (size_t i = 0; !differ && i < length; i++)
		differ |= (unsigned char)(got[i] ^ hash[i]);
	explicit_bzero(data, sizeof(*data));
	free(data);
	return !differ;
}

/* The account the credentials open, or NULL. */
static const struct ctl_web_account *
account_of(const struct ctl_web_config *config,
	   const struct ctl_credentials *given)
{
	const struct ctl_web_account *a;
	bool opened;

	if (given->kind == CTL_BASIC) {
		a = ctl_web_config_account(config, given->name, false);
		opened = matches(given->secret, a ? a->hash : no_account_hash);
		return a && opened ? a : NULL;
	}
	/* A token carries no name: each token's hash is tried. */
	for (size_t i = 0; i < config->account_count; i++) {
		a = &config->accounts[i];
		if (a->bearer && matches(given->secret, a->hash))
			return a;
	}
	return NULL;
}

static void address_text(const struct sockaddr *a, char *text, size_t size)
{
	const void *raw = a->sa_family == AF_INET6
		? (const void *)&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr
		: (const void *)&((const struct sockaddr_in *)(const void *)a)->sin_addr;

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
		a = account_of(config, &given);
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
	address_text(peer, address, sizeof(address));
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
