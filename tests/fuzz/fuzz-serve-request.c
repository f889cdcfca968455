/* fuzz-serve-request.c - what memprof-ctl serve reads from a request
 * (ctl-serve-request.h), fed anything.  The input is three lines: the
 * path, the query (KEY=VALUE pairs joined by '&', as libmicrohttpd hands
 * them over one by one) and the value of the Authorization header. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-serve-request.h"

/* The next line of *text (cut at '\n'), or NULL at the end. */
static char *next_line(char **text)
{
	char *line = *text, *end;

	if (!line)
		return NULL;
	end = strchr(line, '\n');
	if (end)
		*end++ = '\0';
	*text = end;
	return line;
}

static void parse_query(char *query)
{
	struct ctl_query q = { 0 };
	char *pair, *rest = query;

	while ((pair = strsep(&rest, "&"))) {
		char *value = strchr(pair, '=');

		if (value)
			*value++ = '\0';
		if (ctl_serve_parameter(&q, pair, value) < 0 &&
		    (!q.status || !q.why[0]))
			abort(); /* a refusal always says why */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *rest = text, *path, *query, *header;
	struct ctl_credentials credentials;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	path = next_line(&rest);
	query = next_line(&rest);
	header = next_line(&rest);
	if (path)
		ctl_serve_route(path);
	if (query)
		parse_query(query);
	if (ctl_serve_authorization(header, &credentials) == 0 &&
	    (strlen(credentials.name) >= sizeof(credentials.name) ||
	     strlen(credentials.secret) >= sizeof(credentials.secret)))
		abort();
	ctl_credentials_clear(&credentials);
	free(text);
	return 0;
}
