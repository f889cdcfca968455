/* control_notes.h - what this process's registry entry says of it.
 *
 * Contract: control_page is the entry (control_page.h) that control.h
 * makes, forgets and answers the requests of; NULL while there is none,
 * and then these do nothing.  They write what the page shows (the
 * process's state, its streamed file, the last profile it finished, why
 * it cannot record) and call nothing else: the writer and the profiler
 * keep the page up to date without calling the side of memprof-ctl's
 * requests, which calls them.
 */
#ifndef SPPROF_CONTROL_NOTES_H
#define SPPROF_CONTROL_NOTES_H

#include "control_page.h"

extern struct control_page *control_page;

/* What the page says of the process: its state, its streamed file, the
 * last profile it finished. */
void control_set_state(enum control_state state);
void control_note_part(const char *part);
void control_note_finished(const char *profile);
/* Why the process cannot record at all (an errno value, and words), in
 * `error` and `answer` before any request: a runtime loaded late that
 * refused to stand in front of the program's allocator. */
void control_note_refusal(int error, const char *why);

#endif /* SPPROF_CONTROL_NOTES_H */
