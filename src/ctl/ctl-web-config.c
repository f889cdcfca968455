/* ctl-web-config.c - the web configuration file of memprof-ctl serve
 * (see ctl-web-config.h), read with libyaml's document loader. */
#include "config.h"

#include "ctl-web-config.h"

#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "compiler.h"

struct walk {
	yaml_document_t *document;
	const char *name; /* of the file */
	struct ctl_web_config *config;
	char *why;
	size_t size;
	int min_version, max_version; /* minor numbers: TLS1.x */
};

/* The keys of one mapping: take reads the value; NULL for a key of the
 * exporter toolkit that this server does not support. */
struct key_rule {
	const char *key;
	int (*take)(struct walk *w, yaml_node_t *value);
};

static int refuse(struct walk *w, const yaml_node_t *at, const char *format,
		  ...) __attribute__((format(printf, 3, 4)));

static int refuse(struct walk *w, const yaml_node_t *at, const char *format,
		  ...)
{
	char problem[512];
	va_list ap;

	va_start(ap, format);
	vsnprintf(problem, sizeof(problem), format, ap);
	va_end(ap);
	snprintf(w->why, w->size, "%s:%zu: %s", w->name,
		 at->start_mark.line + 1, problem);
	return -1;
}

static yaml_node_t *node(struct walk *w, int id)
{
	return yaml_document_get_node(w->document, id);
}

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* A string value, not empty; the copy in *out. */
static int take_string(struct walk *w, yaml_node_t *value, const char *what,
		       char **out)
{
	if (value->type != YAML_SCALAR_NODE || !scalar(value)[0])
		return refuse(w, value, "%s takes a string", what);
	if (strlen(scalar(value)) != value->data.scalar.length)
		return refuse(w, value, "%s holds a NUL byte", what);
	if (!(*out = strdup(scalar(value))))
		return refuse(w, value, "out of memory");
	return 0;
}

/* Runs the rule of every key of a mapping; a key given twice, unknown or
 * one this server does not support is refused. */
static int walk_mapping(struct walk *w, yaml_node_t *map, const char *what,
			const struct key_rule *rules, size_t count)
{
	unsigned long seen = 0;

	if (map->type == YAML_SCALAR_NODE && !scalar(map)[0])
		return 0; /* "key:" with nothing: an empty mapping */
	if (map->type != YAML_MAPPING_NODE)
		return refuse(w, map, "%s takes a mapping", what);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *key = node(w, p->key);
		size_t i = 0;

		if (key->type != YAML_SCALAR_NODE)
			return refuse(w, key, "a key of %s is not a string", what);
		while (i < count && strcmp(rules[i].key, scalar(key)) != 0)
			i++;
		if (i == count)
			return refuse(w, key, "unknown key '%.64s' in %s",
				      scalar(key), what);
		if (!rules[i].take)
			return refuse(w, key, "%s is not supported by "
				      "memprof-ctl serve", rules[i].key);
		if (seen & (1ul << i))
			return refuse(w, key, "%s given twice", rules[i].key);
		seen |= 1ul << i;
		if (rules[i].take(w, node(w, p->value)) < 0)
			return -1;
	}
	return 0;
}

static int take_cert_file(struct walk *w, yaml_node_t *value)
{
	return take_string(w, value, "cert_file", &w->config->cert_file);
}

static int take_key_file(struct walk *w, yaml_node_t *value)
{
	return take_string(w, value, "key_file", &w->config->key_file);
}

static int take_client_ca_file(struct walk *w, yaml_node_t *value)
{
	return take_string(w, value, "client_ca_file",
			   &w->config->client_ca_file);
}

static int take_client_auth_type(struct walk *w, yaml_node_t *value)
{
	static const struct {
		const char *name;
		bool supported, verify;
	} types[] = {
		{ "NoClientCert", true, false },
		{ "RequireAndVerifyClientCert", true, true },
		{ "RequestClientCert", false, false },
		{ "RequireAnyClientCert", false, false },
		{ "VerifyClientCertIfGiven", false, false },
	};

	for (size_t i = 0; value->type == YAML_SCALAR_NODE &&
			   i < ARRAY_SIZE(types); i++) {
		if (strcmp(scalar(value), types[i].name) != 0)
			continue;
		if (!types[i].supported)
			return refuse(w, value, "client_auth_type %s is not "
				      "supported by memprof-ctl serve "
				      "(NoClientCert, RequireAndVerifyClientCert)",
				      types[i].name);
		w->config->verify_clients = types[i].verify;
		return 0;
	}
	return refuse(w, value, "client_auth_type takes NoClientCert or "
		      "RequireAndVerifyClientCert");
}

/* TLS10-TLS13 as its minor number, in *minor. */
static int take_version(struct walk *w, yaml_node_t *value, const char *what,
			int *minor)
{
	const char *v = value->type == YAML_SCALAR_NODE ? scalar(value) : "";

	if (strncmp(v, "TLS1", 4) != 0 || v[4] < '0' || v[4] > '3' || v[5])
		return refuse(w, value, "%s takes TLS10, TLS11, TLS12 or "
			      "TLS13", what);
	*minor = v[4] - '0';
	return 0;
}

static int take_min_version(struct walk *w, yaml_node_t *value)
{
	return take_version(w, value, "min_version", &w->min_version);
}

static int take_max_version(struct walk *w, yaml_node_t *value)
{
	return take_version(w, value, "max_version", &w->max_version);
}

static int take_tls(struct walk *w, yaml_node_t *value)
{
	static const struct key_rule rules[] = {
		{ "cert_file", take_cert_file },
		{ "key_file", take_key_file },
		{ "client_ca_file", take_client_ca_file },
		{ "client_auth_type", take_client_auth_type },
		{ "min_version", take_min_version },
		{ "max_version", take_max_version },
		{ "cipher_suites", NULL },
		{ "curve_preferences", NULL },
		{ "prefer_server_cipher_suites", NULL },
		{ "client_allowed_sans", NULL },
		{ "cert", NULL },
		{ "key", NULL },
	};

	return walk_mapping(w, value, "tls_server_config", rules,
			    ARRAY_SIZE(rules));
}

/* A bcrypt hash, as htpasswd -B and the exporter toolkit make them. */
static bool is_bcrypt(const char *hash)
{
	return (strncmp(hash, "$2y$", 4) == 0 || strncmp(hash, "$2b$", 4) == 0 ||
		strncmp(hash, "$2a$", 4) == 0) &&
	       crypt_checksalt(hash) == CRYPT_SALT_OK;
}

/* NAME: HASH pairs, into the accounts. */
static int take_accounts(struct walk *w, yaml_node_t *map, const char *what,
			 bool bearer)
{
	struct ctl_web_config *c = w->config;

	if (map->type == YAML_SCALAR_NODE && !scalar(map)[0])
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return refuse(w, map, "%s takes a mapping of names to "
			      "bcrypt hashes", what);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *key = node(w, p->key), *value = node(w, p->value);
		struct ctl_web_account *a;

		if (key->type != YAML_SCALAR_NODE || !scalar(key)[0])
			return refuse(w, key, "a name of %s is not a string",
				      what);
		if (ctl_web_config_account(c, scalar(key), bearer))
			return refuse(w, key, "%.64s is given twice in %s",
				      scalar(key), what);
		a = realloc(c->accounts, (c->account_count + 1) * sizeof(*a));
		if (!a)
			return refuse(w, key, "out of memory");
		c->accounts = a;
		a = &c->accounts[c->account_count++];
		*a = (struct ctl_web_account){ .bearer = bearer };
		if (take_string(w, key, what, &a->name) < 0 ||
		    take_string(w, value, what, &a->hash) < 0)
			return -1;
		if (!is_bcrypt(a->hash))
			return refuse(w, value, "the hash of %.64s is not a "
				      "bcrypt hash ($2y$ or $2b$, as htpasswd "
				      "-nB makes them)", a->name);
	}
	return 0;
}

static int take_basic_auth_users(struct walk *w, yaml_node_t *value)
{
	return take_accounts(w, value, "basic_auth_users", false);
}

static int take_bearer_tokens(struct walk *w, yaml_node_t *value)
{
	return take_accounts(w, value, "bearer_tokens", true);
}

/* "all", or a list of local user names. */
static int take_reader_users(struct walk *w, yaml_node_t *value,
			     struct ctl_web_reader *r)
{
	const char *what = "an entry of readers";

	if (value->type == YAML_SCALAR_NODE && strcmp(scalar(value), "all") == 0) {
		r->all = true;
		return 0;
	}
	if (value->type != YAML_SEQUENCE_NODE)
		return refuse(w, value, "%s takes all or a list of local "
			      "users", what);
	r->user_count = (size_t)(value->data.sequence.items.top -
				 value->data.sequence.items.start);
	if (!(r->users = calloc(r->user_count + 1, sizeof(*r->users))))
		return refuse(w, value, "out of memory");
	for (size_t i = 0; i < r->user_count; i++)
		if (take_string(w, node(w, value->data.sequence.items.start[i]),
				what, &r->users[i]) < 0)
			return -1;
	return 0;
}

static int take_readers(struct walk *w, yaml_node_t *map)
{
	struct ctl_web_config *c = w->config;

	if (map->type != YAML_MAPPING_NODE)
		return refuse(w, map, "readers takes a mapping of account "
			      "names to all or a list of local users");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *key = node(w, p->key);
		struct ctl_web_reader *r;

		if (key->type == YAML_SCALAR_NODE &&
		    ctl_web_config_reader(c, scalar(key)))
			return refuse(w, key, "%.64s is given twice in readers",
				      scalar(key));
		r = realloc(c->readers, (c->reader_count + 1) * sizeof(*r));
		if (!r)
			return refuse(w, key, "out of memory");
		c->readers = r;
		r = &c->readers[c->reader_count++];
		*r = (struct ctl_web_reader){ 0 };
		if (take_string(w, key, "a name of readers", &r->name) < 0 ||
		    take_reader_users(w, node(w, p->value), r) < 0)
			return -1;
	}
	return 0;
}

static const struct key_rule top_rules[] = {
	{ "tls_server_config", take_tls },
	{ "basic_auth_users", take_basic_auth_users },
	{ "bearer_tokens", take_bearer_tokens },
	{ "readers", take_readers },
	{ "http_server_config", NULL },
};

/* What the keys say together. */
static int check_whole(struct walk *w, yaml_node_t *root)
{
	struct ctl_web_config *c = w->config;
	size_t n;

	if (!c->cert_file != !c->key_file)
		return refuse(w, root, "tls_server_config needs both cert_file "
			      "and key_file");
	if (c->verify_clients != !!c->client_ca_file)
		return refuse(w, root, "client_ca_file goes with "
			      "client_auth_type: RequireAndVerifyClientCert");
	if ((c->client_ca_file || w->min_version >= 0 || w->max_version >= 0) &&
	    !c->cert_file)
		return refuse(w, root, "tls_server_config without cert_file "
			      "and key_file");
	for (size_t i = 0; i < c->reader_count; i++)
		if (!ctl_web_config_account(c, c->readers[i].name, false) &&
		    !ctl_web_config_account(c, c->readers[i].name, true))
			return refuse(w, root, "readers names %.64s, who is in "
				      "neither basic_auth_users nor "
				      "bearer_tokens", c->readers[i].name);
	if (w->min_version < 0)
		w->min_version = 2;
	if (w->max_version < 0)
		w->max_version = 3;
	if (w->min_version > w->max_version)
		return refuse(w, root, "min_version is above max_version");
	n = (size_t)snprintf(c->tls_priorities, sizeof(c->tls_priorities),
			     "NORMAL:-VERS-ALL");
	for (int v = w->min_version; v <= w->max_version; v++)
		n += (size_t)snprintf(c->tls_priorities + n,
				      sizeof(c->tls_priorities) - n,
				      ":+VERS-TLS1.%d", v);
	return 0;
}

int ctl_web_config_parse(const char *text, size_t length, const char *name,
			 struct ctl_web_config *out, char *why, size_t size)
{
	yaml_parser_t parser;
	yaml_document_t document;
	struct walk w = { .document = &document, .name = name, .config = out,
			  .why = why, .size = size, .min_version = -1,
			  .max_version = -1 };
	yaml_node_t *root;
	int rc;

	*out = (struct ctl_web_config){ 0 };
	if (!yaml_parser_initialize(&parser)) {
		snprintf(why, size, "%s: out of memory", name);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text,
				     length);
	if (!yaml_parser_load(&parser, &document)) {
		snprintf(why, size, "%s:%zu: %s", name,
			 parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		return -1;
	}
	root = yaml_document_get_root_node(&document);
	rc = 0;
	if (root) /* else an empty file: no TLS, no accounts */
		rc = walk_mapping(&w, root, "the file", top_rules,
				  ARRAY_SIZE(top_rules));
	if (rc == 0 && root)
		rc = check_whole(&w, root);
	else if (rc == 0)
		snprintf(out->tls_priorities, sizeof(out->tls_priorities),
			 "NORMAL");
	yaml_document_delete(&document);
	yaml_parser_delete(&parser);
	return rc;
}

const struct ctl_web_account *
ctl_web_config_account(const struct ctl_web_config *config, const char *name,
		       bool bearer)
{
	for (size_t i = 0; i < config->account_count; i++)
		if (config->accounts[i].bearer == bearer &&
		    config->accounts[i].name &&
		    strcmp(config->accounts[i].name, name) == 0)
			return &config->accounts[i];
	return NULL;
}

const struct ctl_web_reader *
ctl_web_config_reader(const struct ctl_web_config *config, const char *name)
{
	for (size_t i = 0; i < config->reader_count; i++)
		if (config->readers[i].name &&
		    strcmp(config->readers[i].name, name) == 0)
			return &config->readers[i];
	return NULL;
}

void ctl_web_config_free(struct ctl_web_config *c)
{
	for (size_t i = 0; i < c->account_count; i++) {
		free(c->accounts[i].name);
		free(c->accounts[i].hash);
	}
	for (size_t i = 0; i < c->reader_count; i++) {
		for (size_t j = 0; c->readers[i].users &&
				   j < c->readers[i].user_count; j++)
			free(c->readers[i].users[j]);
		free(c->readers[i].users);
		free(c->readers[i].uids);
		free(c->readers[i].name);
	}
	free(c->accounts);
	free(c->readers);
	free(c->cert_file);
	free(c->key_file);
	free(c->client_ca_file);
	free(c->cert);
	free(c->key);
	free(c->client_ca);
	*c = (struct ctl_web_config){ 0 };
}

/* The whole of a file the server trusts, NUL-terminated, in *out, and
 * its mode in *mode: it must be a regular file of root or of this user
 * that no one else may write.  0, or -1 with why set. */
static int read_trusted(const char *path, char **out, mode_t *mode, char *why,
			size_t size)
{
	struct stat st;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	const char *problem = NULL;

	*out = NULL;
	if (fd < 0 || fstat(fd, &st) < 0)
		problem = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		problem = "not a regular file";
	else if (st.st_uid != 0 && st.st_uid != geteuid())
		problem = "neither root's nor this user's";
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		problem = "others may write it (chmod go-w)";
	else if (st.st_size > CTL_WEB_CONFIG_MAX_SIZE)
		problem = "larger than 64 KiB";
	else if (!(*out = malloc((size_t)st.st_size + 1)))
		problem = "out of memory";
	else
		n = read(fd, *out, (size_t)st.st_size);
	if (!problem && n != st.st_size)
		problem = n < 0 ? strerror(errno) : "changed while read";
	else if (!problem && memchr(*out, '\0', (size_t)n))
		problem = "holds a NUL byte"; /* what follows would be lost */
	if (fd >= 0)
		close(fd);
	if (problem) {
		snprintf(why, size, "%s: %s", path, problem);
		free(*out);
		*out = NULL;
		return -1;
	}
	(*out)[n] = '\0';
	*mode = st.st_mode;
	return 0;
}

/* A file holding secrets (keys, hashes that can be guessed offline) must
 * not be readable by others either. */
static int check_secret(const char *path, mode_t mode, char *why, size_t size)
{
	if (!(mode & S_IROTH))
		return 0;
	snprintf(why, size, "%s: it holds secrets that anyone may read "
		 "(chmod o-r)", path);
	return -1;
}

/* A file named in the configuration: relative to its directory. */
static int read_named(const char *config_path, const char *name, bool secret,
		      char **out, char *why, size_t size)
{
	char copy[PATH_MAX], path[PATH_MAX];
	mode_t mode;

	if (!name)
		return 0;
	snprintf(copy, sizeof(copy), "%s", config_path);
	if (name[0] == '/')
		snprintf(path, sizeof(path), "%s", name);
	else if ((size_t)snprintf(path, sizeof(path), "%s/%s", dirname(copy),
				  name) >= sizeof(path))
		return snprintf(why, size, "%s: too long a path", name), -1;
	if (read_trusted(path, out, &mode, why, size) < 0)
		return -1;
	return secret ? check_secret(path, mode, why, size) : 0;
}

static int resolve_readers(const char *path, struct ctl_web_config *c,
			   char *why, size_t size)
{
	for (size_t i = 0; i < c->reader_count; i++) {
		struct ctl_web_reader *r = &c->readers[i];

		if (r->all)
			continue;
		if (!(r->uids = calloc(r->user_count + 1, sizeof(*r->uids))))
			return snprintf(why, size, "out of memory"), -1;
		for (size_t j = 0; j < r->user_count; j++) {
			struct passwd *pw = getpwnam(r->users[j]);

			if (!pw)
				return snprintf(why, size, "%s: readers: %s: "
						"no such local user", path,
						r->users[j]), -1;
			r->uids[j] = pw->pw_uid;
		}
	}
	return 0;
}

int ctl_web_config_load(const char *path, struct ctl_web_config *out,
			char *why, size_t size)
{
	char *text;
	mode_t mode;
	int rc;

	*out = (struct ctl_web_config){ 0 };
	if (read_trusted(path, &text, &mode, why, size) < 0)
		return -1;
	rc = ctl_web_config_parse(text, strlen(text), path, out, why, size);
	free(text);
	if (rc == 0 && out->account_count)
		rc = check_secret(path, mode, why, size);
	if (rc == 0)
		rc = resolve_readers(path, out, why, size);
	if (rc == 0)
		rc = read_named(path, out->cert_file, false, &out->cert, why,
				size);
	if (rc == 0)
		rc = read_named(path, out->key_file, true, &out->key, why, size);
	if (rc == 0)
		rc = read_named(path, out->client_ca_file, false,
				&out->client_ca, why, size);
	return rc;
}
