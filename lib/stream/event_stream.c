/* event_stream.c - the crash-safe event stream (see event_stream.h). */
#include "config.h"

#include <limits.h>

#include "event_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outbuf.h"

/* mmap() offsets are multiples of the system's page, which is 16 or
 * 64 KiB on some arm64 and ppc64el kernels. */
#define PAGE_BYTES ((uint64_t)sysconf(_SC_PAGESIZE))

static int set_absolute_path(struct event_stream *s, const char *path)
{
	char cwd[PATH_MAX];
	int n;

	if (path[0] == '/')
		n = snprintf(s->path, sizeof(s->path), "%s", path);
	else if (!getcwd(cwd, sizeof(cwd)))
		return errno;
	else
		n = snprintf(s->path, sizeof(s->path), "%s/%s", cwd, path);
	return n < 0 || (size_t)n >= sizeof(s->path) ? ENAMETOOLONG : 0;
}

int stream_open_same_file(const char *path, dev_t device, ino_t inode)
{
	struct stat st;
	/* Never through a link, nor blocked by a FIFO put in its place. */
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
				    O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_dev != device || st.st_ino != inode) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

int stream_reopen(const struct event_stream *s)
{
	return stream_open_same_file(s->path, s->device, s->inode);
}

/* Lets go of the current window: unmapped now, or by a chore (when
 * `later`).  One being faulted in is unmapped when that ends, by
 * stream_chores_done(). */
static void leave_window(struct event_stream *s, int later)
{
	size_t bytes = s->window_end - s->window_start;

	if (s->window && s->window != s->populating) {
		if (later && !s->chores.unmap) {
			s->chores.unmap = s->window;
			s->chores.unmap_bytes = bytes;
			s->chores_waiting = 1;
		} else {
			munmap(s->window, bytes);
		}
	}
	s->window = NULL;
	s->window_start = s->window_end = 0;
}

static uint64_t page_round_up(uint64_t n)
{
	return (n + PAGE_BYTES - 1) & ~(uint64_t)(PAGE_BYTES - 1);
}

/* Gives the file disk blocks up to *end, or at least up to need when the
 * disk has no room for more (*end is lowered then). */
static int allocate_blocks(struct event_stream *s, int fd, uint64_t *end,
			   uint64_t need)
{
	int err;

	if (*end <= s->allocated)
		return 0;
	err = posix_fallocate(fd, (off_t)s->allocated,
			      (off_t)(*end - s->allocated));
	if (err == ENOSPC && page_round_up(need) < *end) {
		*end = page_round_up(need);
		return allocate_blocks(s, fd, end, need);
	}
	if (!err)
		s->allocated = *end;
	return err;
}

/* Most processes write far less than a window, and the disk blocks under
 * one stay allocated while the process runs (memory, on tmpfs), so the
 * first window is small unless the first event needs more. */
static uint64_t window_bytes(const struct event_stream *s, uint64_t start,
			     size_t n)
{
	if (!s->window && s->end + n <= start + STREAM_FIRST_WINDOW_BYTES)
		return STREAM_FIRST_WINDOW_BYTES;
	return STREAM_WINDOW_BYTES;
}

/* Maps a new window that starts at the page holding s->end and has room
 * for n more bytes, giving the file disk blocks up to its end first: a
 * store into a mapped hole on a full disk would be a SIGBUS. */
static int move_window(struct event_stream *s, int fd, size_t n)
{
	uint64_t start = s->end & ~(uint64_t)(PAGE_BYTES - 1);
	uint64_t end = start + window_bytes(s, start, n);
	uint64_t limit = file_size_limit();
	void *window;
	int err;

	if (end > limit)
		end = limit;
	if (end < s->end + n)
		return EFBIG; /* the size limit is reached: no SIGXFSZ */
	err = allocate_blocks(s, fd, &end, s->end + n + 1);
	if (err)
		return err;
	window = mmap(NULL, end - start, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, (off_t)start);
	if (window == MAP_FAILED)
		return errno;
	madvise(window, end - start, MADV_DONTFORK);
	leave_window(s, 1);
	s->window = window;
	s->window_start = start;
	s->window_end = end;
	return 0;
}

int stream_open(struct event_stream *s, int fd, const char *path,
		uint64_t start)
{
	struct stat st;
	int err;

	memset(s, 0, sizeof(*s));
	err = set_absolute_path(s, path);
	if (!err && fstat(fd, &st) < 0)
		err = errno;
	if (!err) {
		s->device = st.st_dev;
		s->inode = st.st_ino;
		s->allocated = (uint64_t)st.st_size;
		s->end = start;
		err = move_window(s, fd, 0);
		/* The first pages fault in as they are written. */
		s->fault_ahead_from = s->window_start + STREAM_FAULT_AHEAD;
	}
	s->error = err;
	return err;
}

static void slide(struct event_stream *s, size_t n)
{
	int fd = stream_reopen(s);

	if (fd < 0) {
		s->error = errno;
		return;
	}
	s->error = move_window(s, fd, n);
	close(fd);
	s->fault_ahead_from = page_round_up(s->end);
}

uint8_t *stream_room(struct event_stream *s, size_t n)
{
	if (!s->error && s->end + n > s->window_end)
		slide(s, n);
	if (s->error)
		return NULL;
	return s->window + (s->end - s->window_start);
}

/* Leaves the next STREAM_FAULT_AHEAD bytes of the window to fault in. */
static void fault_ahead(struct event_stream *s)
{
	uint64_t from = s->fault_ahead_from;
	uint64_t to = from + STREAM_FAULT_AHEAD;

	if (from >= s->window_end) {
		s->fault_ahead_from = UINT64_MAX; /* until the window moves */
		return;
	}
	if (to > s->window_end)
		to = s->window_end;
	s->fault_ahead_from = to;
	s->chores.populate = s->window + (from - s->window_start);
	s->chores.populate_bytes = to - from;
	s->chores.window = s->window;
	s->chores.window_bytes = s->window_end - s->window_start;
	s->chores_waiting = 1;
}

void stream_commit(struct event_stream *s, const uint8_t *end)
{
	s->end = s->window_start + (uint64_t)(end - s->window);
	if (s->end + STREAM_FAULT_AHEAD / 2 > s->fault_ahead_from)
		fault_ahead(s);
}

struct stream_chores stream_take_chores_slow(struct event_stream *s)
{
	struct stream_chores c = s->chores;

	memset(&s->chores, 0, sizeof(s->chores));
	s->chores_waiting = 0;
	if (c.populate && (s->populating || c.window != s->window))
		c.populate = c.window = NULL;
	if (c.populate)
		s->populating = c.window;
	return c;
}

void stream_do_chores(const struct stream_chores *c)
{
	if (c->unmap)
		munmap(c->unmap, c->unmap_bytes);
#ifdef MADV_POPULATE_WRITE
	/* Where the kernel cannot, or the file was cut meanwhile, the
	 * stores fault the pages in as they come (no SIGBUS is raised). */
	if (c->populate)
		madvise(c->populate, c->populate_bytes, MADV_POPULATE_WRITE);
#endif
}

void stream_chores_done(struct event_stream *s, const struct stream_chores *c)
{
	if (!c->window)
		return;
	if (s->populating == c->window)
		s->populating = NULL;
	/* Left meanwhile (or forgotten with its stream): nobody else unmaps
	 * a window being faulted in. */
	if (c->window != s->window)
		munmap(c->window, c->window_bytes);
}

int stream_rename(struct event_stream *s, const char *to)
{
	char from[PATH_MAX];
	int err;

	memcpy(from, s->path, sizeof(from));
	err = set_absolute_path(s, to);
	if (!err && rename(from, s->path) < 0)
		err = errno;
	if (err)
		memcpy(s->path, from, sizeof(from));
	return err;
}

int stream_close(struct event_stream *s)
{
	leave_window(s, 0);
	if (s->chores.unmap)
		munmap(s->chores.unmap, s->chores.unmap_bytes);
	memset(&s->chores, 0, sizeof(s->chores));
	s->chores_waiting = 0;
	return s->error;
}

int stream_trim(const struct event_stream *s)
{
	int fd = stream_reopen(s), err = 0;

	if (fd < 0)
		return errno;
	if (ftruncate(fd, (off_t)s->end) < 0)
		err = errno;
	close(fd);
	return err;
}

void stream_forget(struct event_stream *s)
{
	memset(s, 0, sizeof(*s));
}
