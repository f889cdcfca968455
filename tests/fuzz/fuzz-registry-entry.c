/* fuzz-registry-entry - the checks of a registry entry (ctl-entry.h) on
 * any bytes of any length, as a local user can write them into an entry
 * file, and the escaping of its texts for a terminal (ctl-text.h).
 *
 * The pid the entry's name gives is taken from its own pid field, or
 * another one when a byte past the page is odd, so that both sides of
 * that check are reached. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-entry.h"
#include "ctl-text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void show(const char *field, size_t field_size)
{
	static char text[PATH_MAX], shown[CTL_ESCAPED_SIZE(PATH_MAX)];

	ctl_entry_text(field, field_size, text, sizeof(text));
	ctl_escaped(text, shown, sizeof(shown));
	if (strlen(shown) >= sizeof(shown))
		abort();
	/* An output cut short is still a string, within its size. */
	ctl_escaped(text, shown, 1 + strlen(text) % 7);
	if (strlen(shown) > strlen(text) % 7)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct control_page page;
	char why[256];
	long pid = 1;

	if (size >= sizeof(page)) {
		memcpy(&page, data, sizeof(page));
		pid = (long)page.pid;
		if (size > sizeof(page) && data[sizeof(page)] % 2)
			pid = (long)(page.pid ^ 1);
	}
	if (ctl_entry_parse(data, size, pid, &page, why, sizeof(why)) == 0) {
		show(page.part, sizeof(page.part));
		show(page.last_profile, sizeof(page.last_profile));
		show(page.answer, sizeof(page.answer));
	}
	/* Whatever the bytes, as a text field of a page being written. */
	show((const char *)data, size);
	return 0;
}
