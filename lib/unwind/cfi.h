/* cfi.h - where a frame's caller state is kept, from an object's .eh_frame.
 *
 * Contract: cfi_find_rule() looks pc up in the search table of an
 * .eh_frame_hdr (the usual encodings only), reads the FDE that covers it
 * and its CIE, and runs their call frame instructions up to pc.  It tells
 * how to find the canonical frame address (the stack or frame pointer plus
 * an offset, or what is saved there) and where, from it or the frame
 * pointer, the return address and the caller's frame pointer are saved.  Only that subset of DWARF is understood; anything
 * else that matters for those three (expressions, other registers) makes
 * it answer 0.  It reads only the object's mapped tables, and trusts them:
 * they come from the loaded object itself.
 */
#ifndef SPPROF_CFI_H
#define SPPROF_CFI_H

#include <stdint.h>

enum frame_rule_kind {
	FRAME_UNKNOWN,   /* no rule: the walk ends */
	FRAME_STEP,      /* the rule below gives the caller */
	FRAME_OUTERMOST, /* the return address is undefined: no caller */
	/* Not from the tables, for the walk's own use: */
	FRAME_SIGNAL,    /* a sigreturn trampoline: the signal frame follows */
	FRAME_NOT_CODE,  /* the address lies in no known code */
};

struct frame_rule {
	enum frame_rule_kind kind;
	int cfa_on_fp;      /* CFA = frame pointer + cfa_offset, else sp */
	int cfa_deref;      /* CFA = *(frame pointer + cfa_offset) */
	int32_t cfa_offset;
	int32_t ra_offset;  /* return address at CFA + ra_offset */
	int fp_saved;       /* caller's frame pointer at CFA + fp_offset */
	int fp_near_fp;     /* ... or at frame pointer + fp_offset; */
	int32_t fp_offset;  /* else the register is left as it is */
};

/* The rule for the instruction at pc (for a return address, pass the
 * address of the call: return address - 1). */
struct frame_rule cfi_find_rule(uintptr_t eh_frame_hdr, uintptr_t pc);

#endif /* SPPROF_CFI_H */
