/* profile_assembly.h - the final .mlyze file, made from the streamed one.
 *
 * Contract: the streamed "<name>.part" defines stacks, modules and names
 * inline, right before their first use; the final file puts all of them
 * in its metadata, before the events.  profile_assemble() writes the
 * prologue of `meta` (header and complete metadata), then the streamed
 * events without the inline definitions, copied inside the kernel where
 * it can, into an unnamed file in the streamed file's directory; then
 * publishes it under its final name (never over an existing file).  A
 * process killed in the middle leaves no part of it behind.  Where the
 * file system has no unnamed files, the file is written as
 * "<part>.final" and renamed.  The streamed file is left as it is:
 * removing it is the caller's choice.  Returns 0 or an errno value
 * (EFBIG when the file would pass the size limit), and leaves no file
 * behind on failure.  Nothing here allocates from the C library.
 */
#ifndef SPPROF_PROFILE_ASSEMBLY_H
#define SPPROF_PROFILE_ASSEMBLY_H

#include <stddef.h>
#include <stdint.h>

#include "profile_files.h"
#include "profile_meta.h"

/* Where the events lie in the streamed file, open on fd. */
struct streamed_events {
	int fd;
	uint64_t start, end; /* bytes [start, end) of the file */
	/* The inline definitions among them, [start, end) pairs of offsets
	 * in the order written. */
	const uint64_t *definitions;
	size_t definition_words;
};

int profile_assemble(const struct streamed_events *events,
		     const struct profile_meta *meta,
		     const struct profile_files *files, char *final,
		     size_t size);

/* The same final file written into the empty file open on fd, which is
 * neither named nor published here.  0 or an errno value. */
int profile_assemble_into(int fd, const struct streamed_events *events,
			  const struct profile_meta *meta);

#endif /* SPPROF_PROFILE_ASSEMBLY_H */
