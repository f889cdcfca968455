/* wrap-options.c - the command line of memprof-wrap.
 * See wrap-options.h for the contract. */
#include "config.h"

#include "wrap-options.h"
#include "wrap-util.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum {
	OPTION_NO_FOLLOW_FORK = 256,
	OPTION_PYTHON_ALLOCATORS,
	OPTION_UNWIND,
	OPTION_MAX_SIZE,
	OPTION_DORMANT,
};

static const struct option long_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "rate", required_argument, NULL, 'r' },
	{ "no-follow-fork", no_argument, NULL, OPTION_NO_FOLLOW_FORK },
	{ "dormant", no_argument, NULL, OPTION_DORMANT },
	{ "python-allocators", required_argument, NULL,
	  OPTION_PYTHON_ALLOCATORS },
	{ "unwind", required_argument, NULL, OPTION_UNWIND },
	{ "max-size", required_argument, NULL, OPTION_MAX_SIZE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void print_help(void)
{
	printf("Usage: %s [OPTION]... [--] COMMAND [ARGUMENT]...\n"
	       "Run COMMAND with the spprof-mem heap profiler and write one .mlyze\n"
	       "profile per process (read them with memprof-report).\n"
	       "\n"
	       "  -o, --output=FILE     profile file name; %%p is the process id,\n"
	       "                        %%h the host name, %%%% a percent sign\n"
	       "                        (default: COMMAND.%%p.mlyze in the current\n"
	       "                        directory, or in FILE if it is a directory)\n"
	       "  -r, --rate=BYTES      mean bytes allocated between two samples;\n"
	       "                        units K, M, G (or KiB, MiB, GiB) are powers\n"
	       "                        of 1024 (default: 512K)\n"
	       "      --max-size=SIZE   when a profile reaches SIZE (units as for\n"
	       "                        --rate), keep what is live and the totals\n"
	       "                        and drop older events; 0 for no limit\n"
	       "                        (default: 256M)\n"
	       "      --no-follow-fork  profile only the first process, not the\n"
	       "                        processes it forks or executes\n"
	       "      --dormant         load the profiler without recording until\n"
	       "                        memprof-ctl start asks for it\n"
	       "      --python-allocators=malloc|pymalloc\n"
	       "                        malloc: Python allocates its small objects\n"
	       "                        with malloc too, so that they are sampled\n"
	       "                        (slower); pymalloc: from its own arenas,\n"
	       "                        unseen (default: as the environment says)\n"
	       "      --unwind=auto|fp|dwarf\n"
	       "                        how native stacks are walked: fp by frame\n"
	       "                        pointers (cheapest, cut short by code built\n"
	       "                        without them), dwarf by the binaries' unwind\n"
	       "                        tables, auto frame pointers where they hold\n"
	       "                        (default: as the environment says, else auto)\n"
	       "  -q, --quiet           do not list the profiles written\n"
	       "  -h, --help            display this help and exit\n"
	       "  -V, --version         output version information and exit\n"
	       "\n"
	       "Options end at COMMAND or at \"--\".  The exit status is COMMAND's\n"
	       "(128+N when signal N killed it), 126 or 127 when COMMAND cannot be\n"
	       "run or found, 1 when profiling cannot be set up, 2 on a usage error.\n",
	       WRAP_PROGRAM);
}

static void print_version(void)
{
	printf("%s (%s) %s\n", WRAP_PROGRAM, PACKAGE_NAME, PACKAGE_VERSION);
}

static int usage_error(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", WRAP_PROGRAM);
	return 2;
}

/* --max-size: 0, or a size of at least WRAP_MIN_MAX_SIZE. */
static int parse_max_size(const char *text, struct wrap_options *options)
{
	const char *problem = NULL;

	options->max_size = 0;
	if (strcmp(text, "0") != 0) {
		problem = wrap_parse_size(text, &options->max_size);
		if (!problem && options->max_size < WRAP_MIN_MAX_SIZE)
			problem = "too small (the least is 64K, or 0 for no "
				  "limit)";
	}
	if (problem == NULL) {
		options->max_size_given = true;
		return WRAP_RUN;
	}
	wrap_error("invalid size limit '%s': %s", text, problem);
	return usage_error();
}

static int apply_option(int option, struct wrap_options *options)
{
	const char *problem;

	switch (option) {
	case 'o':
		options->output = optarg;
		return WRAP_RUN;
	case 'r':
		problem = wrap_parse_size(optarg, &options->rate);
		if (problem == NULL)
			return WRAP_RUN;
		wrap_error("invalid sampling rate '%s': %s", optarg, problem);
		return usage_error();
	case OPTION_MAX_SIZE:
		return parse_max_size(optarg, options);
	case OPTION_NO_FOLLOW_FORK:
		options->follow_fork = false;
		return WRAP_RUN;
	case OPTION_DORMANT:
		options->dormant = true;
		return WRAP_RUN;
	case OPTION_PYTHON_ALLOCATORS:
		if (strcmp(optarg, "malloc") == 0 ||
		    strcmp(optarg, "pymalloc") == 0) {
			options->python_allocators = optarg;
			return WRAP_RUN;
		}
		wrap_error("invalid Python allocators '%s': use malloc or "
			   "pymalloc", optarg);
		return usage_error();
	case OPTION_UNWIND:
		if (strcmp(optarg, "auto") == 0 || strcmp(optarg, "fp") == 0 ||
		    strcmp(optarg, "dwarf") == 0) {
			options->unwind = optarg;
			return WRAP_RUN;
		}
		wrap_error("invalid unwinding method '%s': use auto, fp or "
			   "dwarf", optarg);
		return usage_error();
	case 'q':
		options->quiet = true;
		return WRAP_RUN;
	case 'h':
		print_help();
		return 0;
	case 'V':
		print_version();
		return 0;
	default: /* getopt has described the problem */
		return usage_error();
	}
}

int wrap_parse_args(int argc, char **argv, struct wrap_options *options)
{
	int option;
	int result = WRAP_RUN;

	*options = (struct wrap_options){ .follow_fork = true };
	/* getopt names the program by argv[0] in its messages; make them
	 * look like every other message of this program. */
	argv[0] = (char *)WRAP_PROGRAM;
	optind = 0; /* full rescan, so the parser can be used more than once */
	/* "+": stop at the first non-option, which is COMMAND. */
	while (result == WRAP_RUN &&
	       (option = getopt_long(argc, argv, "+o:r:qhV", long_options,
				     NULL)) != -1)
		result = apply_option(option, options);
	if (result != WRAP_RUN)
		return result;
	if (optind >= argc) {
		wrap_error("missing COMMAND");
		return usage_error();
	}
	options->command = argv + optind;
	return WRAP_RUN;
}

/* A unit of --rate and its value. */
struct size_unit {
	const char *name;
	unsigned shift;
};

static const struct size_unit size_units[] = {
	{ "", 0 },     { "k", 10 },   { "kib", 10 }, { "m", 20 },
	{ "mib", 20 }, { "g", 30 },   { "gib", 30 },
};

const char *wrap_parse_size(const char *text, uint64_t *bytes)
{
	uint64_t value = 0;
	const char *cursor = text;

	/* Digits by hand: strtoull would accept signs and blanks. */
	if (*cursor < '0' || *cursor > '9')
		return "not a positive integer";
	for (; *cursor >= '0' && *cursor <= '9'; cursor++) {
		unsigned digit = (unsigned)(*cursor - '0');

		if (value > (UINT64_MAX - digit) / 10)
			return "too large (the most is 1024G)";
		value = value * 10 + digit;
	}
	for (size_t i = 0; i < sizeof size_units / sizeof size_units[0]; i++) {
		unsigned shift = size_units[i].shift;

		if (strcasecmp(cursor, size_units[i].name) != 0)
			continue;
		if (value == 0)
			return "must be greater than 0";
		if (value > (WRAP_MAX_RATE >> shift))
			return "too large (the most is 1024G)";
		*bytes = value << shift;
		return NULL;
	}
	return "unknown unit (use K, M, G, KiB, MiB or GiB)";
}
