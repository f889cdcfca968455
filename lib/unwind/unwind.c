/* unwind.c - native call stacks by frame pointers or unwind tables, and
 * the choice between them (see unwind.h). */
#include "config.h"

#include "unwind.h"

#include <stdatomic.h>
#include <string.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "code_map.h"
#include "compiler.h"
#include "sampler.h"
#include "unwind_arch.h"
#include "unwind_tables.h"

extern void *__libc_stack_end; /* glibc: the main thread's initial sp */

/* Frames the unwind tables see beyond a thread's outermost frame record:
 * the C library's thread or program entry. */
#define ANCHOR_OUTER_MAX 2

static uintptr_t runtime_text_lo, runtime_text_hi;
static uintptr_t libc_text_lo, libc_text_hi;
static enum unwind_method method;
static int have_tables;
static _Atomic int told_incomplete;

/* Where a sound frame-pointer walk of this thread ends: the outermost
 * frame record (main's, or the thread function's), its return address
 * into the C library, and the frames above it that only the unwind tables
 * see.  Learnt from the first stack on which both methods agree. */
struct anchor {
	uintptr_t fp, pc;
	uint32_t outer;
	uint64_t outer_frames[ANCHOR_OUTER_MAX];
};

static INITIAL_EXEC_TLS struct anchor anchor;

void unwind_init(enum unwind_method asked)
{
	code_range_of((const void *)(uintptr_t)&unwind_init, &runtime_text_lo,
		      &runtime_text_hi);
	/* abort() is the C library's own, whoever interposes malloc. */
	code_range_of((const void *)(uintptr_t)&abort, &libc_text_lo,
		      &libc_text_hi);
	have_tables = unwind_tables_init(libc_text_lo, libc_text_hi);
	method = asked;
	if (asked == UNWIND_DWARF && !have_tables) {
		runtime_message("SPPROF_UNWIND=dwarf: no unwind table reader "
				"on this architecture; walking frame pointers");
		method = UNWIND_FP;
	}
}

static int own_code(uintptr_t pc)
{
	return pc >= runtime_text_lo && pc < runtime_text_hi;
}

static int in_libc(uintptr_t pc)
{
	return pc >= libc_text_lo && pc < libc_text_hi;
}

/* A caller built without frame pointers leaves the register holding
 * anything, so a "frame" may hold any value where the return address
 * should be: only an address in known code is one.  Values no code can
 * have (beyond user space, or on the stack) are told apart without a
 * lookup. */
static enum code_kind return_address(uintptr_t pc, uintptr_t fp,
				     uintptr_t stack_top)
{
	if (pc < 0x1000 || pc > USER_ADDRESS_MAX ||
	    (pc >= fp && pc < stack_top))
		return NOT_CODE;
	return code_map_return_kind(pc);
}

/* How far up this thread's stack a walk may read, learnt without asking
 * the C library: pthread_getattr_np() allocates while it holds the
 * thread's lock, so a sample taken inside it would wait for that lock
 * forever.  The initial thread's stack ends at __libc_stack_end (its
 * arguments and environment above).  The C library (glibc, and musl)
 * puts any other thread's descriptor, pthread_self(), at the top of the
 * block that holds its stack, right above the stack and its thread-local
 * storage: all of it readable.  The initial thread is told apart first:
 * its descriptor lies wherever the loader mapped it, most often below
 * its stack but above it where the stack lies below the libraries (as
 * qemu-user maps it), and the code between is no stack.  A stack that is
 * neither (a thread running on a stack of its own making above its
 * descriptor) is not walked: its bounds are unknown. */
static uintptr_t thread_stack_top(void)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uintptr_t self = (uintptr_t)pthread_self();

	if (sp < (uintptr_t)__libc_stack_end &&
	    getpid() == (pid_t)syscall(SYS_gettid))
		return (uintptr_t)__libc_stack_end;
	if (sp < self)
		return self;
	return 0;
}

static uintptr_t current_stack_top(void)
{
	struct sampler_thread *t = &sampler_tls;

	if (!t->stack_top)
		t->stack_top = thread_stack_top();
	return t->stack_top;
}

struct fp_walk {
	uint32_t depth;
	int truncated;
	int broken;       /* stopped at a stray value or a signal frame */
	int gap;          /* stopped in code that keeps no frame pointer */
	int outermost;    /* ended at a frame record whose caller's is 0 */
	uintptr_t last_fp; /* frame record of frames[depth - 1] */
};

static int plausible_frame(uintptr_t fp, uintptr_t stack_top)
{
	return fp >= 0x1000 && fp <= USER_ADDRESS_MAX &&
	       !(fp & (sizeof(uintptr_t) - 1)) &&
	       fp + 2 * sizeof(uintptr_t) <= stack_top;
}

/* The frame record of the hook's caller: the first one that the
 * runtime's own frames, which all keep frame pointers, lead to; 0 when
 * their chain breaks before.  Both walks start there, so that the
 * runtime's frames are walked once. */
static uintptr_t caller_record(uintptr_t stack_top)
{
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);

	while (plausible_frame(fp, stack_top)) {
		const uintptr_t *frame = (const uintptr_t *)fp;

		if (!own_code(frame[1]))
			return fp;
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	return 0;
}

/* Walks frame records up from fp.  A return address into code without
 * frame pointers is recorded, but the frame record that follows may be
 * its caller's caller's (the function kept the register as it found it),
 * so with stop_at_gap the walk ends there. */
static struct fp_walk walk_frame_pointers(uint64_t *frames, uint32_t max,
					  int stop_at_gap, uintptr_t fp,
					  uintptr_t top)
{
	struct fp_walk w = { 0 };

	while (plausible_frame(fp, top)) {
		const uintptr_t *frame = (const uintptr_t *)fp;
		uintptr_t next = frame[0], pc = frame[1];
		enum code_kind kind;

		if (!own_code(pc)) {
			kind = return_address(pc, fp, top);
			if (kind == NOT_CODE || is_signal_trampoline(pc)) {
				w.broken = 1;
				break;
			}
			if (w.depth == max) {
				w.truncated = 1;
				break;
			}
			frames[w.depth++] = pc;
			w.last_fp = fp;
			if (fp == anchor.fp)
				break;
			if (kind == CODE_WITHOUT_FRAME_POINTERS && stop_at_gap) {
				w.gap = 1;
				break;
			}
		}
		if (next <= fp) {
			/* _start clears the frame pointer for this mark */
			w.outermost = next == 0;
			break;
		}
		fp = next;
	}
	return w;
}

static int reached_anchor(const uint64_t *frames, const struct fp_walk *w)
{
	return w->depth && w->last_fp == anchor.fp &&
	       frames[w->depth - 1] == anchor.pc;
}

/* The registers of the hook's caller right after the return to it, from
 * its frame record, where the processor lets the record tell where the
 * caller's stack resumes.  The tables then need not walk the runtime's
 * frames. */
static int resume_regs(uintptr_t record, struct frame_regs *regs)
{
	return record && regs_from_record(record, regs);
}

/* The unwind tables' stack from the hook's caller (its frame record, or
 * 0), without the runtime's own frames, in
 * frames[0..UNWIND_TABLES_MAX_DEPTH); at most max kept. */
static uint32_t walk_tables(uint64_t *frames, uint32_t max, int *truncated,
			    uintptr_t record, uintptr_t top)
{
	struct frame_regs caller;
	uint32_t n = unwind_tables_capture(resume_regs(record, &caller)
						   ? &caller
						   : NULL,
					   frames, UNWIND_TABLES_MAX_DEPTH, top,
					   truncated);
	uint32_t depth = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (own_code(frames[i]))
			continue;
		if (depth == max) {
			*truncated = 1;
			break;
		}
		frames[depth++] = frames[i];
	}
	return depth;
}

/* A walk that ended in the C library's entry code, or at the outermost
 * frame record (where the C library keeps frame pointers too, the chain
 * goes on through it to the program's _start), with at most
 * ANCHOR_OUTER_MAX frames beyond it in the tables' stack and every frame
 * before alike, found this thread's outermost frame record.  (A call into
 * the C library that calls malloc ends a walk in the C library too, but
 * leaves more frames beyond it.) */
static void learn_anchor(const uint64_t *fp_frames, const struct fp_walk *w,
			 const uint64_t *frames, uint32_t depth)
{
	uint32_t outer = depth - w->depth;

	if (anchor.fp || w->broken || w->truncated || !w->depth ||
	    depth < w->depth || outer > ANCHOR_OUTER_MAX ||
	    !(w->outermost || in_libc(fp_frames[w->depth - 1])) ||
	    memcmp(fp_frames, frames, w->depth * sizeof(*frames)))
		return;
	memcpy(anchor.outer_frames, frames + w->depth,
	       outer * sizeof(*frames));
	anchor.outer = outer;
	anchor.pc = fp_frames[w->depth - 1];
	anchor.fp = w->last_fp;
}

/* Replaces the frame-pointer walk in frames (if any: w) by the tables'
 * stack from the hook's caller, and learns from the two. */
static struct unwind_result from_tables(uint64_t *frames, uint32_t max,
					const struct fp_walk *w,
					uintptr_t record, uintptr_t top)
{
	uint64_t tables[UNWIND_TABLES_MAX_DEPTH];
	struct unwind_result r = { .method = UNWIND_DWARF };

	r.depth = walk_tables(tables, max, &r.truncated, record, top);
	if (w && !r.truncated)
		learn_anchor(frames, w, tables, r.depth);
	memcpy(frames, tables, r.depth * sizeof(*frames));
	return r;
}

static uint32_t append_outer_frames(uint64_t *frames, uint32_t depth,
				    uint32_t max, int *truncated)
{
	for (uint32_t i = 0; i < anchor.outer; i++) {
		if (depth == max) {
			*truncated = 1;
			break;
		}
		frames[depth++] = anchor.outer_frames[i];
	}
	return depth;
}

static void tell_incomplete_once(void)
{
	if (!atomic_exchange(&told_incomplete, 1))
		runtime_message("stacks through code built without frame "
				"pointers are cut short: this runtime cannot "
				"read unwind tables on this architecture");
}

struct unwind_result unwind_capture(uint64_t *frames, uint32_t max)
{
	uintptr_t top = current_stack_top();
	uintptr_t record = caller_record(top);
	struct fp_walk w;
	struct unwind_result r = { .method = UNWIND_FP };

	if (!top)
		return r;
	if (method == UNWIND_DWARF)
		return from_tables(frames, max, NULL, record, top);
	w = walk_frame_pointers(frames, max,
				method == UNWIND_AUTO && have_tables, record,
				top);
	r.depth = w.depth;
	r.truncated = w.truncated;
	if (reached_anchor(frames, &w)) {
		r.depth = append_outer_frames(frames, w.depth, max,
					      &r.truncated);
	} else if (method == UNWIND_AUTO) {
		if (have_tables)
			return from_tables(frames, max, &w, record, top);
		if (w.broken)
			tell_incomplete_once();
	}
	return r;
}
