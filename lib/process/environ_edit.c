/* environ_edit.c - the environment, changed in place (see environ_edit.h). */
#include "config.h"

#include "environ_edit.h"

#include <string.h>
#include <unistd.h>

#include "rawmem.h"

/* Whether entry is a definition of the name that `named` (a name, or an
 * entry "NAME=value") starts with. */
static int defines(const char *entry, const char *named)
{
	size_t len = strcspn(named, "=");

	return strncmp(entry, named, len) == 0 && entry[len] == '=';
}

int environ_put(const char *entry)
{
	size_t n = 0;
	char **table;

	for (; environ && environ[n]; n++)
		if (defines(environ[n], entry)) {
			environ[n] = (char *)entry;
			return 0;
		}
	table = rawmem_map((n + 2) * sizeof(*table));
	if (!table)
		return -1;
	if (n)
		memcpy(table, environ, n * sizeof(*table));
	table[n] = (char *)entry;
	table[n + 1] = NULL;
	environ = table;
	return 0;
}

void environ_remove(const char *name)
{
	size_t to = 0;

	if (!environ)
		return;
	for (size_t from = 0; environ[from]; from++)
		if (!defines(environ[from], name))
			environ[to++] = environ[from];
	environ[to] = NULL;
}
