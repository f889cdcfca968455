/* unwind_arch.h - what the unwinders need to know of the processor.
 *
 * Contract: one block per supported architecture defines
 *  - USER_ADDRESS_MAX: no user-space address is above;
 *  - DWARF_FP, DWARF_SP, DWARF_RA: the .eh_frame numbers of the frame
 *    pointer, the stack pointer and the return address column;
 *  - CURRENT_REGS(r): this instruction's address and the stack and frame
 *    pointers, for a walk that starts in the function using it;
 *  - regs_from_record(): the registers of a caller right after the return
 *    to it, from the callee's frame record, where the frame record says
 *    (0 where the CFA is not found from it);
 *  - sigreturn_trampolines[]: the code of each sigreturn trampoline and
 *    where, from the stack pointer at it, the kernel put the interrupted
 *    registers (an mcontext_t, read by signal_regs());
 *  - RETURN_ADDRESS_MASK: the bits of a return address that are not a
 *    pointer signature;
 *  - sets_up_frame_pointer(): whether a function's first bytes, length of
 *    them (at most PROLOGUE_BYTES, less where the next function starts
 *    sooner), set up a frame pointer.
 * Every block assumes the frame record layout { caller's frame pointer,
 * return address } at the frame pointer.  On any other architecture
 * STACK_CAPTURE_SUPPORTED is 0, the last block stands in for the rest
 * (no walk, no table rule) and the runtime records nothing.  A new
 * architecture adds one block here.
 */
#ifndef SPPROF_UNWIND_ARCH_H
#define SPPROF_UNWIND_ARCH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#define PROLOGUE_BYTES 32

/* The registers of a frame: its instruction pointer (a return address,
 * except at the start of a walk and after a signal frame), stack pointer
 * and frame pointer. */
struct frame_regs {
	uintptr_t pc, sp, fp;
};

struct sigreturn_trampoline {
	uint8_t code[9];
	uint8_t length;
	uint16_t mcontext_offset; /* from the stack pointer at the trampoline */
};

/* The rt signal frame's context, its registers at mcontext_offset. */
#define UCONTEXT_MCONTEXT offsetof(ucontext_t, uc_mcontext)

/* What x86-64 and i386 share. */
#if defined(__x86_64__) || defined(__i386__)
/* The frame record is where the return address was
 * pushed, so the caller's stack resumes right above it. */
static inline int x86_regs_from_record(uintptr_t record,
				       struct frame_regs *regs)
{
	const uintptr_t *frame = (const uintptr_t *)record;

	*regs = (struct frame_regs){ frame[1], record + 2 * sizeof(uintptr_t),
				     frame[0] };
	return 1;
}

static inline struct frame_regs x86_signal_regs(const mcontext_t *mc, int pc,
						int sp, int fp)
{
	const greg_t *r = mc->gregs;

	return (struct frame_regs){ (uintptr_t)r[pc], (uintptr_t)r[sp],
				    (uintptr_t)r[fp] };
}

/* x86: push %bp, then mov %sp,%bp (mov_sp_bp), which the compiler may
 * schedule a few instructions later; after an optional endbr. */
static inline int x86_sets_up_frame_pointer(const uint8_t *code,
					    size_t length,
					    const uint8_t endbr[4],
					    const uint8_t *mov_sp_bp,
					    size_t mov_len)
{
	const uint8_t *end = code + length;

	if (length >= 4 && !memcmp(code, endbr, 4))
		code += 4;
	if (code == end || *code++ != 0x55)
		return 0;
	for (; code + mov_len <= end; code++)
		if (!memcmp(code, mov_sp_bp, mov_len))
			return 1;
	return 0;
}
#endif

#if defined(__x86_64__)
#define STACK_CAPTURE_SUPPORTED 1
#define USER_ADDRESS_MAX 0x0000FFFFFFFFFFFFull
#define RETURN_ADDRESS_MASK UINTPTR_MAX
enum { DWARF_FP = 6, DWARF_SP = 7, DWARF_RA = 16 };

#define CURRENT_REGS(r)                                                   \
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" \
			 : "=r"((r).pc), "=r"((r).sp), "=r"((r).fp))
#define regs_from_record x86_regs_from_record

/* The rt signal frame: the return address (popped), then the context. */
static const struct sigreturn_trampoline sigreturn_trampolines[] = {
	/* mov $15, %rax; syscall */
	{ { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 }, 9,
	  UCONTEXT_MCONTEXT },
};

#define signal_regs(mc) x86_signal_regs(mc, REG_RIP, REG_RSP, REG_RBP)

static inline int sets_up_frame_pointer(const uint8_t *code, size_t length)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const uint8_t mov_rsp_rbp[] = { 0x48, 0x89, 0xe5 };

	return x86_sets_up_frame_pointer(code, length, endbr64, mov_rsp_rbp,
					 sizeof(mov_rsp_rbp));
}

#elif defined(__i386__)
#define STACK_CAPTURE_SUPPORTED 1
#define USER_ADDRESS_MAX UINTPTR_MAX
#define RETURN_ADDRESS_MASK UINTPTR_MAX
enum { DWARF_FP = 5, DWARF_SP = 4, DWARF_RA = 8 };

/* i386 cannot address its own instruction: a call pushes it. */
#define CURRENT_REGS(r)                                                   \
	__asm__ volatile("call 1f\n1:\tpopl %0\n\tmovl %%esp, %1\n\t"     \
			 "movl %%ebp, %2"                                  \
			 : "=r"((r).pc), "=r"((r).sp), "=r"((r).fp))
#define regs_from_record x86_regs_from_record

static const struct sigreturn_trampoline sigreturn_trampolines[] = {
	/* movl $173, %eax; int $0x80 (rt_sigreturn, SA_SIGINFO): below it,
	 * the return address (popped), the signal number, pointers to the
	 * siginfo and the context, the siginfo, the context */
	{ { 0xb8, 0xad, 0x00, 0x00, 0x00, 0xcd, 0x80 }, 7,
	  3 * 4 + sizeof(siginfo_t) + UCONTEXT_MCONTEXT },
	/* popl %eax; movl $119, %eax; int $0x80 (sigreturn): the return
	 * address (popped), the signal number, the registers */
	{ { 0x58, 0xb8, 0x77, 0x00, 0x00, 0x00, 0xcd, 0x80 }, 8, 4 },
};

#define signal_regs(mc) x86_signal_regs(mc, REG_EIP, REG_ESP, REG_EBP)

static inline int sets_up_frame_pointer(const uint8_t *code, size_t length)
{
	static const uint8_t endbr32[] = { 0xf3, 0x0f, 0x1e, 0xfb };
	static const uint8_t mov_esp_ebp[] = { 0x89, 0xe5 };

	return x86_sets_up_frame_pointer(code, length, endbr32, mov_esp_ebp,
					 sizeof(mov_esp_ebp));
}

#elif defined(__aarch64__)
#define STACK_CAPTURE_SUPPORTED 1
#define USER_ADDRESS_MAX 0x0000FFFFFFFFFFFFull
/* Pointer authentication signs return addresses in their top bits. */
#define RETURN_ADDRESS_MASK 0x0000FFFFFFFFFFFFull
enum { DWARF_FP = 29, DWARF_SP = 31, DWARF_RA = 30 };

#define CURRENT_REGS(r)                                                   \
	__asm__ volatile("adr %0, .\n\tmov %1, sp\n\tmov %2, x29"          \
			 : "=r"((r).pc), "=r"((r).sp), "=r"((r).fp))

/* The frame record lies below the callee's locals, not at the CFA. */
static inline int regs_from_record(uintptr_t record, struct frame_regs *regs)
{
	(void)record;
	(void)regs;
	return 0;
}

/* The rt signal frame: the siginfo, then the context. */
static const struct sigreturn_trampoline sigreturn_trampolines[] = {
	/* mov x8, #139; svc #0 (in the vDSO) */
	{ { 0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4 }, 8,
	  sizeof(siginfo_t) + UCONTEXT_MCONTEXT },
};

static inline struct frame_regs signal_regs(const mcontext_t *mc)
{
	return (struct frame_regs){ (uintptr_t)mc->pc, (uintptr_t)mc->sp,
				    (uintptr_t)mc->regs[29] };
}

/* The frame record saved, stp x29, x30, [sp, #imm] (pre-indexed, or at
 * an offset into a frame allocated before), then x29 pointed at it, add
 * x29, sp, #imm (mov x29, sp is its #0); the compiler schedules other
 * instructions before and between, paciasp or bti c first among them. */
static inline int sets_up_frame_pointer(const uint8_t *code, size_t length)
{
	uint32_t insn[PROLOGUE_BYTES / 4];
	size_t n = length / 4, i = 0;

	memcpy(insn, code, n * 4);
	while (i < n && (insn[i] & 0xff407fff) != 0xa9007bfd)
		i++;
	for (i++; i < n; i++)
		if ((insn[i] & 0xff8003ff) == 0x910003fd)
			return 1;
	return 0;
}

#else
#define STACK_CAPTURE_SUPPORTED 0
#define USER_ADDRESS_MAX UINTPTR_MAX
#define RETURN_ADDRESS_MASK UINTPTR_MAX
enum { DWARF_FP = -1, DWARF_SP = -1, DWARF_RA = -1 };

#define CURRENT_REGS(r) ((r) = (struct frame_regs){ 0 })

static inline int regs_from_record(uintptr_t record, struct frame_regs *regs)
{
	(void)record;
	(void)regs;
	return 0;
}

static const struct sigreturn_trampoline sigreturn_trampolines[] = {
	{ { 0 }, 0, 0 },
};

static inline struct frame_regs signal_regs(const mcontext_t *mc)
{
	(void)mc;
	return (struct frame_regs){ 0 };
}

static inline int sets_up_frame_pointer(const uint8_t *code, size_t length)
{
	(void)code;
	(void)length;
	return 0;
}
#endif

#endif /* SPPROF_UNWIND_ARCH_H */
