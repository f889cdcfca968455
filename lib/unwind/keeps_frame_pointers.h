/* keeps_frame_pointers.h - whether a loaded object keeps frame pointers.
 *
 * Contract: object_keeps_frame_pointers() looks at the first instructions
 * of up to 64 functions of the search table of the object's
 * .eh_frame_hdr (four runs of neighbours spread over it, so that the
 * probes touch a few pages of its code) and says whether a third or
 * more of them set up a frame pointer (the processor's prologue: see
 * unwind_arch.h).  A frame-pointer walk may go on from a return address
 * only into a function that set one up: a function that did not is
 * seen, but not its caller.  An object without the table, with an
 * unusual encoding of it, or of another architecture counts as keeping
 * none.  Reads only the object's mapped memory, allocates nothing.
 */
#ifndef SPPROF_KEEPS_FRAME_POINTERS_H
#define SPPROF_KEEPS_FRAME_POINTERS_H

#include <link.h>

int object_keeps_frame_pointers(const struct dl_phdr_info *info);

#endif /* SPPROF_KEEPS_FRAME_POINTERS_H */
