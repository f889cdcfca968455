/* cli.h - the options every benchmark program shares.
 *
 * Contract: shared_option() handles an option character returned by
 * getopt_long() that the program does not handle itself: -h/--help prints
 * the usage on stdout, -V/--version the version, anything else the usage
 * on stderr.  It returns the exit status the program must end with.
 */
#ifndef SPPROF_BENCH_CLI_H
#define SPPROF_BENCH_CLI_H

#include <stdio.h>

int shared_option(int option, const char *program, void (*usage)(FILE *));

#endif /* SPPROF_BENCH_CLI_H */
