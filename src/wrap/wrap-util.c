/* wrap-util.c - messages and string building shared by memprof-wrap.
 * See wrap-util.h for the contract. */
#include "config.h"

#include "wrap-util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void wrap_error(const char *format, ...)
{
	va_list args;

	fputs(WRAP_PROGRAM ": ", stderr);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
}

static _Noreturn void out_of_memory(void)
{
	wrap_error("out of memory");
	exit(1);
}

void *wrap_alloc(size_t size)
{
	void *memory = malloc(size);

	if (memory == NULL)
		out_of_memory();
	return memory;
}

char *wrap_format(const char *format, ...)
{
	va_list args;
	char *text;
	int length;

	va_start(args, format);
	length = vasprintf(&text, format, args);
	va_end(args);
	if (length < 0)
		out_of_memory();
	return text;
}
