/* report-index.h - numbers for texts: the index of a text among those seen.
 *
 * Contract: gives every distinct text the next index (0, 1, 2...) the
 * first time it is seen, and the same index afterwards.  Texts are copied.
 * Lookups hash the text once and compare it with the few texts whose
 * hashes collide.
 */
#ifndef SPPROF_REPORT_INDEX_H
#define SPPROF_REPORT_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "u64map.h"

struct text_index {
	struct u64map by_hash; /* hash of a text -> its index */
	char **texts;          /* by index */
	size_t count, capacity;
};

void text_index_init(struct text_index *index);
void text_index_free(struct text_index *index);
/* The index of `text`, numbered `index->count` (and *added set) when it
 * is new. */
size_t text_index_intern(struct text_index *index, const char *text,
			 bool *added);

#endif /* SPPROF_REPORT_INDEX_H */
