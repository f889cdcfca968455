/* report-util.h - small helpers of memprof-report.
 *
 * Contract: allocation that cannot fail (out of memory ends the program
 * with exit status 1 and a message: a report without memory has nothing
 * better to do), a growable string, and the human formats of sizes and
 * counts used by every view.
 */
#ifndef SPPROF_REPORT_UTIL_H
#define SPPROF_REPORT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Names the program in the messages below ("memprof-report" unless
 * called; a program that borrows these helpers calls it first). */
void fatal_program_name(const char *name);
_Noreturn void out_of_memory(void);
/* "memprof-report: message", exit status 1. */
_Noreturn void fatal(const char *format, ...)
	__attribute__((format(printf, 1, 2)));
void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t count, size_t size);
char *xstrdup(const char *text);
/* `array` with room for at least `needed` items of `size` bytes, its
 * *capacity doubled as often as it takes. */
void *xgrow(void *array, size_t *capacity, size_t needed, size_t size);
char *xasprintf(const char *format, ...) __attribute__((format(printf, 1, 2)));

struct strbuf {
	char *text; /* NUL-terminated; NULL until something is added */
	size_t length, capacity;
};

void sb_add(struct strbuf *sb, const char *text);
void sb_printf(struct strbuf *sb, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
/* The digits of value in base 10 or 16 (lower case), as "%" PRIu64 or
 * "%" PRIx64 write them, without printf's cost: for keys built once per
 * frame of a profile. */
void sb_add_uint(struct strbuf *sb, uint64_t value, unsigned base);
/* The text, handed over to the caller ("" when empty); sb is emptied. */
char *sb_take(struct strbuf *sb);

/* "512 B", "1.5 KiB", "12.0 MiB", "3.2 GiB", "1.0 TiB". */
void format_size(char out[32], double bytes);
/* Rounded to a whole number: "1234567". */
void format_count(char out[32], double count);
/* Room for a signed size or count. */
#define SIGNED_SIZE 40
/* A size (a count when `is_count`) with its sign: "-1.5 KiB", "+12";
 * with `plus` false, only a negative one has a sign. */
void format_signed(char out[SIGNED_SIZE], double value, bool is_count,
		   bool plus);

#endif /* SPPROF_REPORT_UTIL_H */
