/* wrap-options.h - the command line of memprof-wrap.
 *
 * Contract: wrap_parse_args() reads the options in front of COMMAND and
 * stops at the first non-option or at "--", so COMMAND's own options reach
 * COMMAND untouched.  It prints --help/--version and usage errors itself and
 * says through its return value whether to go on.  wrap_parse_size() is the
 * parser of --rate: a plain integer with an optional binary unit.
 */
#ifndef SPPROF_WRAP_OPTIONS_H
#define SPPROF_WRAP_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "estimator.h"

struct wrap_options {
	const char *output;  /* -o FILE as given; NULL for the default name */
	uint64_t rate;       /* -r BYTES; 0 when not given */
	bool follow_fork;    /* false with --no-follow-fork */
	/* --max-size: SPPROF_MAX_SIZE for COMMAND (bytes, 0 for no limit)
	 * when max_size_given; else the runtime's default. */
	uint64_t max_size;
	bool max_size_given;
	bool dormant;        /* --dormant: record only on request */
	bool quiet;          /* -q: no summary at the end */
	/* --python-allocators: PYTHONMALLOC for COMMAND ("malloc" or
	 * "pymalloc"); NULL leaves the environment as it is. */
	const char *python_allocators;
	/* --unwind: SPPROF_UNWIND for COMMAND ("auto", "fp" or "dwarf");
	 * NULL leaves the environment as it is. */
	const char *unwind;
	char **command;      /* COMMAND and its arguments, NULL-terminated */
};

/* wrap_parse_args() result meaning "run COMMAND"; any other value is the
 * status to exit with (0 after --help or --version, 2 after a usage error). */
#define WRAP_RUN (-1)

int wrap_parse_args(int argc, char **argv, struct wrap_options *options);

/* The smallest size limit of a profile the runtime takes (64 KiB). */
#define WRAP_MIN_MAX_SIZE (UINT64_C(64) << 10)

/* The largest sampling rate the runtime accepts (1 TiB). */
#define WRAP_MAX_RATE ESTIMATOR_MAX_SAMPLING_RATE

/* Parse TEXT as a sampling rate: decimal digits, then optionally K, M, G,
 * KiB, MiB or GiB in any case (all powers of 1024).  On success store the
 * count (1 to WRAP_MAX_RATE) in *BYTES and return NULL; otherwise return
 * what is wrong with it. */
const char *wrap_parse_size(const char *text, uint64_t *bytes);

#endif
