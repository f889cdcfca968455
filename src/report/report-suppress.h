/* report-suppress.h - leak suppressions, in LeakSanitizer's format.
 *
 * Contract: suppressions_load() reads a file of lines "leak:PATTERN",
 * blank lines and comments ("#" to the end of the line) aside; it refuses
 * any other line (another sanitizer's kind, an empty pattern) naming the
 * file, the line and why.  A pattern matches a text that contains it;
 * '*' in it stands for any run of characters, a '^' that starts it ties
 * it to the start of the text and a '$' that ends it to the end.
 * suppress_stacks() takes out of the report every stack one of whose
 * frames has a function, source file or module that a pattern matches
 * (the first pattern that does is charged with it): its estimates become
 * zero, and the table's totals lose them; the counts below are those of
 * the last table it was given.  suppressions_note() then says
 * what each pattern took, what was live of it at the end with its 95 %
 * interval, and how many patterns took nothing.
 */
#ifndef SPPROF_REPORT_SUPPRESS_H
#define SPPROF_REPORT_SUPPRESS_H

#include <stddef.h>

#include "report-heap.h"
#include "report-stacks.h"

struct suppression {
	char *pattern;
	size_t stacks;        /* stacks it took out */
	struct estimate live; /* of those, at the end */
};

struct suppressions {
	const char *file;
	struct suppression *rules;
	size_t count;
};

/* 0, or -1 with why (of `size` bytes) set. */
int suppressions_load(struct suppressions *s, const char *file, char *why,
		      size_t size);
void suppressions_free(struct suppressions *s);
void suppress_stacks(struct suppressions *s, struct stack_table *table);
char *suppressions_note(const struct suppressions *s);

/* Whether LeakSanitizer's `pattern` matches `text` (exposed for tests). */
int suppression_matches(const char *pattern, const char *text);

#endif /* SPPROF_REPORT_SUPPRESS_H */
