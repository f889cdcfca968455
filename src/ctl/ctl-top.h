/* ctl-top.h - the top sites of a running process, redrawn like top(1).
 *
 * Contract: ctl_top() runs memprof-report on the process's streamed file
 * (opened and checked afresh each time, and read as the process's user:
 * ctl-stream.h) every `interval` seconds (the top sites by their live
 * bytes now, with the growth of each since the recording began, per
 * second or per marker, with its 95 % interval) and shows its report in
 * place of the last one, until `q` is typed, the process ends or stops
 * recording.  The report
 * writes to the terminal itself, so it colours its output there unless
 * NO_COLOR is set.  When standard output is not a terminal, the report
 * is written once, with nothing of a screen's control codes.  Returns an
 * exit status (0, or 1 with a message on stderr).
 */
#ifndef SPPROF_CTL_TOP_H
#define SPPROF_CTL_TOP_H

#include "ctl-registry.h"

int ctl_top(const struct ctl_process *p, unsigned interval);

/* memprof-report next to this program (the build tree, or the installed
 * one beside it), else the one on PATH (also for ctl-serve-profile.c). */
void ctl_report_program(char *out, size_t size);

#endif /* SPPROF_CTL_TOP_H */
