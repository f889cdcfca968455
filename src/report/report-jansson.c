/* report-jansson.c - JSON values of the views (see report-jansson.h). */
#include "config.h"

#include "estimator.h"
#include "report-jansson.h"
#include "report-util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* json_object_set_new that cannot fail quietly. */
void set(json_t *object, const char *key, json_t *value)
{
	if (!value || json_object_set_new(object, key, value) < 0)
		out_of_memory();
}

/* A JSON string of text; bytes that are not UTF-8 (a file name on the
 * command line, a symbol) become '?'. */
json_t *text(const char *value)
{
	json_t *string = json_string(value);

	if (!string) {
		char *copy = xstrdup(value);

		for (char *c = copy; *c; c++)
			if ((unsigned char)*c >= 0x80)
				*c = '?';
		string = json_string(copy);
		free(copy);
	}
	return string;
}

/* A whole number of bytes or blocks.  JSON integers past 2^63 - 1 are
 * lost or refused by many parsers, so larger estimates saturate there. */
json_t *whole(double value)
{
	if (!(value > 0))
		return json_integer(0);
	if (value >= 0x1p63)
		return json_integer(INT64_MAX);
	return json_integer((json_int_t)llround(value));
}

json_t *signed_whole(double value)
{
	json_t *magnitude;
	json_int_t n;

	if (!(value < 0))
		return whole(value);
	magnitude = whole(-value);
	n = json_integer_value(magnitude);
	json_decref(magnitude);
	return json_integer(-n);
}

void append(json_t *array, json_t *value)
{
	if (!value || json_array_append_new(array, value) < 0)
		out_of_memory();
}

int write_json(FILE *out, json_t *root)
{
	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
					       JSON_REAL_PRECISION(6));

	json_decref(root);
	if (rc == 0 && fputc('\n', out) == EOF)
		rc = -1;
	return rc;
}

void estimate_members(json_t *o, const char *bytes_key, const char *count_key,
		      const struct estimate *e)
{
	char key[64];

	set(o, bytes_key, whole(e->bytes));
	snprintf(key, sizeof(key), "%s_ci95", bytes_key);
	set(o, key, whole(estimator_interval95(e->bytes_variance)));
	set(o, count_key, whole(e->count));
	snprintf(key, sizeof(key), "%s_ci95", count_key);
	set(o, key, whole(estimator_interval95(e->count_variance)));
}
