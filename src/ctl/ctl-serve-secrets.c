/* ctl-serve-secrets.c - which account a password or a token opens (see
 * ctl-serve-secrets.h). */
#include "config.h"

#include "ctl-serve-secrets.h"

#include <crypt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/crypto.h>

#include "compiler.h"

#define SECRETS_HASHED_AT_ONCE 2
#define SECRETS_REMEMBERED 32
#define DIGEST_SIZE 32 /* SHA-256 */

/* Checked when the name has no account, so that a wrong name takes as
 * long as a wrong password: a bcrypt hash of cost 10 of no password. */
static const char no_account_hash[] =
	"$2b$10$SQaZBbxxsk7oa8g.Pzw9ceGMzX2QwVa7FGnmYORvA8LhvtBQ8net2";

static struct {
	pthread_mutex_t lock;
	pthread_cond_t hashed;
	unsigned hashing; /* hashes being computed */
	struct remembered {
		const struct ctl_web_account *account; /* NULL: free */
		unsigned char digest[DIGEST_SIZE];
	} entries[SECRETS_REMEMBERED];
	unsigned next; /* the entry to replace */
} secrets = { .lock = PTHREAD_MUTEX_INITIALIZER,
	      .hashed = PTHREAD_COND_INITIALIZER };

static bool same_bytes(const void *a, const void *b, size_t size)
{
	const unsigned char *x = a, *y = b;
	unsigned char differ = 0;

	for (size_t i = 0; i < size; i++)
		differ |= x[i] ^ y[i];
	return differ == 0;
}

/* Whether secret hashes to hash, the hash computed when fewer than
 * SECRETS_HASHED_AT_ONCE are. */
static bool matches(const char *secret, const char *hash)
{
	struct crypt_data *data = calloc(1, sizeof(*data));
	const char *got;
	bool same;

	if (!data)
		return false;
	pthread_mutex_lock(&secrets.lock);
	while (secrets.hashing >= SECRETS_HASHED_AT_ONCE)
		pthread_cond_wait(&secrets.hashed, &secrets.lock);
	secrets.hashing++;
	pthread_mutex_unlock(&secrets.lock);
	got = crypt_rn(secret, hash, data, sizeof(*data));
	same = got && strlen(got) == strlen(hash) &&
	       same_bytes(got, hash, strlen(hash));
	pthread_mutex_lock(&secrets.lock);
	secrets.hashing--;
	pthread_cond_signal(&secrets.hashed);
	pthread_mutex_unlock(&secrets.lock);
	explicit_bzero(data, sizeof(*data));
	free(data);
	return same;
}

/* Whether the remembered account a matches credentials of this kind. */
static bool may_be(const struct ctl_web_account *a,
		   const struct ctl_credentials *given)
{
	return given->kind == CTL_BEARER ? a->bearer
					 : !a->bearer &&
					   strcmp(a->name, given->name) == 0;
}

static const struct ctl_web_account *
recall(const unsigned char *digest, const struct ctl_credentials *given)
{
	const struct ctl_web_account *found = NULL;

	pthread_mutex_lock(&secrets.lock);
	for (size_t i = 0; i < ARRAY_SIZE(secrets.entries); i++) {
		const struct remembered *e = &secrets.entries[i];

		if (e->account && may_be(e->account, given) &&
		    same_bytes(e->digest, digest, DIGEST_SIZE))
			found = e->account;
	}
	pthread_mutex_unlock(&secrets.lock);
	return found;
}

static void remember(const struct ctl_web_account *a,
		     const unsigned char *digest)
{
	pthread_mutex_lock(&secrets.lock);
	secrets.entries[secrets.next].account = a;
	memcpy(secrets.entries[secrets.next].digest, digest, DIGEST_SIZE);
	secrets.next = (secrets.next + 1) % SECRETS_REMEMBERED;
	pthread_mutex_unlock(&secrets.lock);
}

/* The account the credentials open, by their hashes. */
static const struct ctl_web_account *
hashed_account_of(const struct ctl_web_config *config,
		  const struct ctl_credentials *given)
{
	const struct ctl_web_account *a;

	if (given->kind == CTL_BASIC) {
		a = ctl_web_config_account(config, given->name, false);
		if (!matches(given->secret, a ? a->hash : no_account_hash))
			return NULL;
		return a;
	}
	/* A token carries no name: each token's hash is tried. */
	for (size_t i = 0; i < config->account_count; i++) {
		a = &config->accounts[i];
		if (a->bearer && matches(given->secret, a->hash))
			return a;
	}
	return NULL;
}

const struct ctl_web_account *
ctl_serve_account_of(const struct ctl_web_config *config,
		     const struct ctl_credentials *given)
{
	unsigned char digest[DIGEST_SIZE];
	const struct ctl_web_account *a;

	if (gnutls_hash_fast(GNUTLS_DIG_SHA256, given->secret,
			     strlen(given->secret), digest) < 0)
		return hashed_account_of(config, given);
	if (!(a = recall(digest, given)) &&
	    (a = hashed_account_of(config, given)))
		remember(a, digest);
	explicit_bzero(digest, sizeof(digest));
	return a;
}
