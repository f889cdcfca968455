/* wrap-manifest.h - the profiles and messages the runtime sends.
 *
 * Contract: wrap_manifest_create() makes a datagram socket in the abstract
 * namespace, close-on-exec, whose address ("@NAME") goes to the runtime in
 * SPPROF_MANIFEST: every profiled process reaches it, whatever user it
 * has become, and the program sees no descriptor of it.  Each datagram is
 * one line (common/profile_files.h): "P <part>" when a process starts
 * streaming, "F <part>\t<final>" once it has finalised, "X <part>\t<program>"
 * when an exec replaced its image ("N <part>" when that exec failed),
 * "E <part>\t<reason>" when recording stopped early, "W <part>\t<reason>"
 * when the final file could not be written, "H <part>" with the final file
 * as a descriptor when the process could not publish it itself (it is
 * published here, wrap-publish.h), "C <descendant>" with a socket when
 * the process may not create its streamed file (it is created here for
 * it, wrap-publish.h), "S <pid>\t<name>" when a process ended
 * without taking a sample, so without a profile, and "M <text>", a
 * message of the runtime, shown on stderr at once.  Only the command's
 * processes are heard (wrap-sender.h); what they may make memprof-wrap
 * keep or show is bounded (memory, messages, profiles, the size of a file
 * handed over): what is past a bound is dropped, and counted.
 * wrap_manifest_receive() takes some of the lines waiting, without
 * blocking; wrap_manifest_report() takes those queued when the command
 * ended, then lists on stderr every profile with the memprof-report
 * command that reads it, marking those never finalised, then the
 * processes that took no sample, and says how many datagrams were
 * refused or dropped; wrap_manifest_remove() closes the socket.
 */
#ifndef SPPROF_WRAP_MANIFEST_H
#define SPPROF_WRAP_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct profile_list;

/* What came that was not taken. */
struct wrap_intake {
	size_t taken_bytes;     /* of the lines taken so far */
	size_t messages_shown;
	size_t refused;         /* datagrams not from the command */
	struct ucred first_refused;
	size_t dropped;         /* from the command, malformed or too many */
};

struct wrap_manifest {
	int socket;                   /* where the lines arrive */
	char *address;                /* SPPROF_MANIFEST: "@name#key" */
	const char *key;              /* within address */
	const char *pattern;          /* SPPROF_OUTPUT, for "C" requests */
	uint64_t handed_size_max;     /* of a file handed over; 0: none */
	struct profile_list *profiles; /* what they said so far */
	struct wrap_intake intake;
};

/* 0 on success; otherwise print the problem and return 1.  PATTERN, the
 * profiles' SPPROF_OUTPUT, must outlive the manifest; HANDED_SIZE_MAX is
 * the largest final profile a process may hand over (0: no limit). */
int wrap_manifest_create(struct wrap_manifest *manifest, const char *pattern,
			 uint64_t handed_size_max);

void wrap_manifest_receive(struct wrap_manifest *manifest);

/* QUIET keeps only the warning that no profile was written.
 * DESCENDANTS_RUNNING: some processes of the command have not ended, so a
 * profile not finalised may still be in the making. */
void wrap_manifest_report(struct wrap_manifest *manifest, bool quiet,
			  bool descendants_running);

void wrap_manifest_remove(struct wrap_manifest *manifest);

/* TEXT as one word for a POSIX shell (newly allocated). */
char *wrap_shell_quote(const char *text);

#endif
