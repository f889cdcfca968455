/* report-util.c - small helpers of memprof-report (see report-util.h). */
#include "config.h"

#include "report-util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *program_name = "memprof-report";

void fatal_program_name(const char *name)
{
	program_name = name;
}

void fatal(const char *format, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_name);
	va_start(ap, format);
	vfprintf(stderr, format, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void out_of_memory(void)
{
	fatal("out of memory");
}

static void *checked(void *p)
{
	if (!p)
		out_of_memory();
	return p;
}

void *xmalloc(size_t size)
{
	return checked(malloc(size ? size : 1));
}

void *xcalloc(size_t count, size_t size)
{
	return checked(calloc(count ? count : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t count, size_t size)
{
	size_t bytes = count * size;

	if (size && count > SIZE_MAX / size)
		out_of_memory();
	return checked(realloc(p, bytes ? bytes : 1));
}

void *xgrow(void *array, size_t *capacity, size_t needed, size_t size)
{
	size_t n = *capacity ? *capacity : 16;

	if (needed <= *capacity)
		return array;
	while (n < needed)
		n *= 2;
	*capacity = n;
	return xrealloc(array, n, size);
}

char *xstrdup(const char *text)
{
	return checked(strdup(text));
}

char *xasprintf(const char *format, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, format);
	n = vasprintf(&text, format, ap);
	va_end(ap);
	return checked(n < 0 ? NULL : text);
}

static void sb_reserve(struct strbuf *sb, size_t more)
{
	size_t capacity = sb->capacity ? sb->capacity : 64;

	if (sb->length + more + 1 <= sb->capacity)
		return;
	while (capacity < sb->length + more + 1)
		capacity *= 2;
	sb->text = xrealloc(sb->text, capacity, 1);
	sb->capacity = capacity;
}

void sb_add(struct strbuf *sb, const char *text)
{
	size_t n = strlen(text);

	sb_reserve(sb, n);
	memcpy(sb->text + sb->length, text, n + 1);
	sb->length += n;
}

void sb_printf(struct strbuf *sb, const char *format, ...)
{
	va_list ap;
	int n;

	va_start(ap, format);
	n = vsnprintf(NULL, 0, format, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb_reserve(sb, (size_t)n);
	va_start(ap, format);
	vsnprintf(sb->text + sb->length, (size_t)n + 1, format, ap);
	va_end(ap);
	sb->length += (size_t)n;
}

void sb_add_uint(struct strbuf *sb, uint64_t value, unsigned base)
{
	char digits[64];
	size_t n = 0;

	do {
		digits[n++] = "0123456789abcdef"[value % base];
		value /= base;
	} while (value);
	sb_reserve(sb, n);
	while (n)
		sb->text[sb->length++] = digits[--n];
	sb->text[sb->length] = '\0';
}

char *sb_take(struct strbuf *sb)
{
	char *text = sb->text ? sb->text : xstrdup("");

	sb->text = NULL;
	sb->length = sb->capacity = 0;
	return text;
}

void format_size(char out[32], double bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB",
					     "PiB", "EiB" };
	double value = bytes / 1024.0;
	size_t unit = 0;

	if (bytes < 1023.5) {
		snprintf(out, 32, "%.0f B", bytes);
		return;
	}
	/* Move up while the value would print as 1024.0 or more. */
	while (value >= 1023.95 && unit + 1 < sizeof(units) / sizeof(units[0])) {
		value /= 1024.0;
		unit++;
	}
	snprintf(out, 32, "%.1f %s", value, units[unit]);
}

void format_count(char out[32], double count)
{
	snprintf(out, 32, "%.0f", round(count));
}

void format_signed(char out[SIGNED_SIZE], double value, bool is_count,
		   bool plus)
{
	char digits[32];

	if (is_count)
		format_count(digits, fabs(value));
	else
		format_size(digits, fabs(value));
	/* What rounds to zero has no sign. */
	if (!(fabs(value) >= 0.5))
		value = 0;
	snprintf(out, SIGNED_SIZE, "%s%s",
		 value < 0 ? "-" : plus && value > 0 ? "+" : "", digits);
}
