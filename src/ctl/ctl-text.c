/* ctl-text.c - text from other users, made safe to show (see ctl-text.h). */
#include "config.h"

#include "ctl-text.h"
#include "utf8.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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
		size_t shown = s[i] == '\\' ? 0 : utf8_shown_length(s + i, n - i);

		if (shown) {
			step = shown;
			room = at + shown < size;
			if (room) {
				memcpy(out + at, s + i, shown);
				at += shown;
			}
			continue;
		}
		/* A character of several bytes that is a control (C1)
		 * shows each of its bytes. */
		step = utf8_char_length(s + i, n - i);
		step = step ? step : 1;
		for (size_t k = 0; k < step && room; k++)
			room = put_escaped(out, size, &at, s[i + k]);
	}
	if (size)
		out[at] = '\0';
	return out;
}
