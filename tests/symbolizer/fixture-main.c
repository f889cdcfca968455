/* fixture-main.c - the program whose frames the symbolizer tests resolve.
 *
 * Contract: run as `fixture LIBRARY`, it prints one line per thing the tests
 * look up, then exits 0:
 *   build_id HEX
 *   function NAME OFFSET LINE           LINE: where the definition opens
 *   inlined OFFSET LINE INNER HELPER    return address inside code inlined
 *                                       twice: LINE: the call site in its
 *                                       caller, INNER: the call in the
 *                                       innermost inlined function, HELPER:
 *                                       its call in the other
 *   library NAME OFFSET LINE BUILD_ID   a function of the dlopen'ed LIBRARY
 *   ends_with_call OFFSET               return address of a call that is
 *                                       the last instruction of its function
 * OFFSET is an ELF virtual address (runtime address minus load bias) found
 * through the dynamic linker, so expected values never come from the code
 * under test.  Built with -O1 so the compiler keeps the calls as written.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>

#include "object-info.h"

#define NOINLINE __attribute__((noinline))
/* Code after a call keeps the compiler from turning it into a jump. */
#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

int fixture_leaf(int x);
int fixture_scale(int x) __asm__("_ZN7example5scaleEi");
int __fixture_increment(int x);
int fixture_increment(int x);
void fixture_with_inlined(void);
void fixture_ends_with_call(void);

/* Marker and definition share a line: a function's first address maps to
 * the line of its opening brace. */
static const unsigned leaf_line = __LINE__; NOINLINE int fixture_leaf(int x) { return x * 2 + 1; }

/* The symbol a C++ compiler emits for example::scale(int), written in C
 * with an assembler name so the build needs no C++ compiler. */
NOINLINE int fixture_scale(int x)
{
	return x * 3;
}

/* Aliases the way C libraries define them: the tests expect the public
 * name, although it is weak and the internal one global. */
NOINLINE int __fixture_increment(int x)
{
	return x + 1;
}
int fixture_increment(int x)
	__attribute__((weak, alias("__fixture_increment")));

static const void *remembered_return_address;

static NOINLINE void remember_return_address(void)
{
	remembered_return_address = __builtin_return_address(0);
	NO_TAIL_CALL();
}

#define ALWAYS_INLINE inline __attribute__((always_inline))
/* The lines of the calls in the inlined functions, as the markers. */
static const unsigned innermost_call_line = __LINE__; static ALWAYS_INLINE void inlined_innermost(void) { remember_return_address(); }
static const unsigned helper_call_line = __LINE__; static ALWAYS_INLINE void inlined_helper(void) { inlined_innermost(); }

static unsigned inlined_call_line;

NOINLINE void fixture_with_inlined(void)
{
	inlined_call_line = __LINE__; inlined_helper(); NO_TAIL_CALL();
}

static noreturn NOINLINE void exit_reporting_return_address(void)
{
	printf("ends_with_call %#" PRIxPTR "\n",
	       object_offset(__builtin_return_address(0)));
	exit(0);
}

NOINLINE void fixture_ends_with_call(void)
{
	exit_reporting_return_address();
}

static void print_function(const char *name, const void *address,
			   unsigned line)
{
	printf("function %s %#" PRIxPTR " %u\n", name, object_offset(address),
	       line);
}

static int print_library(const char *path)
{
	void *library = dlopen(path, RTLD_NOW);
	void *function = library ? dlsym(library, "fixture_lib_function") : NULL;
	unsigned (*line)(void) =
		library ? (unsigned (*)(void))dlsym(library,
						    "fixture_lib_function_line")
			: NULL;
	struct object_info info;

	if (function == NULL || line == NULL ||
	    object_info_find(function, &info) != 0) {
		fprintf(stderr, "fixture: %s: %s\n", path, dlerror());
		return -1;
	}
	printf("library fixture_lib_function %#" PRIxPTR " %u %s\n",
	       (uintptr_t)function - info.load_bias, line(), info.build_id);
	return 0;
}

int main(int argc, char **argv)
{
	struct object_info self;

	if (argc != 2) {
		fprintf(stderr, "usage: fixture LIBRARY\n");
		return 2;
	}
	if (object_info_find((const void *)fixture_leaf, &self) != 0)
		return 1;
	printf("build_id %s\n", self.build_id);
	print_function("fixture_leaf", (const void *)fixture_leaf, leaf_line);
	print_function("_ZN7example5scaleEi", (const void *)fixture_scale, 0);
	print_function("fixture_increment", (const void *)fixture_increment, 0);
	fixture_with_inlined();
	printf("inlined %#" PRIxPTR " %u %u %u\n",
	       object_offset(remembered_return_address), inlined_call_line,
	       innermost_call_line, helper_call_line);
	if (print_library(argv[1]) != 0)
		return 1;
	fflush(stdout);
	fixture_ends_with_call();
	return 1;
}
