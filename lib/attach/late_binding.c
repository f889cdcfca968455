/* late_binding.c - rewrite other objects' allocator slots to the runtime's
 * (see late_binding.h). */
#include "config.h"

#include "late_binding.h"
#include "late_dlopen.h"
#include "loaded_objects.h"
#include "real_alloc.h"

#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Per architecture: the relocations that set a word to a function's
 * address (a PLT slot, a GOT entry, a data word), and whether their
 * tables carry addends (RELA) or leave them in the word itself (REL). */
#if defined(__x86_64__)
#define SLOT_RELOCATION(type) \
	((type) == R_X86_64_JUMP_SLOT || (type) == R_X86_64_GLOB_DAT || \
	 (type) == R_X86_64_64)
#define DATA_WORD_RELOCATION(type) ((type) == R_X86_64_64)
#define RELOCATIONS_HAVE_ADDENDS 1
#elif defined(__aarch64__)
#define SLOT_RELOCATION(type) \
	((type) == R_AARCH64_JUMP_SLOT || (type) == R_AARCH64_GLOB_DAT || \
	 (type) == R_AARCH64_ABS64)
#define DATA_WORD_RELOCATION(type) ((type) == R_AARCH64_ABS64)
#define RELOCATIONS_HAVE_ADDENDS 1
#elif defined(__i386__)
#define SLOT_RELOCATION(type) \
	((type) == R_386_JMP_SLOT || (type) == R_386_GLOB_DAT || \
	 (type) == R_386_32)
#define DATA_WORD_RELOCATION(type) ((type) == R_386_32)
#define RELOCATIONS_HAVE_ADDENDS 0
#endif

/* This copy of the runtime: its file, its handle, its load address. */
static struct {
	void *handle;
	void *base;
	const char *file;
} self;

static int applied;
static char refusal[PATH_MAX + 128];

/* The file and load address only: no allocation, which would change the
 * heap a preloaded program starts with. */
static int find_self(void)
{
	Dl_info info;

	if (self.file)
		return 0;
	if (!dladdr((void *)find_self, &info) || !info.dli_fname)
		return -1;
	self.base = info.dli_fbase;
	self.file = info.dli_fname;
	return 0;
}

/* The handle, for dlsym() on our own symbols. */
static int open_self(void)
{
	if (!self.handle && find_self() == 0)
		self.handle = dlopen(self.file, RTLD_NOW | RTLD_NOLOAD);
	return self.handle ? 0 : -1;
}

/* The runtime's functions that slots are rewritten to, by name, besides
 * the dlopen() of a program bound late (late_dlopen.h), which is not
 * exported: found with dlsym() while the load rewrites the slots, kept
 * for the objects loaded later, whose slots are rewritten while another
 * thread may be loading one more: dlsym() would then wait for the
 * loader's lock, which that thread holds while it waits for
 * dl_iterate_phdr()'s, which the rewrite holds. */
#define OWN_FUNCTIONS_KEPT 64
#define OWN_NAME_MAX 32

static struct {
	char name[OWN_NAME_MAX];
	void *function;
} own[OWN_FUNCTIONS_KEPT] = { { "dlopen", (void *)late_dlopen } };
static size_t own_count = 1;
static int looking_up; /* while the load rewrites the slots */

static void *own_function_found(const char *name)
{
	void *found = dlsym(self.handle, name);
	Dl_info info;

	if (!found)
		dlerror(); /* forget the failure */
	if (!found || !dladdr(found, &info) || info.dli_fbase != self.base)
		return NULL;
	if (own_count < OWN_FUNCTIONS_KEPT && strlen(name) < OWN_NAME_MAX) {
		strcpy(own[own_count].name, name);
		own[own_count++].function = found;
	}
	return found;
}

/* The runtime's own function of that name, or NULL when it has none. */
static void *own_function(const char *name)
{
	for (size_t i = 0; i < own_count; i++)
		if (!strcmp(own[i].name, name))
			return own[i].function;
	return looking_up ? own_function_found(name) : NULL;
}

/* Which of the two files the walk reaches first: objects come in
 * the order symbol lookup searches them, preloaded ones and the program's
 * libraries first, those loaded later by dlopen() at the end. */
struct first_of {
	const char *ours, *c_library;
	const char *first;
};

static int find_first(const struct dl_phdr_info *info, void *data)
{
	struct first_of *f = data;

	if (!strcmp(info->dlpi_name, f->ours))
		f->first = f->ours;
	else if (!strcmp(info->dlpi_name, f->c_library))
		f->first = f->c_library;
	return f->first != NULL;
}

/* Not a comparison of malloc's address with dlsym(RTLD_DEFAULT): in an
 * executable built without -fPIE that takes malloc's address, that is the
 * executable's own PLT entry, whoever it leads to. */
int late_binding_needed(void)
{
	struct first_of f = { .first = NULL };
	void *c_malloc = dlsym(RTLD_NEXT, "malloc");
	Dl_info info;

	if (find_self() < 0 || !c_malloc || !dladdr(c_malloc, &info) ||
	    !info.dli_fname)
		return 0;
	f.ours = self.file;
	f.c_library = info.dli_fname;
	loaded_objects_each(find_first, &f);
	return f.first == f.c_library;
}

#ifdef SLOT_RELOCATION

#if __ELF_NATIVE_CLASS == 64
#define RELOCATION_SYMBOL ELF64_R_SYM
#define RELOCATION_TYPE ELF64_R_TYPE
#else
#define RELOCATION_SYMBOL ELF32_R_SYM
#define RELOCATION_TYPE ELF32_R_TYPE
#endif

#if RELOCATIONS_HAVE_ADDENDS
typedef ElfW(Rela) relocation;
#define DT_DATA_RELOCATIONS DT_RELA
#define DT_DATA_RELOCATIONS_SIZE DT_RELASZ
#else
typedef ElfW(Rel) relocation;
#define DT_DATA_RELOCATIONS DT_REL
#define DT_DATA_RELOCATIONS_SIZE DT_RELSZ
#endif

struct object {
	uintptr_t base;
	uintptr_t start, end; /* what it maps */
	const ElfW(Sym) *symbols;
	const char *strings;
	const relocation *plt, *data; /* DT_JMPREL and DT_REL(A) */
	size_t plt_bytes, data_bytes;
	uintptr_t relro_start, relro_end; /* read-only after relocation */
};

/* A relocated slot that names one of the runtime's functions. */
struct slot {
	void **address;
	const char *name;
	void *function; /* the runtime's of that name */
	int called;     /* a PLT slot: holds a definition once bound */
	/* A word of the object's data that the loader set to the function,
	 * such as a hook variable (void *(*alloc)(size_t) = malloc;), which
	 * the program may have set to another function since: libmpdec's,
	 * which Python's decimal sets to PyMem_Malloc. */
	int data_word;
};

static void store_slot(const struct object *o, void **slot, void *function)
{
	uintptr_t page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t page = (uintptr_t)slot & ~(page_size - 1);
	int relro = (uintptr_t)slot >= o->relro_start &&
		    (uintptr_t)slot < o->relro_end;

	if (*slot == function)
		return;
	if (relro && mprotect((void *)page, page_size,
			      PROT_READ | PROT_WRITE) < 0)
		return;
	__atomic_store_n(slot, function, __ATOMIC_RELEASE);
	if (relro)
		mprotect((void *)page, page_size, PROT_READ);
}

/* What to do with each slot that names one of the runtime's functions. */
typedef void slot_visitor(const struct object *o, const struct slot *s,
			  void *data);

/* Whether a relocated word holds a function itself, not an address past
 * its start: an addend is in the table (RELA), or was in the word before
 * relocation (REL), where only the word's value can tell: the start of a
 * function.  (Which function is the visitor's concern: the program may
 * have set a data word to one of its own.) */
static int no_addend(const relocation *r, const struct slot *s)
{
#if RELOCATIONS_HAVE_ADDENDS
	(void)s;
	return r->r_addend == 0;
#else
	void *value = __atomic_load_n(s->address, __ATOMIC_ACQUIRE);
	Dl_info info;

	(void)r;
	return !s->data_word || (dladdr(value, &info) && info.dli_saddr == value);
#endif
}

static void visit_table(const struct object *o, const relocation *table,
			size_t bytes, slot_visitor *visit, void *data)
{
	for (size_t i = 0; i < bytes / sizeof(*table); i++) {
		const relocation *r = &table[i];
		size_t symbol = RELOCATION_SYMBOL(r->r_info);
		struct slot s = { .called = table == o->plt };

		if (!symbol || !SLOT_RELOCATION(RELOCATION_TYPE(r->r_info)))
			continue;
		s.name = o->strings + o->symbols[symbol].st_name;
		s.function = own_function(s.name);
		s.data_word = DATA_WORD_RELOCATION(RELOCATION_TYPE(r->r_info));
		s.address = (void **)(o->base + r->r_offset);
		if (s.function && no_addend(r, &s))
			visit(o, &s, data);
	}
}

static void visit_slots(const struct object *o, slot_visitor *visit,
			void *data)
{
	if (o->plt)
		visit_table(o, o->plt, o->plt_bytes, visit, data);
	if (o->data)
		visit_table(o, o->data, o->data_bytes, visit, data);
}

static void find_segments(const struct dl_phdr_info *info, struct object *o)
{
	uintptr_t page_size = (uintptr_t)sysconf(_SC_PAGESIZE);

	o->start = UINTPTR_MAX;
	for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t start = o->base + p->p_vaddr;

		if (p->p_type == PT_LOAD && start < o->start)
			o->start = start;
		if (p->p_type == PT_LOAD && start + p->p_memsz > o->end)
			o->end = start + p->p_memsz;
		if (p->p_type != PT_GNU_RELRO)
			continue;
		o->relro_start = start & ~(page_size - 1);
		o->relro_end = start + p->p_memsz;
	}
}

/* The object's tables: 0, or -1 when it has none to rewrite (or is the
 * runtime itself). */
static int read_object(const struct dl_phdr_info *info, struct object *o)
{
	const ElfW(Dyn) *d = object_dynamic_section(info);

	memset(o, 0, sizeof(*o));
	o->base = info->dlpi_addr;
	if (!d || !strcmp(info->dlpi_name, self.file))
		return -1;
	for (; d->d_tag != DT_NULL; d++) {
		uintptr_t at = object_dynamic_address(d->d_un.d_ptr, o->base);

		switch (d->d_tag) {
		case DT_SYMTAB: o->symbols = (const ElfW(Sym) *)at; break;
		case DT_STRTAB: o->strings = (const char *)at; break;
		case DT_JMPREL: o->plt = (const relocation *)at; break;
		case DT_PLTRELSZ: o->plt_bytes = d->d_un.d_val; break;
		case DT_DATA_RELOCATIONS: o->data = (const relocation *)at; break;
		case DT_DATA_RELOCATIONS_SIZE:
			o->data_bytes = d->d_un.d_val;
			break;
		}
	}
	if (!o->symbols || !o->strings)
		return -1;
	find_segments(info, o);
	return 0;
}

struct slot_walk {
	slot_visitor *visit;
	void *data;
};

static int visit_object(const struct dl_phdr_info *info, void *data)
{
	const struct slot_walk *walk = data;
	struct object o;

	if (read_object(info, &o) == 0)
		visit_slots(&o, walk->visit, walk->data);
	return 0;
}

/* Every slot of every object but the runtime that names one of its
 * functions. */
static void each_slot(slot_visitor *visit, void *data)
{
	struct slot_walk walk = { visit, data };

	loaded_objects_each(visit_object, &walk);
}

/* The allocators the slots of the malloc family lead to: each object
 * whose exported function a slot holds.  A slot that holds no function's
 * start says nothing, such as an executable's PLT entry that another
 * object's slot is bound to (it leads on through the executable's own
 * slot, whose target counts). */
#define ALLOCATORS_KEPT 2

struct allocators {
	Dl_info found[ALLOCATORS_KEPT];
	size_t count;
};

static void note_allocator(const struct object *o, const struct slot *s,
			   void *data)
{
	struct allocators *a = data;
	void *target = __atomic_load_n(s->address, __ATOMIC_ACQUIRE);
	const ElfW(Sym) *symbol = NULL;
	Dl_info info;

	(void)o;
	/* dladdr() also matches an executable's PLT entry (an undefined
	 * symbol with a value): only a definition names an allocator. */
	if (!real_alloc_is_allocator_function(s->name) || s->data_word ||
	    target == s->function ||
	    !dladdr1(target, &info, (void **)&symbol, RTLD_DL_SYMENT) ||
	    info.dli_saddr != target || !symbol ||
	    symbol->st_shndx == SHN_UNDEF)
		return;
	for (size_t i = 0; i < a->count && i < ALLOCATORS_KEPT; i++)
		if (a->found[i].dli_fbase == info.dli_fbase)
			return;
	if (a->count < ALLOCATORS_KEPT)
		a->found[a->count] = info;
	a->count++;
}

/* `real` becomes the allocator that the program's slots lead to when it
 * is not the C library's, so that every block, allocated before the load
 * or after, goes back to the allocator it came from.  0, or -1 with
 * late_binding_refusal() set. */
static int follow_the_allocator(void)
{
	struct allocators a = { .count = 0 };
	Dl_info c_library;
	const char *missing;
	void *handle;

	each_slot(note_allocator, &a);
	if (a.count > 1) {
		snprintf(refusal, sizeof(refusal), "the program allocates with "
			 "%s and with %s%s", a.found[0].dli_fname,
			 a.found[1].dli_fname, a.count > 2 ? " and more" : "");
		return -1;
	}
	if (a.count == 0 || !dladdr((void *)real.malloc, &c_library) ||
	    c_library.dli_fbase == a.found[0].dli_fbase)
		return 0;
	/* NULL for the executable, whose name dlopen() does not know. */
	handle = dlopen(a.found[0].dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (!handle)
		handle = dlopen(NULL, RTLD_LAZY);
	missing = handle ? real_alloc_take_from(handle, a.found[0].dli_fbase)
			 : "its functions";
	if (missing)
		snprintf(refusal, sizeof(refusal), "the program allocates with "
			 "%s, which has no %s", a.found[0].dli_fname, missing);
	return missing ? -1 : 0;
}

/* A data word of the malloc family that the program set to a function of
 * its own keeps it: blocks that function allocated must reach its free. */
static void rewrite_slot(const struct object *o, const struct slot *s,
			 void *data)
{
	if (s->data_word && real_alloc_is_allocator_function(s->name) &&
	    __atomic_load_n(s->address, __ATOMIC_ACQUIRE) !=
		    real_alloc_function(s->name))
		return;
	store_slot(o, s->address, s->function);
	++*(int *)data;
}

/* A PLT slot of the malloc family bound to neither the runtime nor the
 * allocator `real` holds (nor, not bound yet, to the object's own PLT):
 * the object was bound to another allocator. */
static void note_other_allocator(const struct object *o,
				 const struct slot *s, void *data)
{
	uintptr_t target = (uintptr_t)__atomic_load_n(s->address,
						      __ATOMIC_ACQUIRE);

	if (s->called && real_alloc_is_allocator_function(s->name) &&
	    target != (uintptr_t)s->function &&
	    target != (uintptr_t)real_alloc_function(s->name) &&
	    (target < o->start || target >= o->end))
		*(int *)data = 1;
}

static int rewrite_if_same_allocator(const struct dl_phdr_info *info,
				     void *data)
{
	struct object o;
	int other = 0;

	if (read_object(info, &o) < 0)
		return 0;
	visit_slots(&o, note_other_allocator, &other);
	if (!other)
		visit_slots(&o, rewrite_slot, data);
	return 0;
}

int late_binding_refresh(void)
{
	int rewritten = 0;

	if (applied)
		loaded_objects_each(rewrite_if_same_allocator, &rewritten);
	return rewritten;
}

/* A slot of the malloc family bound to the C library's function, past
 * a preloaded runtime: only a library opened with RTLD_DEEPBIND has one. */
static void rebind_past_us(const struct object *o, const struct slot *s,
			   void *data)
{
	if (!real_alloc_is_allocator_function(s->name) ||
	    __atomic_load_n(s->address, __ATOMIC_ACQUIRE) !=
		    real_alloc_function(s->name))
		return;
	store_slot(o, s->address, s->function);
	++*(int *)data;
}

int late_binding_rebind_deep(void)
{
	int rewritten = 0;

	if (open_self() < 0)
		return -1;
	looking_up = 1;
	each_slot(rebind_past_us, &rewritten);
	looking_up = 0;
	return rewritten;
}

int late_binding_apply(void)
{
	int rewritten = 0;

	if (open_self() < 0) {
		const char *error = dlerror();

		snprintf(refusal, sizeof(refusal), "it cannot find itself: %s",
			 error ? error : "no file");
		return -1;
	}
	looking_up = 1;
	if (follow_the_allocator() < 0) {
		looking_up = 0;
		return -1;
	}
	each_slot(rewrite_slot, &rewritten);
	looking_up = 0;
	applied = 1;
	return rewritten;
}

#else

int late_binding_apply(void)
{
	snprintf(refusal, sizeof(refusal), "on an architecture whose "
		 "allocator calls it cannot redirect");
	return -1;
}

int late_binding_refresh(void)
{
	return 0;
}

int late_binding_rebind_deep(void)
{
	return -1;
}

#endif

int late_binding_applied(void)
{
	return applied;
}

const char *late_binding_refusal(void)
{
	return refusal;
}
