/* wrap-output.h - where the profiles go.
 *
 * Contract: wrap_output_pattern() turns -o FILE (or its absence) into the
 * absolute SPPROF_OUTPUT pattern for the runtime.  %h is replaced here by
 * the host name; %p and %% are left for the runtime, which expands them in
 * each process.  Before anything runs it checks that the directory exists
 * and is writable, and notes (unless quiet) that an existing profile of the
 * same name will be kept rather than overwritten.
 *
 * The other functions are its pure building blocks, exposed for testing.
 */
#ifndef SPPROF_WRAP_OUTPUT_H
#define SPPROF_WRAP_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

/* Store the pattern in *PATTERN and return 0; or print the problem and
 * return the status to exit with (2: bad FILE, 1: unusable directory). */
int wrap_output_pattern(const char *output, const char *command, bool quiet,
			char **pattern);

/* "<basename of COMMAND>.%p.mlyze", with any % of the name escaped. */
char *wrap_default_output(const char *command);

/* Replace every %h of PATTERN by HOST (escaped) and store the result in
 * *EXPANDED; return NULL, or what is wrong with PATTERN (an unknown or
 * incomplete % sequence). */
const char *wrap_expand_host(const char *pattern, const char *host,
			     char **expanded);

/* The path named by the first LENGTH characters of a checked pattern, with
 * %% turned into %; NULL when they hold a %p (not known before run time). */
char *wrap_literal_path(const char *pattern, size_t length);

#endif
