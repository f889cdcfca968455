/* wrap-util.c - messages and string building shared by memprof-wrap.
 * See wrap-util.h for the contract. */
#include "config.h"

#include "wrap-util.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Noreturn void out_of_memory(void)
{
	/* Not wrap_error(), which allocates. */
	fputs(WRAP_PROGRAM ": out of memory\n", stderr);
	exit(1);
}

char *wrap_escape(const char *text)
{
	const unsigned char *in = (const unsigned char *)text;
	size_t n = strlen(text);
	char *escaped = wrap_alloc(4 * n + 1), *out = escaped;

	for (size_t i = 0; i < n;) {
		size_t shown = in[i] == '\t' ? 1
						: utf8_shown_length(in + i, n - i);

		if (shown == 0) {
			out += sprintf(out, "\\x%02x", in[i]);
			i++;
			continue;
		}
		memcpy(out, in + i, shown);
		out += shown;
		i += shown;
	}
	*out = '\0';
	return escaped;
}

void wrap_show(const char *prefix, const char *text)
{
	char *escaped = wrap_escape(text);
	char *line = wrap_format("%s%s\n", prefix, escaped);

	/* One write: stderr is unbuffered, and a line written a piece at a
	 * time interleaves with other programs' output. */
	fwrite(line, 1, strlen(line), stderr);
	free(line);
	free(escaped);
}

void wrap_error(const char *format, ...)
{
	va_list args;
	char *message;

	va_start(args, format);
	if (vasprintf(&message, format, args) < 0)
		out_of_memory();
	va_end(args);
	wrap_show(WRAP_PROGRAM ": ", message);
	free(message);
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
