/* outbuf.c - buffered fd output and JSON helpers (see outbuf.h). */
#include "config.h"

#include "outbuf.h"
#include "utf8.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* Writes all of buf at *offset (advancing it), or at the file's position
 * when offset is NULL, retrying on EINTR and short writes. */
static int write_fully(int fd, const void *buf, size_t n, uint64_t *offset)
{
	const uint8_t *p = buf;

	while (n > 0) {
		ssize_t w = offset ? pwrite(fd, p, n, (off_t)*offset)
				   : write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		p += w;
		n -= (size_t)w;
		if (offset)
			*offset += (uint64_t)w;
	}
	return 0;
}

uint64_t file_size_limit(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_FSIZE, &r) < 0 || r.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return (uint64_t)r.rlim_cur;
}

int write_all(int fd, const void *buf, size_t n)
{
	return write_fully(fd, buf, n, NULL);
}

int pwrite_all(int fd, const void *buf, size_t n, uint64_t offset)
{
	return write_fully(fd, buf, n, &offset);
}

void outbuf_init(struct outbuf *o, int fd, uint8_t *buf, size_t cap)
{
	*o = (struct outbuf){ .fd = fd, .buf = buf, .cap = cap };
}

int outbuf_flush(struct outbuf *o)
{
	if (o->len && !o->error)
		o->error = o->written + o->len > file_size_limit()
				   ? EFBIG
				   : write_all(o->fd, o->buf, o->len);
	if (!o->error)
		o->written += o->len;
	o->len = 0;
	return o->error;
}

uint8_t *outbuf_reserve(struct outbuf *o, size_t n)
{
	if (o->len + n > o->cap)
		outbuf_flush(o);
	return o->buf + o->len;
}

void outbuf_commit(struct outbuf *o, size_t used)
{
	o->len += used;
}

void outbuf_bytes(struct outbuf *o, const void *data, size_t n)
{
	const uint8_t *p = data;

	while (n > 0) {
		size_t room = o->cap - o->len;
		size_t chunk = n < room ? n : room;

		memcpy(o->buf + o->len, p, chunk);
		o->len += chunk;
		p += chunk;
		n -= chunk;
		if (o->len == o->cap)
			outbuf_flush(o);
	}
}

void outbuf_str(struct outbuf *o, const char *s)
{
	outbuf_bytes(o, s, strlen(s));
}

void outbuf_uint(struct outbuf *o, uint64_t v)
{
	char digits[20];
	size_t n = 0;

	do {
		digits[sizeof(digits) - ++n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	outbuf_bytes(o, digits + sizeof(digits) - n, n);
}

void outbuf_json_string(struct outbuf *o, const char *str)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;

	outbuf_bytes(o, "\"", 1);
	while (*s) {
		size_t seq;

		if (*s == '"' || *s == '\\') {
			char esc[2] = { '\\', (char)*s };

			outbuf_bytes(o, esc, 2);
			s++;
		} else if (*s < 0x20) {
			char esc[6] = { '\\', 'u', '0', '0', hex[*s >> 4],
					hex[*s & 15] };

			outbuf_bytes(o, esc, 6);
			s++;
		} else if (*s < 0x80) {
			outbuf_bytes(o, s++, 1);
		} else if ((seq = utf8_char_length(s, strnlen((const char *)s, 4)))) {
			outbuf_bytes(o, s, seq);
			s += seq;
		} else {
			outbuf_str(o, "\\ufffd");
			s++;
		}
	}
	outbuf_bytes(o, "\"", 1);
}

void outbuf_json_key(struct outbuf *o, const char *key, int first)
{
	if (!first)
		outbuf_bytes(o, ",", 1);
	outbuf_json_string(o, key);
	outbuf_bytes(o, ":", 1);
}
