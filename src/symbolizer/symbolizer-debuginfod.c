/* symbolizer-debuginfod.c - debug files fetched by build-id from the
 * servers in DEBUGINFOD_URLS (see symbolizer-internal.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolizer-internal.h"

#ifdef HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>

int debug_file_by_debuginfod(void **client, const char *build_id_hex,
			     struct elf_file *out, const char **problem)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char *path = NULL;
	int fd;

	*problem = NULL;
	/* Opt-in, as for gdb and the other tools of elfutils: no servers
	 * named, nothing asked. */
	if (urls == NULL || urls[0] == '\0')
		return -1;
	if (*client == NULL && (*client = debuginfod_begin()) == NULL)
		return *problem = "cannot start a debuginfod client", -1;
	/* A length of 0: the build-id is given as a hex string. */
	fd = debuginfod_find_debuginfo(*client,
				       (const unsigned char *)build_id_hex, 0,
				       &path);
	if (fd < 0) {
		if (fd != -ENOENT)
			*problem = strerror(-fd);
		return -1;
	}
	close(fd);
	if (elf_file_open(out, path, problem) != 0) {
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

void debuginfod_client_free(void *client)
{
	if (client != NULL)
		debuginfod_end(client);
}
#else
int debug_file_by_debuginfod(void **client, const char *build_id_hex,
			     struct elf_file *out, const char **problem)
{
	(void)client, (void)build_id_hex, (void)out;
	*problem = NULL;
	return -1;
}

void debuginfod_client_free(void *client)
{
	(void)client;
}
#endif
