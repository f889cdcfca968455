/* fuzz-web-config.c - the web configuration file of memprof-ctl serve
 * (ctl-web-config.h), fed anything: ctl_web_config_parse() reads from the
 * buffer and touches no file. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "ctl-web-config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctl_web_config config;
	char why[512];

	if (size > CTL_WEB_CONFIG_MAX_SIZE)
		return 0; /* the loader refuses larger files */
	if (ctl_web_config_parse((const char *)data, size, "fuzz.yml", &config,
				 why, sizeof(why)) < 0 && !why[0])
		abort(); /* a refusal always says why */
	ctl_web_config_free(&config);
	return 0;
}
