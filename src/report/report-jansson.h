/* report-jansson.h - JSON values the views that write JSON share.
 *
 * Contract: building a value either succeeds or ends the program (out of
 * memory), so a view never checks; text that is not UTF-8 is written with
 * '?' for the bytes that are not; whole numbers saturate at 2^63 - 1.
 */
#ifndef SPPROF_REPORT_JANSSON_H
#define SPPROF_REPORT_JANSSON_H

#include <jansson.h>
#include <stdio.h>

#include "report-heap.h"

/* object[key] = value, taking value over. */
void set(json_t *object, const char *key, json_t *value);
/* array += value, taking value over. */
void append(json_t *array, json_t *value);
json_t *text(const char *value);
/* Write `root` indented, members in their order, reals to six digits,
 * and a newline; frees it.  Returns 0, or -1 when it could not be
 * written. */
int write_json(FILE *out, json_t *root);
/* A whole number of bytes or blocks, rounded, 0 to 2^63 - 1. */
json_t *whole(double value);
/* The same with its sign, -(2^63 - 1) to 2^63 - 1. */
json_t *signed_whole(double value);
/* Estimated bytes and count of an estimate, with their 95 % intervals,
 * as members named bytes_key, bytes_key_ci95, count_key and
 * count_key_ci95. */
void estimate_members(json_t *o, const char *bytes_key, const char *count_key,
		      const struct estimate *e);

#endif /* SPPROF_REPORT_JANSSON_H */
