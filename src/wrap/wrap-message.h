/* wrap-message.h - one datagram of the runtime, read.
 *
 * Contract: every datagram on memprof-wrap's socket is
 * "<key> <kind> <subject>[\t<detail>]\n" (common/profile_files.h lists the
 * kinds), where <key> is the secret memprof-wrap gave the command's
 * processes in SPPROF_MANIFEST: other users see the socket, not the key.
 * wrap_message_read() checks the key, the kind, that the line is whole (a
 * newline at the end, no zero byte) and what the kind asks for (a detail,
 * a descriptor), and splits it in place.  It does no system call, so that
 * any bytes can be fed to it.
 */
#ifndef SPPROF_WRAP_MESSAGE_H
#define SPPROF_WRAP_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>

struct wrap_message {
	char kind;           /* 'P', 'F', ... */
	const char *subject; /* the streamed file; "pid" for S; text for M */
	const char *detail;  /* after the tab, or NULL */
};

enum wrap_message_verdict {
	WRAP_MESSAGE_OK,
	WRAP_MESSAGE_FOREIGN,   /* without the key: not from the command */
	WRAP_MESSAGE_MALFORMED, /* with it, but not a line of the runtime's */
};

/* Reads the LENGTH bytes of DATA, a datagram that came with a descriptor
 * when WITH_DESCRIPTOR, into *MESSAGE (whose strings point into DATA,
 * changed in place). */
enum wrap_message_verdict wrap_message_read(char *data, size_t length,
					    const char *key,
					    bool with_descriptor,
					    struct wrap_message *message);

#endif
