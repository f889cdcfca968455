/* report-index.c - numbers for texts (see report-index.h). */
#include "config.h"

#include "report-index.h"
#include "report-util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void text_index_init(struct text_index *index)
{
	memset(index, 0, sizeof(*index));
	u64map_init(&index->by_hash);
}

void text_index_free(struct text_index *index)
{
	for (size_t i = 0; i < index->count; i++)
		free(index->texts[i]);
	free(index->texts);
	u64map_free(&index->by_hash);
	text_index_init(index);
}

/* FNV-1a */
static uint64_t hash_text(const char *text)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *text; text++)
		h = (h ^ (unsigned char)*text) * UINT64_C(0x100000001b3);
	return h;
}

/* Texts whose hashes collide move on to the next hash in a fixed
 * sequence. */
size_t text_index_intern(struct text_index *index, const char *text,
			 bool *added)
{
	uint64_t h = hash_text(text);
	const struct u64map_value *found;

	while ((found = u64map_get(&index->by_hash, h))) {
		if (strcmp(index->texts[found->a], text) == 0) {
			*added = false;
			return found->a;
		}
		h = h * UINT64_C(0x9e3779b97f4a7c15) + 1;
	}
	index->texts = xgrow(index->texts, &index->capacity, index->count + 1,
			     sizeof(*index->texts));
	if (u64map_put(&index->by_hash, h,
		       (struct u64map_value){ .a = index->count }) < 0)
		out_of_memory();
	index->texts[index->count] = xstrdup(text);
	*added = true;
	return index->count++;
}
