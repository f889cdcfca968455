/* runtime-api.c - finds the runtime's API (see runtime-api.h). */
#include "config.h"

#include "runtime-api.h"

#include <dlfcn.h>
#include <errno.h>

#ifdef RUNTIME_API_BY_DLSYM
#define FIND(field, name) \
	(*(void **)&api->field = dlsym(RTLD_DEFAULT, #name))
#else
#define FIND(field, name) (api->field = name)
#endif

int runtime_api_load(struct runtime_api *api)
{
	FIND(init, memprof_init);
	FIND(start, memprof_start);
	FIND(stop, memprof_stop);
	FIND(set_sampling_rate, memprof_set_sampling_rate);
	FIND(get_snapshot, memprof_get_snapshot);
	FIND(free_snapshot, memprof_free_snapshot);
	FIND(get_stats, memprof_get_stats);
	FIND(estimate_bytes, memprof_estimate_bytes);
	if (!api->init || !api->start || !api->stop ||
	    !api->set_sampling_rate || !api->get_snapshot ||
	    !api->free_snapshot || !api->get_stats || !api->estimate_bytes)
		return -1;
	return 0;
}

int runtime_api_sample_at(const struct runtime_api *api, uint64_t rate)
{
	if (api->init(rate) == 0)
		return api->start();
	if (errno != EALREADY)
		return -1;
	if (api->start() < 0 && errno != EALREADY)
		return -1;
	return api->set_sampling_rate(rate);
}

int runtime_api_find_sample(const struct runtime_api *api, uintptr_t address,
			    memprof_sample *out)
{
	memprof_sample *samples;
	size_t count;
	int found = 0;

	if (api->get_snapshot(&samples, &count) < 0)
		return 0;
	/* The snapshot's own array may be sampled, at the address of a block
	 * freed before: it is not the block looked for. */
	for (size_t i = 0; i < count && !found; i++)
		if (samples[i].address == address &&
		    address != (uintptr_t)samples) {
			*out = samples[i];
			found = 1;
		}
	api->free_snapshot(samples);
	return found;
}
