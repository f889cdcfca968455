/* interpose_dlopen.c - dlopen(), as seen by the program.
 *
 * A library opened with RTLD_DEEPBIND looks its symbols up in itself and
 * its dependencies first, so its malloc family is the C library's, past
 * the runtime's: PHP opens its extensions so.  A block the program
 * allocated and such a library frees would reach the C library's free()
 * while it came from the runtime's pool or was carved out of a larger
 * block, and the C library would stop the program ("free(): invalid
 * pointer").  So after such a dlopen() the runtime rebinds the library's
 * calls of the malloc family to its own (late_binding_rebind_deep()).
 *
 * dlopen() searches the run paths of the code that calls it, which the C
 * library finds by the return address; so every other call goes on to
 * the C library's dlopen() by a jump, with the caller's return address
 * intact, and RTLD_DEEPBIND calls (and the calls before the C library's
 * function is known) reach program_dlopen() by a jump too, which searches
 * as the caller's call would have (dlopen_for()).  Only on the
 * architectures whose slots the runtime can rewrite (x86-64, arm64);
 * elsewhere dlopen() is the C library's alone.
 */
#include "config.h"

#include <dlfcn.h>

#include "compiler.h"
#include "late_binding.h"
#include "late_dlopen.h"

#if defined(RTLD_DEEPBIND) && (defined(__x86_64__) || defined(__aarch64__))

_Static_assert(RTLD_DEEPBIND == 8, "the jumps below test bit 3 of mode");

/* Read by the jump below, which the compiler does not see. */
__attribute__((used)) void *(*next_dlopen)(const char *, int);

void *program_dlopen(const char *file, int mode);

__attribute__((used)) void *program_dlopen(const char *file, int mode)
{
	void *handle = dlopen_for(__builtin_return_address(0), file, mode);

	if (handle && (mode & RTLD_DEEPBIND))
		late_binding_rebind_deep();
	return handle;
}

__attribute__((constructor)) static void find_dlopen(void)
{
	*(void **)&next_dlopen = dlsym(RTLD_NEXT, "dlopen");
}

#if defined(__x86_64__)
__asm__(".text\n"
	".globl dlopen\n"
	".type dlopen, @function\n"
	"dlopen:\n\t"
	"testl $8, %esi\n\t"
	"jnz 1f\n\t"
	"movq next_dlopen(%rip), %rax\n\t"
	"testq %rax, %rax\n\t"
	"jz 1f\n\t"
	"jmp *%rax\n"
	"1:\n\t"
	"jmp program_dlopen\n"
	".size dlopen, .-dlopen\n");
#else
__asm__(".text\n"
	".globl dlopen\n"
	".type dlopen, %function\n"
	"dlopen:\n\t"
	"tbnz w1, #3, 1f\n\t"
	"adrp x16, next_dlopen\n\t"
	"ldr x16, [x16, :lo12:next_dlopen]\n\t"
	"cbz x16, 1f\n\t"
	"br x16\n"
	"1:\n\t"
	"b program_dlopen\n"
	".size dlopen, .-dlopen\n");
#endif

#endif
