/* ctl-serve-secrets.h - which account of the web configuration a
 * password or a token opens.
 *
 * Contract: ctl_serve_account_of() checks Basic credentials against the
 * bcrypt hash of the account they name, and a Bearer token against the
 * hash of each token in turn, with crypt(3), the results compared in
 * constant time; a name without an account costs one hash all the same.
 * A hash costs tens of milliseconds of a processor: at most
 * SECRETS_HASHED_AT_ONCE are computed at once, so that a crowd of wrong
 * passwords cannot take every processor, and the SHA-256 of the last
 * secrets that opened an account are remembered, so that a collector
 * scraping again is recognized without one.  Thread-safe.
 */
#ifndef SPPROF_CTL_SERVE_SECRETS_H
#define SPPROF_CTL_SERVE_SECRETS_H

#include "ctl-serve-request.h"
#include "ctl-web-config.h"

/* The account, or NULL. */
const struct ctl_web_account *
ctl_serve_account_of(const struct ctl_web_config *config,
		     const struct ctl_credentials *given);

#endif /* SPPROF_CTL_SERVE_SECRETS_H */
