/* event_stream.h - the crash-safe event stream of a .part file.
 *
 * Contract: events are written straight into a shared mapping of the
 * streamed file, a window of STREAM_WINDOW_BYTES that slides along it, so
 * an event is in the kernel's page cache the moment it is written: a
 * process killed at any point (SIGKILL, the OOM killer) leaves every
 * event written so far in the file.  The disk blocks under the window are
 * allocated before it is mapped, so a full disk ends the stream with an
 * error instead of a SIGBUS in the program.  The file is extended a window
 * at a time (the first one, STREAM_FIRST_WINDOW_BYTES, smaller); what the
 * stream has not reached yet reads as zero bytes, which mlyze(5) defines
 * as the unwritten tail of a streamed file.
 *
 * The stream holds no file descriptor while the program runs: the file is
 * opened by its absolute path only for the moment of moving the window,
 * and must then still be the same file (device and inode), so a program
 * that closes every descriptor, or removes or replaces the file, never
 * has its own files written into.  The file never grows past the
 * process's RLIMIT_FSIZE, so no SIGXFSZ is ever raised in the program.
 * The mapping is not inherited by fork() children.
 *
 * The first store into each page of the window is a page fault of a
 * few microseconds, and unmapping a window left behind takes a while too:
 * the stream leaves both as chores that the caller does after it lets go
 * of its lock (stream_take_chores, stream_do_chores, stream_chores_done),
 * so other threads do not wait for them.  Pages are faulted in
 * STREAM_FAULT_AHEAD bytes at a time, before the stream reaches them, once
 * it has written half as much (a short-lived process writes far less).  A
 * window with pages being faulted in is never unmapped before that ends.
 *
 * Nothing here allocates or takes a lock; the caller serialises access,
 * except to stream_do_chores().
 */
#ifndef SPPROF_EVENT_STREAM_H
#define SPPROF_EVENT_STREAM_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STREAM_WINDOW_BYTES (1u << 20)
#define STREAM_FIRST_WINDOW_BYTES (128u << 10)
#define STREAM_FAULT_AHEAD (64u << 10)

/* Work the stream leaves for after the caller's lock. */
struct stream_chores {
	uint8_t *unmap;        /* a window left behind */
	size_t unmap_bytes;
	uint8_t *populate;     /* pages to fault in, */
	size_t populate_bytes;
	uint8_t *window;       /* of this window */
	size_t window_bytes;
};

/* What every event writes comes first, what it reads next. */
struct event_stream {
	uint64_t end;          /* where the next event goes */
	int error;             /* errno value that ended the stream, or 0 */
	int chores_waiting;    /* chores holds work */
	uint8_t *window;       /* file offset window_start is at window[0] */
	uint64_t window_start, window_end;
	uint64_t fault_ahead_from; /* pages from here are not faulted in */
	struct stream_chores chores;
	uint8_t *populating;   /* the window being faulted in, or NULL */
	uint64_t allocated;    /* bytes of the file backed by disk blocks */
	dev_t device;          /* the file's identity, checked at each open */
	ino_t inode;
	char path[PATH_MAX];   /* absolute path of the file */
};

/* Starts streaming into the file open on fd, named path (relative to the
 * current directory or absolute), whose first `start` bytes are written
 * already.  The caller closes fd afterwards.  0, or an errno value. */
int stream_open(struct event_stream *s, int fd, const char *path,
		uint64_t start);

/* Where n (<= STREAM_WINDOW_BYTES / 2) contiguous bytes may be written at
 * the stream's end, or NULL once the stream has failed (s->error).  The
 * bytes count once stream_commit() is told where they end. */
uint8_t *stream_room(struct event_stream *s, size_t n);
void stream_commit(struct event_stream *s, const uint8_t *end);

/* With the caller's lock held: takes the chores the stream left.  Pages
 * of one window at a time are faulted in. */
struct stream_chores stream_take_chores_slow(struct event_stream *s);
static inline struct stream_chores stream_take_chores(struct event_stream *s)
{
	struct stream_chores none = { 0 };

	return s->chores_waiting ? stream_take_chores_slow(s) : none;
}

/* Without the lock: does them. */
void stream_do_chores(const struct stream_chores *c);

/* With the lock held again, after chores that faulted pages in: their
 * window is unmapped now if the stream left it meanwhile (or was closed,
 * opened anew or forgotten: the window stays mapped until this call). */
void stream_chores_done(struct event_stream *s, const struct stream_chores *c);

/* The file opened again for reading and writing (for the final copy and
 * for trimming): a descriptor, or -1 with errno set (ESTALE when the path
 * now names another file). */
int stream_reopen(const struct event_stream *s);
/* The file at path opened for reading and writing when it is still the
 * file of device `device` and inode `inode`: a descriptor, or -1 with
 * errno set (ESTALE when the path now names another file). */
int stream_open_same_file(const char *path, dev_t device, ino_t inode);

/* Renames the stream's file to `to` (relative to the current directory
 * or absolute), atomically replacing any file of that name; the stream
 * goes on in it.  0, or an errno value (the stream is unchanged). */
int stream_rename(struct event_stream *s, const char *to);

/* Ends the stream: the window is unmapped.  The file keeps the unwritten
 * tail of its last window (zero bytes) until stream_trim().  Returns
 * s->error. */
int stream_close(struct event_stream *s);

/* Cuts a closed stream's file to the events written: for a file that
 * stays.  (One copied into a final file and removed need not be: cutting
 * gives disk blocks back, which costs more than removing them with it.)
 * 0, or an errno value. */
int stream_trim(const struct event_stream *s);

/* In a fork() child, which has no mapping: forgets the parent's stream. */
void stream_forget(struct event_stream *s);

#endif /* SPPROF_EVENT_STREAM_H */
