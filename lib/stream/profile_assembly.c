/* profile_assembly.c - the final .mlyze file (see profile_assembly.h). */
#include "config.h"

#include "profile_assembly.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "outbuf.h"
#include "rawmem.h"

#define COPY_CHUNK_BYTES (1u << 20)

/* Copies bytes [offset, end) of file `from` to the end of `to`: inside
 * the kernel when it can, else through buffer. */
static int copy_range(int from_fd, int to, uint64_t offset, uint64_t end,
		      uint8_t *buffer)
{
	int in_kernel = 1;

	while (offset < end) {
		size_t want = end - offset < COPY_CHUNK_BYTES
				      ? (size_t)(end - offset)
				      : COPY_CHUNK_BYTES;
		off64_t from = (off64_t)offset;
		ssize_t n = -1;
		int err;

		if (in_kernel) {
			n = copy_file_range(from_fd, &from, to, NULL, want, 0);
			in_kernel = n > 0;
		}
		if (n < 0) {
			n = pread(from_fd, buffer, want, (off_t)offset);
			if (n > 0 && (err = write_all(to, buffer, (size_t)n)))
				return err;
		}
		if (n <= 0)
			return n < 0 ? errno : EIO; /* the file got shorter */
		offset += (uint64_t)n;
	}
	return 0;
}

/* The bytes of events the final file holds: all but the definitions. */
static uint64_t event_bytes(const struct streamed_events *e)
{
	uint64_t n = e->end - e->start;

	for (size_t i = 0; i < e->definition_words; i += 2)
		n -= e->definitions[i + 1] - e->definitions[i];
	return n;
}

/* Copies the streamed events into `to`, whose first `written` bytes are
 * there already, leaving out the inline definitions that the final
 * metadata replaces. */
static int copy_events(const struct streamed_events *e, int to,
		       uint64_t written, uint8_t *buffer)
{
	uint64_t from = e->start;
	int err = 0;

	if (written + event_bytes(e) > file_size_limit())
		return EFBIG;
	for (size_t i = 0; i < e->definition_words && !err; i += 2) {
		err = copy_range(e->fd, to, from, e->definitions[i], buffer);
		from = e->definitions[i + 1];
	}
	return err ? err : copy_range(e->fd, to, from, e->end, buffer);
}

/* Writes the prologue of meta, then the events, into fd. */
static int write_into(int fd, const struct streamed_events *e,
		      const struct profile_meta *meta, uint8_t *buffer)
{
	struct outbuf o;
	int err;

	outbuf_init(&o, fd, buffer, COPY_CHUNK_BYTES);
	err = meta_write_prologue(&o, meta, 1);
	return err ? err : copy_events(e, fd, o.written, buffer);
}

#define NO_UNNAMED (-1) /* not an errno value */

/* Writes the final file as an unnamed file and publishes it once whole,
 * so that a process killed meanwhile leaves nothing behind.  NO_UNNAMED
 * where the file system has no unnamed files, or it cannot be linked (no
 * /proc, and no privilege to link a descriptor). */
static int write_unnamed(const struct streamed_events *e,
			 const struct profile_meta *meta,
			 const struct profile_files *files, uint8_t *buffer,
			 char *final, size_t size)
{
	int fd = profile_files_open_unnamed(files);
	int err;

	if (fd < 0)
		return NO_UNNAMED;
	err = write_into(fd, e, meta, buffer);
	if (!err) {
		err = profile_files_publish_unnamed(files, fd, final, size);
		/* Only a link that cannot be made is worth a named file:
		 * a full disk, say, would fail it the same way. */
		if (err == ENOENT || err == EPERM)
			err = NO_UNNAMED;
	}
	close(fd); /* unnamed files are local: close reports nothing */
	return err;
}

/* Writes the final file next to the streamed one, "<part>.final", then
 * renames it: where there are no unnamed files. */
static int write_named(const struct streamed_events *e,
		       const struct profile_meta *meta,
		       const struct profile_files *files, uint8_t *buffer,
		       char *final, size_t size)
{
	char tmp[PATH_MAX + 8];
	int fd, err;

	snprintf(tmp, sizeof(tmp), "%s.final", files->part);
	fd = open(tmp, PROFILE_FILES_CREATE, 0666);
	if (fd < 0)
		return errno;
	err = write_into(fd, e, meta, buffer);
	if (close(fd) < 0 && !err)
		err = errno;
	if (!err)
		err = profile_files_publish(files, tmp, final, size);
	if (err)
		unlink(tmp);
	return err;
}

int profile_assemble(const struct streamed_events *events,
		     const struct profile_meta *meta,
		     const struct profile_files *files, char *final,
		     size_t size)
{
	uint8_t *buffer = rawmem_map(COPY_CHUNK_BYTES);
	int err = buffer ? write_unnamed(events, meta, files, buffer, final,
					 size)
			 : ENOMEM;

	if (err == NO_UNNAMED)
		err = write_named(events, meta, files, buffer, final, size);

	rawmem_unmap(buffer, COPY_CHUNK_BYTES);
	return err;
}

int profile_assemble_into(int fd, const struct streamed_events *events,
			  const struct profile_meta *meta)
{
	uint8_t *buffer = rawmem_map(COPY_CHUNK_BYTES);
	int err = buffer ? write_into(fd, events, meta, buffer) : ENOMEM;

	rawmem_unmap(buffer, COPY_CHUNK_BYTES);
	return err;
}
