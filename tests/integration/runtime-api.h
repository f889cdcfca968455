/* runtime-api.h - the runtime's public API as the test programs reach it.
 *
 * Contract: runtime_api_load() fills the table either with the functions
 * the program was linked against (libspprof-alloc), or, when built with
 * RUNTIME_API_BY_DLSYM, with those dlsym(RTLD_DEFAULT) finds in a runtime
 * loaded by LD_PRELOAD.  It returns 0, or -1 when some function is missing
 * (the program runs without the runtime).
 */
#ifndef SPPROF_TEST_RUNTIME_API_H
#define SPPROF_TEST_RUNTIME_API_H

#include <stddef.h>
#include <stdint.h>

#include <spprof/memprof.h>

#ifdef __cplusplus
extern "C" {
#endif

struct runtime_api {
	int (*init)(uint64_t sampling_rate);
	int (*start)(void);
	int (*stop)(void);
	int (*set_sampling_rate)(uint64_t sampling_rate);
	int (*get_snapshot)(memprof_sample **samples, size_t *count);
	void (*free_snapshot)(memprof_sample *samples);
	int (*get_stats)(memprof_stats *stats);
	double (*estimate_bytes)(uint64_t size, uint64_t sampling_rate,
				 double *count);
};

int runtime_api_load(struct runtime_api *api);

/* Starts sampling at `rate`: initialises and starts a dormant runtime, or
 * switches one that SPPROF_OUTPUT already started; 0 or -1 with errno. */
int runtime_api_sample_at(const struct runtime_api *api, uint64_t rate);

/* The live sample recorded at `address`: 1 and *out filled, or 0.  (An
 * address rather than a pointer, as the block may have been freed.) */
int runtime_api_find_sample(const struct runtime_api *api, uintptr_t address,
			    memprof_sample *out);

#ifdef __cplusplus
}
#endif

#endif /* SPPROF_TEST_RUNTIME_API_H */
