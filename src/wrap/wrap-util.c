/* wrap-util.c - messages and string building shared by memprof-wrap.
 * See wrap-util.h for the contract. */
#include "config.h"

#include "wrap-util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Noreturn void out_of_memory(void)
{
	/* Not wrap_error(), which allocates. */
	fputs(WRAP_PROGRAM ": out of memory\n", stderr);
	exit(1);
}

/* The length of the UTF-8 sequence at S (N bytes left) when it is valid
 * and encodes a character a terminal shows as it is; else 0. */
static size_t shown_sequence_length(const unsigned char *s, size_t n)
{
	size_t length;
	uint32_t c, least;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		length = 2, c = s[0] & 0x1fu, least = 0x80;
	else if ((s[0] & 0xf0) == 0xe0)
		length = 3, c = s[0] & 0x0fu, least = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		length = 4, c = s[0] & 0x07u, least = 0x10000;
	else
		return 0;
	if (length > n)
		return 0;
	for (size_t i = 1; i < length; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3fu);
	}
	if (c < least || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0; /* overlong, too large, a surrogate */
	if (c <= 0x9f || (c >= 0x202a && c <= 0x202e) ||
	    (c >= 0x2066 && c <= 0x2069))
		return 0; /* C1 controls, bidirectional embeddings */
	return length;
}

char *wrap_escape(const char *text)
{
	const unsigned char *in = (const unsigned char *)text;
	size_t n = strlen(text);
	char *escaped = wrap_alloc(4 * n + 1), *out = escaped;

	for (size_t i = 0; i < n;) {
		size_t shown = in[i] >= 0x80 ? shown_sequence_length(in + i, n - i)
			       : in[i] == '\t' || (in[i] >= 0x20 && in[i] < 0x7f);

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
