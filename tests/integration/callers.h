/* callers.h - what the caller-chain test programs share (callers.c, its
 * library and plugin): functions that keep their own frame and name,
 * whatever the optimiser does, and blocks big enough to be sampled at the
 * rates the tests use. */
#ifndef CALLERS_H
#define CALLERS_H

#define KEEP_FRAME __attribute__((noipa))
/* After a call: the call is then not the function's last act, so it is
 * not turned into a jump that would take the caller's frame away. */
#define AFTER_CALL() __asm__ volatile("" ::: "memory")
#define SITE_BYTES (1u << 20)

typedef void site_function(void);

void library_outer(site_function *callback);
void plugin_outer(void);

#endif
