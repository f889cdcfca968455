/* ctl-follow.h - the replays of the streams that memprof-ctl serve's
 * scrapes read, kept from one scrape to the next, so that a scrape reads
 * only what the processes wrote since the last one.
 *
 * Contract: ctl_follow_sites() says exactly what ctl_sites_read() would
 * say of the stream of process p open at `stream` (as ctl_stream_open()
 * opened and checked it now, with its *st), and ctl_follow_replay() lends
 * the same replay (what heap_replay() would make of the stream now) to
 * whatever else is made of it: memprof-ctl serve's pprof.  A replay is kept per
 * process (its pid, its start time and its user) and per file (the
 * device and inode of the stream opened now), with a descriptor of that
 * file opened and checked as p's stream when the replay began.  It is
 * taken up again where it stopped (mlyze_follow()) only when the stream
 * opened now is that same file, no shorter than where the replay
 * stopped, and with the last CTL_FOLLOW_FINGERPRINT bytes before that
 * point as they were; else it is started again from the stream's first
 * byte: a checkpoint puts a new file in place of the stream, and a file
 * replaced, truncated or rewritten there is not the one it read.  What a
 * user writes into the middle of their own stream, past its fingerprint,
 * only changes what their own process shows.  At most
 * CTL_FOLLOW_PROCESSES replays are kept, holding CTL_FOLLOW_BYTES of
 * memory in all (heap_follower_bytes() and the reader's tables, about):
 * the least recently scraped go first, and one that alone holds more is
 * not kept (its process's stream is replayed in full at each scrape).
 * ctl_follow_namer() keeps the frame namer of each user (and group) whose
 * processes were scraped, CTL_FOLLOW_USERS of them at most, the least
 * recently used going first: the modules a user's streams name are read
 * once, as that user, and named for that user's processes only.
 * Not safe for threads: its caller lets one scrape use it at a time.
 * The stream is only read; the process is not asked anything.
 */
#ifndef SPPROF_CTL_FOLLOW_H
#define SPPROF_CTL_FOLLOW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "ctl-registry.h"
#include "ctl-sites.h"
#include "report-heap.h"

#define CTL_FOLLOW_PROCESSES 64
#define CTL_FOLLOW_BYTES ((size_t)512 << 20)
#define CTL_FOLLOW_FINGERPRINT 64
#define CTL_FOLLOW_USERS 16

struct ctl_follow_cache;

/* The replays of a cache measure growth over growth_window_us
 * (ctl_sites_read()). */
struct ctl_follow_cache *ctl_follow_cache_new(uint64_t growth_window_us);
void ctl_follow_cache_free(struct ctl_follow_cache *c);

/* As ctl_sites_read(fd = stream, ..., the cache's growth_window_us, ...), from the replay kept for p when
 * it can be taken up again; run it as p's user (the modules the stream
 * names are read as that user).  The stream is not closed. */
int ctl_follow_sites(struct ctl_follow_cache *c, const struct ctl_process *p,
		     int stream, const struct stat *st, size_t top,
		     uint64_t now_us, struct frame_namer *namer,
		     struct ctl_sites *out, char *why, size_t size);

/* What is made of a replay, with the reader of its stream, while the
 * cache lends them. */
typedef void ctl_follow_use(void *ctx, const mlyze_reader *r,
			    const struct heap_replay *h);

/* use(ctx, ...) with the replay of p's stream up to its end now, taken
 * up from the one kept for p when it can be (as ctl_follow_sites()),
 * its trends per second running to until_us (replay_options.until_us);
 * run it as p's user.  0, or -1 with why set when the stream cannot be
 * read (use is not called then).  The stream is not closed. */
int ctl_follow_replay(struct ctl_follow_cache *c, const struct ctl_process *p,
		      int stream, const struct stat *st, uint64_t until_us,
		      ctl_follow_use *use, void *ctx, char *why, size_t size);

/* The namer of uid's processes (not to be freed). */
struct frame_namer *ctl_follow_namer(struct ctl_follow_cache *c, uid_t uid,
				     gid_t gid);

/* How many times a replay was taken up again, not started over. */
uint64_t ctl_follow_resumed(const struct ctl_follow_cache *c);

#endif /* SPPROF_CTL_FOLLOW_H */
