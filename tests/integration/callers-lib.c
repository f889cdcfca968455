/* callers-lib.c - a shared library between the caller-chain test
 * program and its allocation site (see callers.c). */
#include "config.h"

#include "callers.h"

KEEP_FRAME static void library_inner(site_function *callback)
{
	callback();
	AFTER_CALL();
}

KEEP_FRAME void library_outer(site_function *callback)
{
	library_inner(callback);
	AFTER_CALL();
}
