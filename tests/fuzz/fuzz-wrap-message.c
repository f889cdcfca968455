/* fuzz-wrap-message - libFuzzer target for the lines memprof-wrap reads
 * from its socket (src/wrap/wrap-message.c) and shows on the terminal
 * (wrap_escape, src/wrap/wrap-util.c): any datagram is read or refused
 * without a crash, a leak or undefined behaviour, and what is shown of
 * it holds no byte a terminal would obey.
 *
 * The first byte chooses: bit 0 puts the key in front of the rest (the
 * fuzzer could not guess it), bit 1 says a descriptor came with it. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wrap-message.h"
#include "wrap-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char key[] = "00112233445566778899aabbccddeeff";

/* Aborts when the escaped text holds a control byte or DEL. */
static void check_shown(const char *text)
{
	char *shown = wrap_escape(text);

	for (const unsigned char *c = (const unsigned char *)shown; *c; c++)
		if ((*c < 0x20 && *c != '\t') || *c == 0x7f)
			abort();
	free(shown);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wrap_message message;
	size_t prefix, length;
	char *datagram;

	if (size == 0)
		return 0;
	prefix = data[0] & 1 ? sizeof key : 0; /* the key and a space */
	length = prefix + size - 1;
	/* Exactly the datagram's bytes, as recvmsg() leaves them, and a
	 * zero byte past them (memprof-wrap's buffer has room for it). */
	datagram = malloc(length + 1);
	if (datagram == NULL)
		return 0;
	if (prefix) {
		memcpy(datagram, key, sizeof key - 1);
		datagram[sizeof key - 1] = ' ';
	}
	memcpy(datagram + prefix, data + 1, size - 1);
	datagram[length] = '\0';
	if (wrap_message_read(datagram, length, key, data[0] & 2, &message) ==
	    WRAP_MESSAGE_OK) {
		if (strchr("PFXNEWHCSM", message.kind) == NULL)
			abort();
		check_shown(message.subject);
		if (message.detail != NULL)
			check_shown(message.detail);
	}
	free(datagram);
	return 0;
}
