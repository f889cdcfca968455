/* ctl-serve-silence.h - connections past their client's share are closed
 * after a few seconds of silence.
 *
 * memprof-ctl serve runs a thread per connection.  libmicrohttpd 1.0 no
 * longer applies a connection's own timeout in that mode (only the
 * daemon's, --timeout), so the short one of the connections past their
 * client's share is kept here: a watcher thread shuts down the socket of
 * each such connection that has been silent for `seconds` (no request
 * under way), which its connection's thread then closes.
 *
 * Contract: ctl_silence_watch() registers a connection's socket and
 * returns its note (NULL: no memory, then it is not watched);
 * ctl_silence_asking() marks a request under way (true) or ended (false:
 * the silence counts from then); ctl_silence_forget() is called when the
 * connection closes, before its socket is: from then on the watcher never
 * touches that descriptor.  All are thread-safe.
 */
#ifndef CTL_SERVE_SILENCE_H
#define CTL_SERVE_SILENCE_H

#include <stdbool.h>

struct ctl_silence;
struct ctl_silent;

struct ctl_silence *ctl_silence_start(unsigned seconds);
void ctl_silence_stop(struct ctl_silence *s);
struct ctl_silent *ctl_silence_watch(struct ctl_silence *s, int fd);
void ctl_silence_asking(struct ctl_silence *s, struct ctl_silent *c,
			bool asking);
void ctl_silence_forget(struct ctl_silence *s, struct ctl_silent *c);

#endif
