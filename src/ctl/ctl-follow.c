/* ctl-follow.c - the replays kept between scrapes (see ctl-follow.h). */
#include "config.h"

#include "ctl-follow.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report-heap.h"
#include "report-util.h"
#include "spprof/mlyze.h"

/* What the reader's tables take, about, per entry: a stack with its
 * frames, a module or a string with its text. */
#define READER_BYTES_PER_ENTRY 256

/* The replay of one process's stream, where it stopped. */
struct followed {
	long pid;
	uint64_t start_ticks;
	uid_t uid;
	dev_t device;
	ino_t inode;
	int fd; /* the stream, as opened and checked when the replay began */
	mlyze_reader *reader;
	struct heap_follower *replay;
	uint64_t stopped_at; /* the reader's position */
	unsigned char fingerprint[CTL_FOLLOW_FINGERPRINT]; /* the bytes before */
	size_t fingerprint_length;
	size_t bytes;       /* of memory, about */
	uint64_t last_used; /* the scrape that used it last */
};

/* The names of the frames of one user's processes. */
struct user_namer {
	uid_t uid;
	gid_t gid;
	struct frame_namer *namer;
	uint64_t last_used;
};

struct ctl_follow_cache {
	struct followed *entries[CTL_FOLLOW_PROCESSES];
	struct user_namer namers[CTL_FOLLOW_USERS];
	size_t namer_count;
	size_t count;
	uint64_t scrapes;
	uint64_t resumed; /* replays taken up again */
	uint64_t growth_window_us;
};

struct ctl_follow_cache *ctl_follow_cache_new(uint64_t growth_window_us)
{
	struct ctl_follow_cache *c = xcalloc(1, sizeof(*c));

	c->growth_window_us = growth_window_us;
	return c;
}

static void forget(struct followed *f)
{
	heap_follower_free(f->replay);
	mlyze_close(f->reader);
	close(f->fd);
	free(f);
}

/* Takes entry i out of the cache and frees it. */
static void drop(struct ctl_follow_cache *c, size_t i)
{
	forget(c->entries[i]);
	c->entries[i] = c->entries[--c->count];
}

void ctl_follow_cache_free(struct ctl_follow_cache *c)
{
	if (!c)
		return;
	while (c->count)
		drop(c, 0);
	for (size_t i = 0; i < c->namer_count; i++)
		frame_namer_free(c->namers[i].namer);
	free(c);
}

struct frame_namer *ctl_follow_namer(struct ctl_follow_cache *c, uid_t uid,
				     gid_t gid)
{
	struct user_namer *n = NULL;

	for (size_t i = 0; i < c->namer_count && !n; i++)
		if (c->namers[i].uid == uid && c->namers[i].gid == gid)
			n = &c->namers[i];
	if (!n && c->namer_count < CTL_FOLLOW_USERS) {
		n = &c->namers[c->namer_count++];
	} else if (!n) {
		n = &c->namers[0];
		for (size_t i = 1; i < c->namer_count; i++)
			if (c->namers[i].last_used < n->last_used)
				n = &c->namers[i];
		frame_namer_free(n->namer);
	}
	if (!n->namer || n->uid != uid || n->gid != gid)
		*n = (struct user_namer){ .uid = uid, .gid = gid,
					  .namer = ctl_sites_namer() };
	n->last_used = ++c->scrapes;
	return n->namer;
}

static bool same_process(const struct followed *f, const struct ctl_process *p)
{
	return f->pid == p->pid && f->start_ticks == p->page.start_ticks &&
	       f->uid == p->uid;
}

/* The last bytes before f's reader position, into f. */
static void take_fingerprint(struct followed *f)
{
	uint64_t at = mlyze_position(f->reader);
	size_t n = at < CTL_FOLLOW_FINGERPRINT ? (size_t)at
					       : CTL_FOLLOW_FINGERPRINT;
	ssize_t got = pread(f->fd, f->fingerprint, n, (off_t)(at - n));

	f->stopped_at = at;
	f->fingerprint_length = got > 0 ? (size_t)got : 0;
}

/* Whether the stream opened now (st) is the file f read, grown only. */
static bool still_the_same(const struct followed *f, const struct stat *st)
{
	unsigned char now[CTL_FOLLOW_FINGERPRINT];
	size_t n = f->fingerprint_length;

	return f->device == st->st_dev && f->inode == st->st_ino &&
	       (uint64_t)st->st_size >= f->stopped_at &&
	       pread(f->fd, now, n, (off_t)(f->stopped_at - n)) == (ssize_t)n &&
	       memcmp(now, f->fingerprint, n) == 0;
}

/* The entry kept for p that can be taken up again, or NULL (an entry of
 * p that cannot is dropped). */
static struct followed *find(struct ctl_follow_cache *c,
			     const struct ctl_process *p, const struct stat *st)
{
	for (size_t i = 0; i < c->count; i++) {
		struct followed *f = c->entries[i];

		if (!same_process(f, p))
			continue;
		if (still_the_same(f, st) && mlyze_follow(f->reader) == 0)
			return f;
		drop(c, i);
		return NULL;
	}
	return NULL;
}

/* A replay of the stream from its start, or NULL with why set. */
static struct followed *start(const struct ctl_follow_cache *c,
			      const struct ctl_process *p, int stream,
			      const struct stat *st, char *why, size_t size)
{
	static const struct mlyze_options reading = {
		.warn = ctl_ignore_warning
	};
	const struct replay_options replaying = {
		.growth = true, .growth_window_us = c->growth_window_us
	};
	struct followed *f = xcalloc(1, sizeof(*f));

	f->pid = p->pid;
	f->start_ticks = p->page.start_ticks;
	f->uid = p->uid;
	f->device = st->st_dev;
	f->inode = st->st_ino;
	f->fd = dup(stream);
	if (f->fd < 0) {
		snprintf(why, size, "out of descriptors");
		free(f);
		return NULL;
	}
	f->reader = mlyze_open_fd(f->fd, p->page.part, &reading);
	if (!f->reader)
		out_of_memory();
	if (mlyze_status(f->reader) != MLYZE_OK) {
		snprintf(why, size, "%s", mlyze_error(f->reader));
		forget(f);
		return NULL;
	}
	f->replay = heap_follower_new(f->reader, &replaying);
	return f;
}

static size_t memory_of(const struct followed *f)
{
	const mlyze_reader *r = f->reader;
	size_t entries = mlyze_stack_count(r) + mlyze_module_count(r) +
			 mlyze_string_count(r, MLYZE_TABLE_FILES) +
			 mlyze_string_count(r, MLYZE_TABLE_FUNCTIONS);

	return sizeof(*f) + heap_follower_bytes(f->replay) +
	       entries * READER_BYTES_PER_ENTRY;
}

/* Keeps f, the least recently used going to make room; frees it when it
 * alone is too much. */
static void keep(struct ctl_follow_cache *c, struct followed *f)
{
	size_t total = f->bytes;

	if (f->bytes > CTL_FOLLOW_BYTES) {
		forget(f);
		return;
	}
	for (size_t i = 0; i < c->count; i++)
		total += c->entries[i]->bytes;
	while (c->count &&
	       (c->count == CTL_FOLLOW_PROCESSES || total > CTL_FOLLOW_BYTES)) {
		size_t oldest = 0;

		for (size_t i = 1; i < c->count; i++)
			if (c->entries[i]->last_used <
			    c->entries[oldest]->last_used)
				oldest = i;
		total -= c->entries[oldest]->bytes;
		drop(c, oldest);
	}
	c->entries[c->count++] = f;
}

/* Takes f out of the cache while it is read (a reader that fails is of
 * no more use). */
static void take_out(struct ctl_follow_cache *c, struct followed *f)
{
	for (size_t i = 0; i < c->count; i++)
		if (c->entries[i] == f)
			c->entries[i] = c->entries[--c->count];
}

int ctl_follow_replay(struct ctl_follow_cache *c, const struct ctl_process *p,
		      int stream, const struct stat *st, uint64_t until_us,
		      ctl_follow_use *use, void *ctx, char *why, size_t size)
{
	struct followed *f = find(c, p, st);
	struct heap_replay h;

	if (f) {
		take_out(c, f);
		c->resumed++;
	}
	else if (!(f = start(c, p, stream, st, why, size)))
		return -1;
	if (heap_follower_read(f->replay, f->reader) < 0) {
		snprintf(why, size, "%s", mlyze_error(f->reader));
		forget(f);
		return -1;
	}
	heap_follower_result(f->replay, until_us, &h);
	use(ctx, f->reader, &h);
	heap_replay_free(&h);
	take_fingerprint(f);
	f->bytes = memory_of(f);
	f->last_used = ++c->scrapes;
	keep(c, f);
	return 0;
}

/* The sites of a replay, for ctl_follow_sites(). */
struct sites_use {
	size_t top;
	struct frame_namer *namer;
	struct ctl_sites *out;
};

static void use_sites(void *ctx, const mlyze_reader *r,
		      const struct heap_replay *h)
{
	struct sites_use *u = ctx;

	ctl_sites_of(r, h, u->top, u->namer, u->out);
}

int ctl_follow_sites(struct ctl_follow_cache *c, const struct ctl_process *p,
		     int stream, const struct stat *st, size_t top,
		     uint64_t now_us, struct frame_namer *namer,
		     struct ctl_sites *out, char *why, size_t size)
{
	struct sites_use u = { top, namer, out };

	memset(out, 0, sizeof(*out));
	return ctl_follow_replay(c, p, stream, st, now_us, use_sites, &u, why,
				 size);
}

uint64_t ctl_follow_resumed(const struct ctl_follow_cache *c)
{
	return c->resumed;
}
