/* ctl-web-config.h - the web configuration file of memprof-ctl serve, in
 * the format of the Prometheus exporter toolkit, which Prometheus, Grafana
 * Alloy and Parca speak as clients:
 *
 *   tls_server_config:
 *     cert_file: serve.crt          # PEM; relative to the file's directory
 *     key_file: serve.key
 *     min_version: TLS12            # TLS10-TLS13 (default TLS12)
 *     max_version: TLS13
 *     client_auth_type: RequireAndVerifyClientCert   # or NoClientCert
 *     client_ca_file: clients.crt
 *   basic_auth_users:               # NAME: bcrypt hash (htpasswd -nB NAME)
 *     prometheus: $2y$10$...
 *   bearer_tokens:                  # ours: NAME: bcrypt hash of a token
 *     alloy: $2y$10$...
 *   readers:                        # ours: what NAME may read
 *     alice: [alice]                #   the processes of these local users
 *     prometheus: all               #   every process (the default)
 *
 * Contract: ctl_web_config_parse() reads such a text from a buffer,
 * strictly: an unknown key, a key given twice, a value of the wrong kind,
 * a hash that is not bcrypt, a reader that names no account, a key of the
 * toolkit that memprof-ctl does not implement are refused with "NAME:LINE:
 * problem" in why.  It touches no file and asks no user database, so it
 * can be fed anything.  ctl_web_config_load() opens the file itself and
 * checks it first: a regular file of root or of the server's user that
 * no one else may write, and, when it holds accounts (their hashes may be
 * guessed offline), that no one else may read; the key file likewise.
 * It then reads the certificates and keys into memory and resolves the
 * local users of `readers`.
 */
#ifndef SPPROF_CTL_WEB_CONFIG_H
#define SPPROF_CTL_WEB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CTL_WEB_CONFIG_MAX_SIZE (64 * 1024)

struct ctl_web_account {
	char *name;
	char *hash;   /* crypt(3) bcrypt hash of the password or token */
	bool bearer;  /* from bearer_tokens, else basic_auth_users */
};

struct ctl_web_reader {
	char *name;        /* an account's name */
	bool all;          /* every process */
	char **users;      /* else the processes of these local users */
	size_t user_count;
	uid_t *uids;       /* theirs, once loaded */
};

struct ctl_web_config {
	char *cert_file, *key_file, *client_ca_file; /* NULL: none */
	bool verify_clients; /* RequireAndVerifyClientCert */
	char tls_priorities[128]; /* for GnuTLS, from min/max_version */
	struct ctl_web_account *accounts;
	size_t account_count;
	struct ctl_web_reader *readers;
	size_t reader_count;
	/* Read by ctl_web_config_load(), NUL-terminated PEM. */
	char *cert, *key, *client_ca;
};

/* 0, or -1 with why set; name is the file's, for messages.  *out is to
 * be freed with ctl_web_config_free() either way. */
int ctl_web_config_parse(const char *text, size_t length, const char *name,
			 struct ctl_web_config *out, char *why, size_t size);

int ctl_web_config_load(const char *path, struct ctl_web_config *out,
			char *why, size_t size);

void ctl_web_config_free(struct ctl_web_config *config);

/* The account called name of that kind, or NULL. */
const struct ctl_web_account *
ctl_web_config_account(const struct ctl_web_config *config, const char *name,
		       bool bearer);

/* What the account called name may read: its entry of readers, or NULL
 * when it has none (it may read every process). */
const struct ctl_web_reader *
ctl_web_config_reader(const struct ctl_web_config *config, const char *name);

#endif /* SPPROF_CTL_WEB_CONFIG_H */
