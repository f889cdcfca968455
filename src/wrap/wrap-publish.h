/* wrap-publish.h - publishing a profile a process handed over.
 *
 * Contract: a process that changed its user may no longer create files in
 * the profile directory; the runtime then sends memprof-wrap its final
 * profile as an open descriptor, with the name of its streamed file
 * ("<name>.part").  wrap_publish() copies it to the first free final name
 * for that streamed file, by the runtime's own naming rules (never over an
 * existing file, never a half-written file under the final name), removes
 * the streamed file and returns the final name; or NULL after saying why.
 */
#ifndef SPPROF_WRAP_PUBLISH_H
#define SPPROF_WRAP_PUBLISH_H

char *wrap_publish(const char *part, int fd);

#endif
