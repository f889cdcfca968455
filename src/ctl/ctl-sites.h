/* ctl-sites.h - the allocation sites of a running profile, as
 * memprof-report finds them.
 *
 * Contract: ctl_sites_read() replays a streamed profile once, symbolizes
 * its stacks offline and groups them into sites by function, allocation
 * wrappers passed over, through memprof-report's own engine
 * (report_engine_run(), report-engine.h), so that a site has the name
 * `memprof-report --top` gives it.  It keeps the profile's
 * totals, the `top` sites that hold the most live bytes now, and the
 * sites that `memprof-report --leaks` finds growing significantly, their
 * trend taken per second (whatever markers the program sets) up to
 * `now_us` (the moment the process is asked about: it lived to then,
 * whether it wrote events since or not) over the last
 * `growth_window_us` of it (replay_options; 0: the whole profile), the
 * fastest first, at most `top` of them.  It only reads files; the process
 * is not asked anything.  Symbolizing is the costly part (the modules'
 * symbols and debug information, often compressed): the reads of one
 * moment share a namer from ctl_sites_namer() (frame_namer_free() it),
 * which reads each module once.
 */
#ifndef SPPROF_CTL_SITES_H
#define SPPROF_CTL_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "ctl-summary.h"
#include "report-frames.h"

struct ctl_site {
	char *name;
	double value; /* live bytes, or growth in bytes per second */
};

struct ctl_sites {
	struct ctl_summary summary;
	struct ctl_site *largest; /* by live bytes now */
	size_t largest_count;
	struct ctl_site *growing; /* the fastest first */
	size_t growing_count;
};

struct frame_namer *ctl_sites_namer(void);
/* The profile open at fd (from its current offset; `name` for
 * messages), its trends up to now_us (microseconds since the epoch): 0,
 * or -1 with why set (*out then holds nothing to free). */
int ctl_sites_read(int fd, const char *name, size_t top, uint64_t now_us,
		   uint64_t growth_window_us, struct frame_namer *namer,
		   struct ctl_sites *out, char *why, size_t size);
/* The same of a profile replayed already (h, of the profile r reads):
 * the replay options must measure growth. */
void ctl_sites_of(const mlyze_reader *r, const struct heap_replay *h,
		  size_t top, struct frame_namer *namer, struct ctl_sites *out);
void ctl_sites_free(struct ctl_sites *s);

#endif /* SPPROF_CTL_SITES_H */
