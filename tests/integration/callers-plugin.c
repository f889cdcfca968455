/* callers-plugin.c - a plugin the caller-chain test program loads with
 * dlopen (see callers.c); loading it allocates too. */
#include "config.h"

#include <stdlib.h>

#include "callers.h"

void *plugin_block;

KEEP_FRAME static void plugin_leaf(void)
{
	plugin_block = malloc(SITE_BYTES);
	AFTER_CALL();
}

KEEP_FRAME void plugin_outer(void)
{
	plugin_leaf();
	AFTER_CALL();
}

__attribute__((constructor)) static void plugin_loaded(void)
{
	void *volatile block = malloc(64);

	free(block);
}
