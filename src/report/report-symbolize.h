/* report-symbolize.h - memprof-report --symbolize: a profile that carries
 * its own symbols.
 *
 * Contract: symbolize_profile() writes the profile `input` to `output`
 * (NULL: standard output) with the symbols of its native frames inside
 * it, so that it reads the same where none of its binaries are.  The
 * input is copied as it is, byte for byte, up to the end of its events
 * (a streamed file's unwritten tail and an event its writer did not
 * finish are left out, the reader having warned of the latter), and one
 * SYMBOL event (mlyze(5)) follows for each distinct native frame of its
 * stacks whose module's file could be read: what the binary and its
 * debug information give at that address, the functions inlined there
 * included, as a report would name the frame.  Frames the profile already
 * carries symbols for keep them.  Returns the exit status of
 * memprof-report: 0, 1 (a file cannot be read or written), 2 (the input
 * breaks the format).
 */
#ifndef SPPROF_REPORT_SYMBOLIZE_H
#define SPPROF_REPORT_SYMBOLIZE_H

#include "symbolizer.h"

int symbolize_profile(const char *input, const char *output,
		      const struct symbolizer_options *options);

#endif /* SPPROF_REPORT_SYMBOLIZE_H */
