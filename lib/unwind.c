/* unwind.c - frame-pointer stack walking (see unwind.h). */
#include "config.h"

#include "unwind.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "code_map.h"
#include "sampler.h"

#if defined(__x86_64__) || defined(__aarch64__)
#define USER_ADDRESS_MAX 0x0000FFFFFFFFFFFFull
#else
#define USER_ADDRESS_MAX UINTPTR_MAX
#endif

extern void *__libc_stack_end; /* glibc: the main thread's initial sp */

static uintptr_t runtime_text_lo, runtime_text_hi;

struct code_range {
	uintptr_t address, lo, hi;
};

static int find_code_range(struct dl_phdr_info *info, size_t size,
			   void *data)
{
	struct code_range *r = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    r->address >= lo && r->address < lo + ph->p_memsz) {
			r->lo = lo;
			r->hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

int code_range_of(const void *code, uintptr_t *lo, uintptr_t *hi)
{
	struct code_range r = { .address = (uintptr_t)code };

	if (!dl_iterate_phdr(find_code_range, &r))
		return -1;
	*lo = r.lo;
	*hi = r.hi;
	return 0;
}

void unwind_init(void)
{
	code_range_of((const void *)(uintptr_t)&unwind_init, &runtime_text_lo,
		      &runtime_text_hi);
}

static uintptr_t thread_stack_top(void)
{
	pthread_attr_t attr;
	void *base;
	size_t size;
	uintptr_t top = 0;

	if (getpid() == (pid_t)syscall(SYS_gettid))
		return (uintptr_t)__libc_stack_end;
	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return 0;
	if (pthread_attr_getstack(&attr, &base, &size) == 0)
		top = (uintptr_t)base + size;
	pthread_attr_destroy(&attr);
	return top;
}

static int own_code(uintptr_t pc)
{
	return pc >= runtime_text_lo && pc < runtime_text_hi;
}

/* A caller built without frame pointers leaves the register holding
 * anything, so a "frame" may hold any value where the return address
 * should be: only an address in known code is one.  Values no code can
 * have (beyond user space, or on the stack) are told apart without a
 * lookup. */
static int return_address(uintptr_t pc, uintptr_t fp, uintptr_t stack_top)
{
	if (pc < 0x1000 || pc > USER_ADDRESS_MAX ||
	    (pc >= fp && pc < stack_top))
		return 0;
	return code_map_holds_return(pc);
}

uint32_t unwind_capture(uintptr_t *frames, uint32_t max, int *truncated)
{
	struct sampler_thread *t = &sampler_tls;
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	uint32_t depth = 0;

	if (!t->stack_top)
		t->stack_top = thread_stack_top();
	*truncated = 0;
	while (fp >= 0x1000 && fp <= USER_ADDRESS_MAX && !(fp & 7) &&
	       fp + 2 * sizeof(uintptr_t) <= t->stack_top) {
		const uintptr_t *frame = (const uintptr_t *)fp;
		uintptr_t next = frame[0], pc = frame[1];

		if (!own_code(pc)) {
			if (!return_address(pc, fp, t->stack_top))
				break;
			if (depth == max) {
				*truncated = 1;
				break;
			}
			frames[depth++] = pc;
		}
		if (next <= fp)
			break;
		fp = next;
	}
	return depth;
}
