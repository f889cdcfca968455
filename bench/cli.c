/* cli.c - the options every benchmark program shares (see cli.h). */
#include "config.h"

#include "cli.h"

int shared_option(int option, const char *program, void (*usage)(FILE *))
{
	switch (option) {
	case 'h':
		usage(stdout);
		return 0;
	case 'V':
		printf("%s (%s) %s\n", program, PACKAGE_NAME, PACKAGE_VERSION);
		return 0;
	default:
		usage(stderr);
		return 2;
	}
}
