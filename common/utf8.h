/* utf8.h - the one rule for text that the runtime writes and the tools
 * read: well-formed UTF-8 as Unicode defines it, with no overlong forms,
 * no surrogates and nothing past U+10FFFF.
 *
 * Contract: utf8_char_length() gives the length (1 to 4) of the character
 * that starts at s, of the n bytes there, or 0 when none starts there: a
 * stray or cut byte, an overlong form, a surrogate.  Whoever repairs text
 * replaces such a byte alone and goes on with the next, so a repair never
 * swallows the character after it.  Pure functions, safe in the runtime's
 * hooks.
 */
#ifndef SPPROF_UTF8_H
#define SPPROF_UTF8_H

#include <stdbool.h>
#include <stddef.h>

static inline size_t utf8_char_length(const unsigned char *s, size_t n)
{
	/* The range of the second byte narrows for the lead bytes whose
	 * first continuation would make an overlong form (E0, F0), a
	 * surrogate (ED) or a value past U+10FFFF (F4). */
	unsigned char low = 0x80, high = 0xbf;
	size_t length;

	if (n == 0)
		return 0;
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

/* The length of the character at s when a terminal shows it as it is:
 * printable ASCII, or a well-formed character that is neither a C1
 * control (U+0080-U+009F, which a terminal obeys) nor one of the
 * bidirectional controls that reorder what follows (U+202A-U+202E,
 * U+2066-U+2069); else 0. */
static inline size_t utf8_shown_length(const unsigned char *s, size_t n)
{
	size_t length = utf8_char_length(s, n);

	if (length == 1)
		return s[0] >= 0x20 && s[0] < 0x7f;
	if (length == 2 && s[0] == 0xc2 && s[1] <= 0x9f)
		return 0;
	if (length == 3 && s[0] == 0xe2 &&
	    ((s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae) ||
	     (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)))
		return 0;
	return length;
}

static inline bool utf8_valid(const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;

	for (size_t i = 0, length; i < n; i += length)
		if ((length = utf8_char_length(s + i, n - i)) == 0)
			return false;
	return true;
}

#endif /* SPPROF_UTF8_H */
