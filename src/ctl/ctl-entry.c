/* ctl-entry.c - a registry entry as read from its file, checked (see
 * ctl-entry.h). */
#include "config.h"

#include "ctl-entry.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool ends_within(const char *field, size_t size)
{
	return memchr(field, '\0', size) != NULL;
}

void ctl_entry_text(const char *field, size_t field_size, char *out,
		    size_t size)
{
	size_t n = strnlen(field, field_size);

	if (size == 0)
		return;
	if (n >= size)
		n = size - 1;
	memcpy(out, field, n);
	out[n] = '\0';
}

int ctl_entry_parse(const void *bytes, size_t size, long pid,
		    struct control_page *out, char *why, size_t why_size)
{
	const struct control_page *page = bytes;

	if (size < sizeof(*page)) {
		snprintf(why, why_size, "an entry of %zu bytes, not %zu",
			 size, sizeof(*page));
		return -1;
	}
	/* Copied first: the checks then hold for what is used. */
	memcpy(out, page, sizeof(*out));
	if (out->magic != CONTROL_MAGIC || out->version != CONTROL_VERSION) {
		snprintf(why, why_size, "not an entry of this version");
		return -1;
	}
	if (out->pid != pid) {
		snprintf(why, why_size, "the entry of another pid");
		return -1;
	}
	if (out->state != CONTROL_DORMANT && out->state != CONTROL_RECORDING) {
		snprintf(why, why_size, "an unknown state");
		return -1;
	}
	if (!ends_within(out->part, sizeof(out->part)) ||
	    !ends_within(out->last_profile, sizeof(out->last_profile)) ||
	    !ends_within(out->argument, sizeof(out->argument)) ||
	    !ends_within(out->answer, sizeof(out->answer))) {
		snprintf(why, why_size, "a text field without its end");
		return -1;
	}
	if (out->part[0] && out->part[0] != '/') {
		snprintf(why, why_size, "a stream name that is not absolute");
		return -1;
	}
	return 0;
}
