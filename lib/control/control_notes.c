/* control_notes.c - what the registry entry says of the process (see
 * control_notes.h). */
#include "config.h"

#include "control_notes.h"

#include <limits.h>
#include <stdatomic.h>
#include <string.h>

struct control_page *control_page;

void control_set_state(enum control_state state)
{
	if (control_page)
		atomic_store(&control_page->state, state);
}

static void copy_name(char *to, const char *name)
{
	size_t n = strlen(name);

	if (n >= PATH_MAX)
		n = PATH_MAX - 1;
	memcpy(to, name, n);
	to[n] = '\0';
}

void control_note_part(const char *part)
{
	if (control_page)
		copy_name(control_page->part, part);
}

void control_note_finished(const char *profile)
{
	if (!control_page)
		return;
	copy_name(control_page->last_profile, profile);
	control_page->part[0] = '\0';
}

void control_note_refusal(int error, const char *why)
{
	if (!control_page)
		return;
	copy_name(control_page->answer, why);
	control_page->error = error;
}
