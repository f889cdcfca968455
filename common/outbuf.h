/* outbuf.h - buffered output to a file descriptor, with JSON helpers.
 *
 * Contract: bytes are gathered in a caller-provided buffer and written
 * with write(2) when it fills or on outbuf_flush(); nothing allocates, so
 * the profile writer can use it inside the allocation hooks.  The first
 * write error is kept in `error` (an errno value) and later output is
 * dropped, so callers check once at the end.  A flush that would make
 * the file (written from offset 0) larger than file_size_limit() fails
 * with EFBIG instead.
 */
#ifndef SPPROF_OUTBUF_H
#define SPPROF_OUTBUF_H

#include <stddef.h>
#include <stdint.h>

struct outbuf {
	int fd;
	int error;
	uint8_t *buf;
	size_t len, cap;
	uint64_t written; /* bytes handed to write(2) so far */
};

void outbuf_init(struct outbuf *o, int fd, uint8_t *buf, size_t cap);
int outbuf_flush(struct outbuf *o);

/* Room for n (<= cap) contiguous bytes; commit what was used. */
uint8_t *outbuf_reserve(struct outbuf *o, size_t n);
void outbuf_commit(struct outbuf *o, size_t used);

void outbuf_bytes(struct outbuf *o, const void *data, size_t n);
void outbuf_str(struct outbuf *o, const char *s);
void outbuf_uint(struct outbuf *o, uint64_t v);

/* A JSON string literal, escaped; a byte that starts no well-formed
 * character (utf8.h) becomes U+FFFD. */
void outbuf_json_string(struct outbuf *o, const char *s);
/* `"key":` preceded by a comma unless first. */
void outbuf_json_key(struct outbuf *o, const char *key, int first);

/* The largest size a file of this process may have (RLIMIT_FSIZE), or
 * UINT64_MAX.  Writing past it would raise SIGXFSZ in the program, so the
 * runtime checks it before every write that extends a file. */
uint64_t file_size_limit(void);

/* write(2) all of buf, retrying on EINTR and short writes. */
int write_all(int fd, const void *buf, size_t n);
/* The same with pwrite(2), at offset. */
int pwrite_all(int fd, const void *buf, size_t n, uint64_t offset);

#endif /* SPPROF_OUTBUF_H */
