/* cfi.c - call frame information from .eh_frame (see cfi.h). */
#include "config.h"

#include "cfi.h"

#include <string.h>

#include "eh_frame_hdr.h"
#include "unwind_arch.h"

enum {
	PE_ABSPTR = 0x00,
	PE_UDATA2 = 0x02,
	PE_UDATA4 = 0x03,
	PE_UDATA8 = 0x04,
	PE_SDATA2 = 0x0a,
	PE_SDATA4 = 0x0b,
	PE_SDATA8 = 0x0c,
	PE_PCREL = 0x10,
};

struct reader {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t fixed(struct reader *r, unsigned size)
{
	uint64_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < size) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p, size); /* little-endian targets only */
	r->p += size;
	return v;
}

/* A LEB128 number's bits, how many there are, and its last byte. */
static uint64_t leb128(struct reader *r, unsigned *bits, uint8_t *last)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t byte;

	do {
		byte = (uint8_t)fixed(r, 1);
		if (shift < 64)
			v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while ((byte & 0x80) && !r->bad);
	*bits = shift;
	*last = byte;
	return v;
}

static uint64_t uleb(struct reader *r)
{
	unsigned bits;
	uint8_t last;

	return leb128(r, &bits, &last);
}

static int64_t sleb(struct reader *r)
{
	unsigned bits;
	uint8_t last;
	uint64_t v = leb128(r, &bits, &last);

	if (bits < 64 && (last & 0x40))
		v |= ~(uint64_t)0 << bits;
	return (int64_t)v;
}

/* A pointer in the encodings compilers use in .eh_frame. */
static uintptr_t encoded(struct reader *r, uint8_t enc)
{
	uintptr_t base = (enc & 0x70) == PE_PCREL ? (uintptr_t)r->p : 0;
	uint64_t v;

	if ((enc & 0x70) != 0 && (enc & 0x70) != PE_PCREL)
		r->bad = 1;
	switch (enc & 0x0f) {
	case PE_ABSPTR:
		v = fixed(r, sizeof(uintptr_t));
		break;
	case PE_UDATA8:
	case PE_SDATA8:
		v = fixed(r, 8);
		break;
	case PE_UDATA4:
		v = fixed(r, 4);
		break;
	case PE_SDATA4:
		v = (uint64_t)(int64_t)(int32_t)fixed(r, 4);
		break;
	case PE_UDATA2:
		v = fixed(r, 2);
		break;
	case PE_SDATA2:
		v = (uint64_t)(int64_t)(int16_t)fixed(r, 2);
		break;
	default:
		r->bad = 1;
		return 0;
	}
	return base + (uintptr_t)v;
}

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	uint8_t fde_encoding;
	int augmented; /* 'z': FDEs carry augmentation data too */
	struct reader insns;
};

/* Skips the augmentation data of a CIE, keeping what FDEs need. */
static void read_augmentation(struct reader *r, const char *aug,
			      struct cie *c)
{
	struct reader data;
	uint64_t len;

	if (aug[0] != 'z') {
		r->bad = aug[0] != '\0';
		return;
	}
	c->augmented = 1;
	len = uleb(r);
	if (r->bad || len > (uint64_t)(r->end - r->p)) {
		r->bad = 1;
		return;
	}
	data = (struct reader){ r->p, r->p + len, 0 };
	r->p += len;
	for (const char *a = aug + 1; *a && !data.bad; a++) {
		if (*a == 'R')
			c->fde_encoding = (uint8_t)fixed(&data, 1);
		else if (*a == 'L')
			fixed(&data, 1);
		else if (*a == 'P')
			encoded(&data, (uint8_t)(fixed(&data, 1) & 0x7f));
		else if (*a != 'S' && *a != 'B')
			break; /* the rest is still skipped by its length */
	}
	r->bad = data.bad;
}

static int read_cie(const uint8_t *at, struct cie *c)
{
	uint32_t length;
	struct reader r;
	const char *aug;
	uint8_t version;

	memcpy(&length, at, sizeof(length));
	if (length == 0 || length == 0xffffffffu)
		return 0;
	r = (struct reader){ at + 4, at + 4 + length, 0 };
	if (fixed(&r, 4) != 0)
		return 0; /* not a CIE */
	version = (uint8_t)fixed(&r, 1);
	if (version != 1 && version != 3)
		return 0;
	aug = (const char *)r.p;
	r.p += strnlen(aug, (size_t)(r.end - r.p)) + 1;
	*c = (struct cie){ .fde_encoding = PE_ABSPTR };
	c->code_align = uleb(&r);
	c->data_align = sleb(&r);
	c->ra_reg = version == 1 ? fixed(&r, 1) : uleb(&r);
	read_augmentation(&r, aug, c);
	c->insns = r;
	return !r.bad && c->ra_reg == DWARF_RA;
}

/* The FDE covering pc, through the header's binary search table. */
static const uint8_t *find_fde(uintptr_t eh_frame_hdr, uintptr_t pc)
{
	const uint8_t *hdr = (const uint8_t *)eh_frame_hdr;
	uint32_t count = eh_frame_hdr_count(hdr), lo = 0, hi = count;
	struct eh_frame_hdr_entry entry;

	if (count == 0)
		return NULL;
	while (hi - lo > 1) { /* the last entry starting at or before pc */
		uint32_t mid = lo + (hi - lo) / 2;

		if (eh_frame_hdr_entry(hdr, mid).function <= pc)
			lo = mid;
		else
			hi = mid;
	}
	entry = eh_frame_hdr_entry(hdr, lo);
	if (entry.function > pc)
		return NULL;
	return (const uint8_t *)entry.fde;
}

/* What the instructions say of the three things a walk needs. */
enum rule { SAME, SAVED, SAVED_NEAR_FP, UNDEFINED, OTHER };

struct state {
	int cfa_reg, cfa_known, cfa_deref;
	int64_t cfa_offset;
	enum rule ra, fp;
	int64_t ra_offset, fp_offset;
};

#define STATE_STACK 8

struct machine {
	const struct cie *cie;
	struct state now, initial, saved[STATE_STACK];
	int depth;
	uintptr_t loc, target;
};

static void set_rule(struct machine *m, uint64_t reg, enum rule rule,
		     int64_t offset)
{
	if (reg == DWARF_RA) {
		m->now.ra = rule;
		m->now.ra_offset = offset;
	} else if (reg == DWARF_FP) {
		m->now.fp = rule;
		m->now.fp_offset = offset;
	}
}

static void restore_rule(struct machine *m, uint64_t reg)
{
	if (reg == DWARF_RA) {
		m->now.ra = m->initial.ra;
		m->now.ra_offset = m->initial.ra_offset;
	} else if (reg == DWARF_FP) {
		m->now.fp = m->initial.fp;
		m->now.fp_offset = m->initial.fp_offset;
	}
}

static void def_cfa(struct machine *m, uint64_t reg, int64_t offset)
{
	m->now.cfa_reg = (int)reg;
	m->now.cfa_offset = offset;
	m->now.cfa_known = reg == DWARF_SP || reg == DWARF_FP;
	m->now.cfa_deref = 0;
}

/* The one expression compilers give for a frame: the frame pointer plus
 * an offset (DW_OP_bregN), followed by a load (DW_OP_deref) when
 * `deref`.  Skips the block; 1 when it is that, with *offset set. */
static int frame_pointer_expression(struct reader *r, int deref,
				    int64_t *offset)
{
	uint64_t len = uleb(r);
	struct reader e = { r->p, r->p + len, 0 };
	int ok;

	if (r->bad || len > (uint64_t)(r->end - r->p)) {
		r->bad = 1;
		return 0;
	}
	r->p += len;
	ok = DWARF_FP >= 0 && fixed(&e, 1) == 0x70u + (unsigned)DWARF_FP;
	*offset = sleb(&e);
	if (deref)
		ok = ok && fixed(&e, 1) == 0x06;
	return ok && !e.bad && e.p == e.end;
}

/* i386 functions that realign the stack (main, at least) find their
 * CFA saved in their frame: CFA = *(frame pointer + offset). */
static void def_cfa_expression(struct machine *m, struct reader *r)
{
	int64_t offset;

	m->now.cfa_known = frame_pointer_expression(r, 1, &offset);
	m->now.cfa_deref = 1;
	m->now.cfa_reg = DWARF_FP;
	m->now.cfa_offset = offset;
}

/* ... and the caller's frame pointer at the frame pointer plus an
 * offset, not at the CFA. */
static void register_expression(struct machine *m, uint64_t reg,
				struct reader *r)
{
	int64_t offset;

	if (frame_pointer_expression(r, 0, &offset))
		set_rule(m, reg, SAVED_NEAR_FP, offset);
	else
		set_rule(m, reg, OTHER, 0);
}

/* 0 when pc is passed (stop), 1 to go on. */
static int advance(struct machine *m, uint64_t delta)
{
	m->loc += delta * m->cie->code_align;
	return m->loc <= m->target;
}

static void skip_block(struct reader *r)
{
	uint64_t len = uleb(r);

	if (len > (uint64_t)(r->end - r->p))
		r->bad = 1;
	else
		r->p += len;
}

/* One instruction with an operand in its low six bits; 0 to stop. */
static int step_packed(struct machine *m, struct reader *r, uint8_t op)
{
	uint8_t low = op & 0x3f;

	switch (op >> 6) {
	case 1:
		return advance(m, low);
	case 2:
		set_rule(m, low, SAVED,
			 (int64_t)uleb(r) * m->cie->data_align);
		return 1;
	default:
		restore_rule(m, low);
		return 1;
	}
}

/* One instruction; 0 to stop (pc passed, or not understood). */
static int step(struct machine *m, struct reader *r)
{
	uint8_t op = (uint8_t)fixed(r, 1);
	uint64_t reg;

	if (op >> 6)
		return step_packed(m, r, op);
	switch (op) {
	case 0x00: /* nop */
	case 0x2d: /* AArch64: return address signing toggled */
		return 1;
	case 0x01: /* set_loc */
		m->loc = encoded(r, m->cie->fde_encoding);
		return m->loc <= m->target;
	case 0x02:
		return advance(m, fixed(r, 1));
	case 0x03:
		return advance(m, fixed(r, 2));
	case 0x04:
		return advance(m, fixed(r, 4));
	case 0x05: /* offset_extended */
		reg = uleb(r);
		set_rule(m, reg, SAVED, (int64_t)uleb(r) * m->cie->data_align);
		return 1;
	case 0x06: /* restore_extended */
		restore_rule(m, uleb(r));
		return 1;
	case 0x07: /* undefined */
		set_rule(m, uleb(r), UNDEFINED, 0);
		return 1;
	case 0x08: /* same_value */
		set_rule(m, uleb(r), SAME, 0);
		return 1;
	case 0x09: /* register */
		set_rule(m, uleb(r), OTHER, 0);
		uleb(r);
		return 1;
	case 0x0a: /* remember_state */
		if (m->depth == STATE_STACK)
			return 0;
		m->saved[m->depth++] = m->now;
		return 1;
	case 0x0b: /* restore_state */
		if (m->depth == 0)
			return 0;
		m->now = m->saved[--m->depth];
		return 1;
	case 0x0c: /* def_cfa */
		reg = uleb(r);
		def_cfa(m, reg, (int64_t)uleb(r));
		return 1;
	case 0x0d: /* def_cfa_register */
		def_cfa(m, uleb(r), m->now.cfa_offset);
		return 1;
	case 0x0e: /* def_cfa_offset */
		m->now.cfa_offset = (int64_t)uleb(r);
		return 1;
	case 0x0f: /* def_cfa_expression */
		def_cfa_expression(m, r);
		return 1;
	case 0x10: /* expression */
		reg = uleb(r);
		register_expression(m, reg, r);
		return 1;
	case 0x16: /* val_expression */
		set_rule(m, uleb(r), OTHER, 0);
		skip_block(r);
		return 1;
	case 0x11: /* offset_extended_sf */
		reg = uleb(r);
		set_rule(m, reg, SAVED, sleb(r) * m->cie->data_align);
		return 1;
	case 0x12: /* def_cfa_sf */
		reg = uleb(r);
		def_cfa(m, reg, sleb(r) * m->cie->data_align);
		return 1;
	case 0x13: /* def_cfa_offset_sf */
		m->now.cfa_offset = sleb(r) * m->cie->data_align;
		return 1;
	case 0x14: /* val_offset */
		set_rule(m, uleb(r), OTHER, 0);
		uleb(r);
		return 1;
	case 0x15: /* val_offset_sf */
		set_rule(m, uleb(r), OTHER, 0);
		sleb(r);
		return 1;
	case 0x2e: /* GNU_args_size */
		uleb(r);
		return 1;
	case 0x2f: /* GNU_negative_offset_extended */
		reg = uleb(r);
		set_rule(m, reg, SAVED, -(int64_t)uleb(r) * m->cie->data_align);
		return 1;
	default:
		r->bad = 1;
		return 0;
	}
}

static void run(struct machine *m, struct reader r)
{
	while (r.p < r.end && !r.bad && step(m, &r))
		;
	if (r.bad)
		m->now.cfa_known = 0;
}

static int fits(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static struct frame_rule rule_of(const struct state *s)
{
	struct frame_rule rule = { .kind = FRAME_UNKNOWN };

	if (s->ra == UNDEFINED) {
		rule.kind = FRAME_OUTERMOST;
		return rule;
	}
	if (!s->cfa_known || s->ra != SAVED ||
	    (s->fp != SAVED && s->fp != SAVED_NEAR_FP && s->fp != SAME) ||
	    !fits(s->cfa_offset) ||
	    !fits(s->ra_offset) || !fits(s->fp_offset))
		return rule;
	rule = (struct frame_rule){
		.kind = FRAME_STEP,
		.cfa_on_fp = s->cfa_reg == DWARF_FP,
		.cfa_deref = s->cfa_deref,
		.cfa_offset = (int32_t)s->cfa_offset,
		.ra_offset = (int32_t)s->ra_offset,
		.fp_saved = s->fp == SAVED || s->fp == SAVED_NEAR_FP,
		.fp_near_fp = s->fp == SAVED_NEAR_FP,
		.fp_offset = (int32_t)s->fp_offset,
	};
	return rule;
}

struct frame_rule cfi_find_rule(uintptr_t eh_frame_hdr, uintptr_t pc)
{
	const struct frame_rule unknown = { .kind = FRAME_UNKNOWN };
	const uint8_t *fde = find_fde(eh_frame_hdr, pc);
	struct machine m = { .target = pc };
	uint32_t length, cie_offset;
	struct reader r;
	struct cie cie;
	uintptr_t start, range;

	if (!fde || DWARF_RA < 0)
		return unknown;
	memcpy(&length, fde, sizeof(length));
	memcpy(&cie_offset, fde + 4, sizeof(cie_offset));
	if (length == 0 || length == 0xffffffffu || cie_offset == 0 ||
	    !read_cie(fde + 4 - cie_offset, &cie))
		return unknown;
	r = (struct reader){ fde + 8, fde + 4 + length, 0 };
	start = encoded(&r, cie.fde_encoding);
	range = encoded(&r, cie.fde_encoding & 0x0f);
	if (cie.augmented)
		skip_block(&r);
	if (r.bad || pc < start || pc - start >= range)
		return unknown;
	m.cie = &cie;
	m.loc = start;
	m.now.fp = SAME;
	run(&m, cie.insns);
	m.initial = m.now;
	run(&m, r);
	return rule_of(&m.now);
}
