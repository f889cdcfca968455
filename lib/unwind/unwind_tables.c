/* unwind_tables.c - native stacks from the binaries' unwind tables (see
 * unwind_tables.h). */
#include "config.h"

#include "unwind_tables.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>

#include "cfi.h"
#include "code_map.h"
#include "packed_rule.h"
#include "rawmem.h"
#include "unwind_arch.h"

#define relaxed memory_order_relaxed

/* The rules found, by address: a slot holds an address, tagged with the
 * code map's generation, and its rule packed in one word; it is written
 * address-last and read address-first and again last, so a reader never
 * takes one address's rule for another's, nor one from before objects
 * were loaded or unloaded. */
#define RULE_CACHE_SLOTS 8192
#define GENERATION_SHIFT 48

struct rule_slot {
	_Atomic uint64_t key;
	_Atomic uint64_t rule;
};

static _Atomic(struct rule_slot *) rule_cache;

static struct rule_slot *slot_of(struct rule_slot *cache, uint64_t key)
{
	return &cache[(key * 0x9e3779b97f4a7c15ull) >> 51];
}

_Static_assert(RULE_CACHE_SLOTS == 1 << 13, "the hash keeps 13 bits");

/* The packed rule cached for key, 0 when there is none. */
static inline uint64_t cached_rule(uint64_t key)
{
	struct rule_slot *cache = atomic_load_explicit(&rule_cache,
						       memory_order_acquire);
	struct rule_slot *s;
	uint64_t packed;

	if (!cache)
		return 0;
	s = slot_of(cache, key);
	if (atomic_load_explicit(&s->key, memory_order_acquire) != key)
		return 0;
	packed = atomic_load_explicit(&s->rule, memory_order_acquire);
	if (atomic_load_explicit(&s->key, relaxed) != key)
		return 0;
	return packed;
}

static void cache_rule(uint64_t key, const struct frame_rule *rule)
{
	struct rule_slot *cache = atomic_load_explicit(&rule_cache,
						       memory_order_acquire);
	struct rule_slot *s;

	if (!cache || rule->kind == FRAME_NOT_CODE || !rule_packable(rule))
		return;
	s = slot_of(cache, key);
	atomic_store_explicit(&s->key, 0, relaxed);
	atomic_store_explicit(&s->rule, pack_rule(rule), memory_order_release);
	atomic_store_explicit(&s->key, key, memory_order_release);
}

/* The code map may still hold an object unloaded since it was built;
 * where the C library can tell without a lock, the tables are read only
 * from an object that is loaded now, and from where it says they are. */
static int still_loaded(uintptr_t address, uintptr_t *eh_frame_hdr)
{
#ifdef HAVE__DL_FIND_OBJECT
	struct dl_find_object object;

	if (_dl_find_object((void *)address, &object) != 0)
		return 0;
	*eh_frame_hdr = (uintptr_t)object.dlfo_eh_frame;
#else
	(void)address;
	(void)eh_frame_hdr;
#endif
	return 1;
}

/* The rule for an address the cache does not hold: from the object's
 * tables, then cached.  Kept out of line, so that a cache hit, the
 * common case, saves no registers. */
static __attribute__((noinline)) struct frame_rule
look_up_rule(uintptr_t pc, int return_address, uint64_t key)
{
	uintptr_t at = return_address ? pc - 1 : pc;
	struct frame_rule rule = { .kind = FRAME_NOT_CODE };
	struct code_info code = code_map_lookup(at + 1);

	if (code.kind == NOT_CODE || !still_loaded(at, &code.eh_frame_hdr))
		return rule;
	if (return_address && is_signal_trampoline(pc))
		rule = (struct frame_rule){ .kind = FRAME_SIGNAL };
	else
		rule = cfi_find_rule(code.eh_frame_hdr, at);
	cache_rule(key, &rule);
	return rule;
}

/* The rule for the frame at pc (for a return address, of the call before
 * it), which also says whether pc is code at all. */
static inline struct frame_rule rule_for(uintptr_t pc, int return_address)
{
	uintptr_t at = return_address ? pc - 1 : pc;
	uint64_t key = at | (uint64_t)code_map_generation()
				    << GENERATION_SHIFT;
	uint64_t packed;

	if ((uint64_t)at >> GENERATION_SHIFT)
		return (struct frame_rule){ .kind = FRAME_NOT_CODE };
	packed = cached_rule(key);
	if (packed)
		return unpack_rule(packed);
	return look_up_rule(pc, return_address, key);
}

/* Where trampolines live: the C library's code and the vDSO's (which one
 * depends on the C library and the kernel); neither is ever unloaded, so their code can be read even
 * when a stray value points there. */
static uintptr_t libc_lo, libc_hi, vdso_lo, vdso_hi;

/* The sigreturn trampoline at pc, or NULL. */
static const struct sigreturn_trampoline *trampoline_at(uintptr_t pc)
{
	for (size_t i = 0; STACK_CAPTURE_SUPPORTED &&
			   i < sizeof(sigreturn_trampolines) /
				       sizeof(sigreturn_trampolines[0]);
	     i++) {
		const struct sigreturn_trampoline *t = &sigreturn_trampolines[i];
		uintptr_t last = pc + t->length - 1;

		if (!(pc >= libc_lo && last < libc_hi) &&
		    !(pc >= vdso_lo && last < vdso_hi))
			continue;
		/* Read only when it cannot cross into another page. */
		if ((last & ~(uintptr_t)4095) == (pc & ~(uintptr_t)4095) &&
		    !memcmp((const void *)pc, t->code, t->length))
			return t;
	}
	return NULL;
}

int is_signal_trampoline(uintptr_t pc)
{
	return trampoline_at(pc) != NULL;
}

static int on_stack(uintptr_t address, uintptr_t low, uintptr_t stack_top)
{
	return address >= low && address <= stack_top - sizeof(uintptr_t) &&
	       !(address & (sizeof(uintptr_t) - 1));
}

/* At a sigreturn trampoline the stack holds the signal frame: the
 * interrupted registers.  0 when they do not lie on this stack. */
static int leave_signal_frame(struct frame_regs *regs, uintptr_t stack_top)
{
	const struct sigreturn_trampoline *t = trampoline_at(regs->pc);
	uintptr_t mc = regs->sp + (t ? t->mcontext_offset : 0);

	if (!t || !on_stack(mc, regs->sp, stack_top) ||
	    mc + sizeof(mcontext_t) > stack_top)
		return 0;
	*regs = signal_regs((const mcontext_t *)mc);
	return 1;
}

/* From a frame to its caller's by the frame's rule; 0 where the stack
 * does not hold what the rule says. */
static int unwind_one(struct frame_regs *regs, const struct frame_rule *rule,
		      uintptr_t stack_top)
{
	uintptr_t cfa = (rule->cfa_on_fp ? regs->fp : regs->sp) +
			(intptr_t)rule->cfa_offset;
	uintptr_t ra_at, fp_at;

	if (rule->cfa_deref) {
		if (!on_stack(cfa, regs->sp, stack_top))
			return 0;
		cfa = *(const uintptr_t *)cfa;
	}
	ra_at = cfa + (intptr_t)rule->ra_offset;
	fp_at = (rule->fp_near_fp ? regs->fp : cfa) + (intptr_t)rule->fp_offset;
	if (cfa <= regs->sp || cfa > stack_top ||
	    !on_stack(ra_at, regs->sp, stack_top) ||
	    (rule->fp_saved && !on_stack(fp_at, regs->sp, stack_top)))
		return 0;
	regs->pc = *(const uintptr_t *)ra_at & RETURN_ADDRESS_MASK;
	if (rule->fp_saved)
		regs->fp = *(const uintptr_t *)fp_at;
	regs->sp = cfa;
	return 1;
}

int unwind_tables_init(uintptr_t libc_text_lo, uintptr_t libc_text_hi)
{
	struct rule_slot *cache;
	uintptr_t vdso;

	if (!STACK_CAPTURE_SUPPORTED)
		return 0;
	libc_lo = libc_text_lo;
	libc_hi = libc_text_hi;
	vdso = getauxval(AT_SYSINFO_EHDR);
	if (vdso)
		code_range_of((const void *)vdso, &vdso_lo, &vdso_hi);
	cache = rawmem_map(RULE_CACHE_SLOTS * sizeof(*cache));
	atomic_store_explicit(&rule_cache, cache, memory_order_release);
	return 1;
}

/* The walk starts at an instruction of unwind_tables_capture() (see
 * CURRENT_REGS), whose unwind table entry gives its caller. */
__attribute__((noinline)) uint32_t
unwind_tables_capture(const struct frame_regs *start, uint64_t *frames,
		      uint32_t max, uintptr_t stack_top, int *truncated)
{
	struct frame_regs regs;
	struct frame_rule rule;
	uint32_t depth = 0;

	if (start) {
		regs = *start;
		rule = rule_for(regs.pc, 1);
	} else {
		CURRENT_REGS(regs);
		rule = rule_for(regs.pc, 0);
	}
	*truncated = 0;
	while (STACK_CAPTURE_SUPPORTED && rule.kind != FRAME_NOT_CODE) {
		if (depth == max) {
			*truncated = 1;
			break;
		}
		frames[depth++] = regs.pc;
		if (rule.kind == FRAME_SIGNAL) {
			if (!leave_signal_frame(&regs, stack_top))
				break;
			rule = rule_for(regs.pc, 0); /* interrupted, not called */
			continue;
		}
		if (rule.kind != FRAME_STEP ||
		    !unwind_one(&regs, &rule, stack_top))
			break;
		rule = rule_for(regs.pc, 1);
	}
	return depth;
}
