/* script_stack.c - trim-and-sandwich merge of script frames. */
#include "config.h"

#include "script_stack.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "code_map.h"
#include "frames.h"
#include "names.h"

static _Atomic(memprof_frame_walker) walker;
static uintptr_t interpreter_lo, interpreter_hi;

int script_stack_set_walker(memprof_frame_walker fn,
			    const void *interpreter_code)
{
	uintptr_t lo = 0, hi = 0;

	if (fn && (!interpreter_code ||
		   code_range_of(interpreter_code, &lo, &hi) < 0)) {
		errno = EINVAL;
		return -1;
	}
	if (fn && strings_init() < 0)
		return -1;
	atomic_store(&walker, NULL);
	interpreter_lo = lo;
	interpreter_hi = hi;
	atomic_store(&walker, fn);
	return 0;
}

static void append(uint64_t *out, uint32_t *depth, uint32_t max,
		   const uint64_t *frames, uint32_t n)
{
	uint32_t room = max - *depth;

	if (n > room)
		n = room;
	memcpy(out + *depth, frames, n * sizeof(uint64_t));
	*depth += n;
}

uint32_t merge_frames(uint64_t *out, uint32_t max, const uint64_t *native,
		      uint32_t n, const uint64_t *script, uint32_t m,
		      uintptr_t lo, uintptr_t hi)
{
	uint32_t first = n, last = 0, depth = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (native[i] >= lo && native[i] < hi) {
			if (first == n)
				first = i;
			last = i;
		}
	}
	append(out, &depth, max, native, first);
	append(out, &depth, max, script, m);
	if (first < n)
		append(out, &depth, max, native + last + 1, n - last - 1);
	return depth;
}

static uint32_t intern_script_frames(uint64_t *packed,
				     const memprof_script_frame *f, int n)
{
	uint32_t kept = 0;

	for (int i = 0; i < n; i++) {
		uint32_t file = strings_intern(STRINGS_FILES, f[i].file,
					       f[i].file_len);
		uint32_t func = strings_intern(STRINGS_FUNCTIONS, f[i].function,
					       f[i].function_len);

		if (file == STRING_ID_NONE || func == STRING_ID_NONE)
			break; /* tables full: keep the innermost frames */
		packed[kept++] = script_frame(file, func, f[i].line);
	}
	return kept;
}

uint32_t script_stack_merge(uint64_t *frames, uint32_t depth, uint32_t max)
{
	memprof_frame_walker fn = atomic_load_explicit(&walker,
						       memory_order_acquire);
	memprof_script_frame script[MEMPROF_MAX_STACK_DEPTH];
	uint64_t packed[MEMPROF_MAX_STACK_DEPTH], native[MEMPROF_MAX_STACK_DEPTH];
	int n;

	if (!fn || (n = fn(script, MEMPROF_MAX_STACK_DEPTH)) <= 0)
		return depth;
	if (n > MEMPROF_MAX_STACK_DEPTH)
		n = MEMPROF_MAX_STACK_DEPTH;
	memcpy(native, frames, depth * sizeof(uint64_t));
	return merge_frames(frames, max, native, depth, packed,
			    intern_script_frames(packed, script, n),
			    interpreter_lo, interpreter_hi);
}
