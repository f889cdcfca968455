/* wrapper-program - allocates through allocation wrappers, for the
 * end-to-end test of memprof-report (runtime.sh), which must charge each
 * block to the function that asked for it:
 *  - pass_on() only hands its requests to malloc, for three functions:
 *    a wrapper the report finds by itself;
 *  - xmalloc() is called from one function only, but is a well-known
 *    wrapper name;
 *  - copy_name() copies with strdup(), the C library's wrapper;
 *  - shared() allocates for three functions too, but also through
 *    make_node(): it does more than pass requests on, so it is a site,
 *    and so is make_node(), which only shared() calls.
 *
 * Every block is at least 1 KiB, so that at SPPROF_SAMPLING_RATE=1 the
 * estimates are exact (see alloc-program.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "site.h"

SITE static void *pass_on(size_t size)
{
	return touch(malloc(size));
}

SITE static void *xmalloc(size_t size)
{
	return touch(malloc(size));
}

SITE static void *make_node(size_t size)
{
	return touch(malloc(size));
}

SITE static void *shared(size_t size)
{
	touch(make_node(size));
	return touch(malloc(size));
}

SITE static void parse_header(void)
{
	pass_on(100000);
	shared(2048);
}

SITE static void build_index(void)
{
	pass_on(200000);
	shared(2048);
}

SITE static void read_body(void)
{
	pass_on(300000);
	shared(2048);
}

SITE static void load_config(void)
{
	touch(xmalloc(50000));
}

SITE static void copy_name(void)
{
	static char name[4000];

	memset(name, 'n', sizeof(name) - 1);
	touch(strdup(name));
}

int main(void)
{
	parse_header();
	build_index();
	read_body();
	load_config();
	copy_name();
	return 0;
}
