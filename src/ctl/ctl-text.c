/* ctl-text.c - text from other users, made safe to show (see ctl-text.h). */
#include "config.h"

#include "ctl-text.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

size_t ctl_utf8_length(const unsigned char *s, size_t n)
{
	unsigned char low = 0x80, high = 0xbf;
	size_t length;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		length = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		length = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		length = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		low = 0xa0;
	else if (s[0] == 0xed)
		high = 0x9f;
	else if (s[0] == 0xf0)
		low = 0x90;
	else if (s[0] == 0xf4)
		high = 0x8f;
	if (length > n || s[1] < low || s[1] > high)
		return 0;
	for (size_t i = 2; i < length; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return length;
}

/* A C1 control is U+0080-U+009F, in UTF-8 0xc2 0x80-0x9f. */
static bool shown_as_is(const unsigned char *s, size_t length)
{
	if (length == 1)
		return s[0] >= 0x20 && s[0] < 0x7f && s[0] != '\\';
	return !(s[0] == 0xc2 && s[1] <= 0x9f);
}

/* Appends byte c escaped at *at; false when it does not fit. */
static bool put_escaped(char *out, size_t size, size_t *at, unsigned char c)
{
	if (*at + 4 >= size)
		return false;
	if (c == '\\') {
		memcpy(out + *at, "\\\\", 2);
		*at += 2;
	} else {
		*at += (size_t)snprintf(out + *at, size - *at, "\\x%02x", c);
	}
	return true;
}

const char *ctl_escaped(const char *text, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n = strlen(text), at = 0, step;
	bool room = size > 0;

	for (size_t i = 0; i < n && room; i += step) {
		size_t length = ctl_utf8_length(s + i, n - i);

		step = length ? length : 1;
		if (length && shown_as_is(s + i, length)) {
			room = at + length < size;
			if (room) {
				memcpy(out + at, s + i, length);
				at += length;
			}
			continue;
		}
		/* A character of several bytes that is a control (C1)
		 * shows each of its bytes. */
		for (size_t k = 0; k < step && room; k++)
			room = put_escaped(out, size, &at, s[i + k]);
	}
	if (size)
		out[at] = '\0';
	return out;
}
