/* memprof-report - which code holds and churns heap memory, from .mlyze
 * profiles.
 *
 * The report engine (report-engine.h) reads each profile in turn
 * (libmlyze), replays its events into estimates per stack (report-heap.c),
 * symbolizes the stacks offline and merges them across profiles
 * (report-stacks.c) and groups them into sites (report-sites.c), while
 * this program's hooks gather what the report says of each profile; then
 * it writes the view asked for (report-views.c: text for people, JSON,
 * folded stacks, speedscope, pprof, HTML).  With --base,
 * the base profiles are read the same way and the sites of both compared
 * (report-compare.c); with --leaks, and for the HTML page's chart, the
 * sites are ranked by the trend of their live bytes (report-leaks.c).  A
 * profile that cannot be read is named on stderr and left out of the
 * report of the others.  Exit status:
 * 0 ok, 1 failure (a profile left out, output that cannot be written), 2
 * bad usage, or no profile could be read and one breaks the format.
 */
#include "config.h"

#include "mlyze-stats.h"
#include "report-engine.h"
#include "report-frames.h"
#include "report-heap.h"
#include "report-moment.h"
#include "report-progress.h"
#include "report-sites.h"
#include "report-suppress.h"
#include "report-symbolize.h"
#include "report-util.h"
#include "report-view.h"
#include "report-wrappers.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_TOP 20

struct options {
	size_t top;
	enum grouping grouping;
	enum sort_key sort;
	bool sort_given; /* --sort, which not every view takes */
	enum moment at;
	/* --at TIME or MARKER (then `at` is AT_TIME), --from and --to. */
	struct moment_spec at_spec, from, to;
	bool cumulative;
	bool all;
	const struct view *view; /* NULL: chosen by the output's name */
	const char *output;      /* NULL: standard output */
	const char **debug_dirs;
	size_t debug_dir_count;
	const char *sysroot;
	char **base_files; /* --base: compare the profiles with these */
	size_t base_count;
	const char *base_sysroot;
	bool leaks; /* --leaks: rank the sites by their growth */
	bool growth; /* --growth: each site's growth in its table */
	bool keep_wrappers; /* allocation wrappers may be sites */
	bool running; /* --running: the streams of running processes */
	/* With --running: the moment the report began, on the clock of a
	 * profile's times, which the processes are known to have lived to. */
	uint64_t running_until_us;
	enum memory_kind kinds; /* --kind: what memory the sites hold */
	bool label_pid; /* --label-pid: stacks apart by process, labelled */
	/* --suppressions, with --at end or --leaks; NULL without. */
	struct suppressions *suppressions;
	/* --temporary, --histogram, --group-by thread: blocks.view. */
	bool blocks_wanted;
	struct block_options blocks;
	/* --thread: only its blocks; NULL without. */
	const struct thread_filter *thread;
	struct thread_filter thread_chosen;
	bool symbolize; /* write the profile with its symbols, no view */
};

/* Growable list of messages (warnings, notes). */
struct messages {
	char **items;
	size_t count;
};

static void add_message(struct messages *list, char *message)
{
	list->items = xrealloc(list->items, list->count + 1, sizeof(char *));
	list->items[list->count++] = message;
}

static void free_messages(struct messages *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->items[i]);
	free(list->items);
}

static void usage(FILE *out)
{
	fputs("Usage: memprof-report [OPTION]... FILE...\n"
	      "Show which allocation sites hold the most heap memory in .mlyze\n"
	      "profiles (several profiles are merged by symbol), or write them in\n"
	      "a format other tools read.\n"
	      "\n"
	      "  -f, --format=FORMAT     text (default), json, folded, speedscope,\n"
	      "                          pprof or html (see memprof-report(1))\n"
	      "  -o, --output=FILE       write to FILE (-: standard output); without\n"
	      "                          --format, its suffix chooses (.json,\n"
	      "                          .folded, .speedscope.json, .pb.gz, .html)\n"
	      "  -j, --json              the same as --format=json\n"
	      "  -n, --top=N             show the N largest sites (default 20; 0: all)\n"
	      "  -g, --group-by=WHAT     function (default), line or stack; thread:\n"
	      "                          what each thread allocated and left live\n"
	      "  -c, --cumulative        rank functions by what everything they call\n"
	      "                          holds\n"
	      "  -s, --sort=KEY          live (default), allocated or count; also what\n"
	      "                          the exports weigh stacks by\n"
	      "  -a, --at=WHEN           peak (default), end, a time from the start\n"
	      "                          (12.5s) or a marker's name: when to count\n"
	      "                          live bytes\n"
	      "      --from=WHEN         count only the blocks allocated from WHEN on\n"
	      "      --to=WHEN           ... and before WHEN (a time or a marker)\n"
	      "      --kind=KIND         all (default): the malloc heap and anonymous\n"
	      "                          mappings; heap or mapped: one of them\n"
	      "      --all               also list sites with nothing live\n"
	      "      --keep-wrappers     let allocation wrappers (xmalloc, g_malloc...)\n"
	      "                          be sites, not their callers\n"
	      "      --label-pid         keep the stacks of each profile's process\n"
	      "                          apart, labelled pid in a pprof file\n"
	      "      --debug-dir=DIR     also look for debug files in DIR (repeatable)\n"
	      "      --sysroot=DIR       find the profiled modules under DIR\n"
	      "      --base=FILE         show what changed since the profile FILE\n"
	      "                          (repeatable): significant changes per site\n"
	      "      --base-sysroot=DIR  find the modules of the --base profiles\n"
	      "                          under DIR (default: --sysroot)\n"
	      "      --leaks             rank the sites by how fast their live bytes\n"
	      "                          grow over the run (per marker, or second)\n"
	      "      --growth            add that growth, with its interval, to the\n"
	      "                          table of the top sites\n"
	      "      --suppressions=FILE with --at end or --leaks, leave out the stacks\n"
	      "                          that FILE's leak:PATTERN lines match\n"
	      "                          (LeakSanitizer's format)\n"
	      "      --temporary[=DURATION]  the sites whose blocks are freed within\n"
	      "                          DURATION of their birth (default 10ms; us, ms\n"
	      "                          or s), and the lifetimes of their blocks\n"
	      "      --histogram         allocations and bytes by size class (powers\n"
	      "                          of two)\n"
	      "      --site=TEXT         with --histogram, only the sites whose name\n"
	      "                          holds TEXT\n"
	      "      --thread=ID|NAME    only the blocks of the thread of this id (its\n"
	      "                          low 16 bits) or of the threads of this name\n"
	      "      --symbolize         write the one profile given, with the\n"
	      "                          symbols of its frames inside it, to -o FILE\n"
	      "                          (a .mlyze that reads the same without the\n"
	      "                          binaries), instead of a view of it\n"
	      "      --running           the profiles are streams of running\n"
	      "                          processes (memprof-ctl top): not ended\n"
	      "  -h, --help              show this help and exit\n"
	      "  -V, --version           show the version and exit\n"
	      "\n"
	      "Exit status: 0 ok; 1 a profile left out, or output failed; 2 bad\n"
	      "usage, or no profile could be read and one is malformed.\n",
	      out);
}

static void usage_error(const char *format, const char *value)
{
	fputs("memprof-report: ", stderr);
	fprintf(stderr, format, value);
	fputs("\nTry 'memprof-report --help' for more information.\n", stderr);
	exit(2);
}

/* Index of `value` among `names`, or a usage error. */
static int choose(const char *option, const char *value,
		  const char *const *names, int count)
{
	for (int i = 0; i < count; i++)
		if (strcmp(value, names[i]) == 0)
			return i;
	fprintf(stderr, "memprof-report: invalid %s '%s' (expected", option,
		value);
	for (int i = 0; i < count; i++)
		fprintf(stderr, "%s %s", i ? (i + 1 == count ? " or" : ",") : "",
			names[i]);
	fputs(")\nTry 'memprof-report --help' for more information.\n", stderr);
	exit(2);
}

/* The values of --kind, and the kinds of memory each counts. */
static const char *const kind_names[] = { "all", "heap", "mapped" };
static const enum memory_kind kind_bits[] = { KIND_ALL, KIND_HEAP,
					      KIND_MAPPED };

static const struct view *choose_view(const char *value)
{
	const char *names[16];
	int count = 0;

	for (size_t i = 0; i < view_count() && count < 16; i++)
		names[count++] = view_at(i)->name;
	return view_at((size_t)choose("--format", value, names, count));
}

static size_t parse_top(const char *value)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(value, &end, 10);
	if (errno || end == value || *end || value[0] == '-' || n > SIZE_MAX)
		usage_error("invalid --top value '%s'", value);
	return (size_t)n;
}

/* The options that choose each view of blocks, for messages. */
static const char *const block_option_names[BLOCK_VIEWS] = {
	[BLOCKS_TEMPORARY] = "temporary",
	[BLOCKS_SIZES] = "histogram",
	[BLOCKS_THREADS] = "group-by thread",
};

/* --temporary, --histogram or --group-by thread: one of them. */
static void choose_blocks(struct options *o, enum block_view view)
{
	if (o->blocks_wanted && o->blocks.view != view)
		usage_error("--%s and another of --temporary, --histogram and "
			    "--group-by thread: one at a time",
			    block_option_names[view]);
	o->blocks_wanted = true;
	o->blocks.view = view;
}

/* A moment of --at, --from or --to, or a usage error. */
static void parse_moment(struct moment_spec *spec, const char *option,
			 const char *value)
{
	char why[512];

	if (moment_parse(spec, option, value, why, sizeof(why)) < 0)
		usage_error("%s", why);
}

/* --at: peak, end, or a moment the profile names (AT_TIME). */
static enum moment parse_at(const char *value, struct moment_spec *spec)
{
	for (int m = 0; m < AT_TIME; m++)
		if (strcmp(value, moment_names[m]) == 0)
			return (enum moment)m;
	parse_moment(spec, "--at", value);
	return AT_TIME;
}

/* --suppressions FILE, once. */
static struct suppressions *load_suppressions(struct suppressions *loaded,
					      const char *file)
{
	struct suppressions *s = xmalloc(sizeof(*s));
	char why[4096 + 256];

	if (loaded)
		usage_error("%s", "--suppressions is given once");
	if (suppressions_load(s, file, why, sizeof(why)) < 0) {
		fprintf(stderr, "memprof-report: %s\n", why);
		exit(2);
	}
	return s;
}

/* --group-by: a grouping of the sites, or the threads' view. */
static void choose_grouping(struct options *o, const char *value)
{
	const char *names[] = { grouping_names[GROUP_BY_FUNCTION],
				grouping_names[GROUP_BY_LINE],
				grouping_names[GROUP_BY_STACK], "thread" };
	int chosen = choose("--group-by", value, names, 4);

	if (chosen == 3)
		choose_blocks(o, BLOCKS_THREADS);
	else
		o->grouping = (enum grouping)chosen;
}

/* DURATION of --temporary, or its default. */
static uint64_t parse_temporary(const char *value)
{
	int64_t us = value ? blocks_parse_duration(value)
			   : TEMPORARY_DEFAULT_US;

	if (us < 0)
		usage_error("invalid --temporary duration '%s' (expected a "
			    "number and us, ms or s, e.g. 10ms)", value);
	return (uint64_t)us;
}

/* --thread: digits are a thread's id, anything else its name. */
static const struct thread_filter *parse_thread(struct thread_filter *f,
						const char *value)
{
	char *end;
	unsigned long long id;

	errno = 0;
	id = strtoull(value, &end, 10);
	if (value[0] >= '0' && value[0] <= '9' && !*end && !errno)
		*f = (struct thread_filter){ .id = (uint16_t)(id % THREAD_IDS) };
	else
		*f = (struct thread_filter){ .name = value };
	return f;
}

/* The options of the views of blocks, checked once all are known. */
static void check_blocks(const struct options *o)
{
	if (o->blocks.site && (!o->blocks_wanted ||
			       o->blocks.view != BLOCKS_SIZES))
		usage_error("%s", "--site chooses the sites of --histogram");
	if (!o->blocks_wanted)
		return;
	if (!o->view->write_blocks)
		usage_error("%s", xasprintf("--%s writes no --format=%s",
					    block_option_names[o->blocks.view],
					    o->view->name));
	if (o->base_count || o->leaks || o->growth)
		usage_error("--%s reads one run: not with --base, --leaks or "
			    "--growth", block_option_names[o->blocks.view]);
	/* A --sort these views do not take is refused, not ignored: a table
	 * ranked otherwise than asked would be read as ranked as asked. */
	if (o->sort_given && o->blocks.view == BLOCKS_TEMPORARY &&
	    o->sort == SORT_BY_LIVE)
		usage_error("%s", "--temporary ranks its sites by their "
				  "temporary allocations, --sort=count (the "
				  "default) or --sort=allocated (their bytes): "
				  "a block freed young is not live");
	if (o->sort_given && o->blocks.view == BLOCKS_SIZES)
		usage_error("%s", "--histogram lists the size classes in their "
				  "order: no --sort");
	if (o->sort_given && o->blocks.view == BLOCKS_THREADS)
		usage_error("%s", "--group-by thread ranks the threads by the "
				  "bytes they allocated: no --sort");
	/* A life is whole: a stretch chooses the blocks it counts, but no
	 * single moment has lives to show. */
	if (o->at == AT_TIME)
		usage_error("%s", xasprintf("--%s counts whole lives: not with "
					    "--at %s (--from and --to choose "
					    "the blocks it counts)",
					    block_option_names[o->blocks.view],
					    o->at_spec.text));
}

/* An option whose argument is optional takes it only after '='
 * (--temporary=10ms): a value written after a space is an operand, read
 * as a profile.  Each such option, with the operand that followed it
 * when it was given without one. */
struct bare_option {
	const char *name;
	const char *what;                   /* what its argument is */
	bool (*is_argument)(const char *text); /* whether text reads as one */
	const char *next;                   /* the word after it, or NULL */
};

static bool is_duration(const char *text)
{
	return blocks_parse_duration(text) >= 0;
}

/* An operand that names no file but reads as the argument of the option
 * it followed was meant as that argument: a usage error that says how to
 * write it, instead of "No such file or directory". */
static void check_bare_option(const struct bare_option *b)
{
	if (!b->next || b->next[0] == '-' || !b->is_argument(b->next) ||
	    access(b->next, F_OK) == 0)
		return;
	usage_error("%s", xasprintf("%s: no such profile; to give --%s %s "
				    "write --%s=%s", b->next, b->name,
				    b->what, b->name, b->next));
}

/* Now, on the clock of a profile's times: microseconds since the epoch. */
static uint64_t wall_clock_us(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	enum {
		OPT_DEBUG_DIR = 256,
		OPT_SYSROOT,
		OPT_ALL,
		OPT_BASE,
		OPT_BASE_SYSROOT,
		OPT_LEAKS,
		OPT_GROWTH,
		OPT_KEEP_WRAPPERS,
		OPT_LABEL_PID,
		OPT_SUPPRESSIONS,
		OPT_TEMPORARY,
		OPT_HISTOGRAM,
		OPT_SITE,
		OPT_THREAD,
		OPT_SYMBOLIZE,
		OPT_FROM,
		OPT_TO,
		OPT_RUNNING,
		OPT_KIND
	};
	static const struct option long_options[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 'n' },
		{ "group-by", required_argument, NULL, 'g' },
		{ "cumulative", no_argument, NULL, 'c' },
		{ "sort", required_argument, NULL, 's' },
		{ "at", required_argument, NULL, 'a' },
		{ "kind", required_argument, NULL, OPT_KIND },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "base-sysroot", required_argument, NULL, OPT_BASE_SYSROOT },
		{ "leaks", no_argument, NULL, OPT_LEAKS },
		{ "growth", no_argument, NULL, OPT_GROWTH },
		{ "keep-wrappers", no_argument, NULL, OPT_KEEP_WRAPPERS },
		{ "label-pid", no_argument, NULL, OPT_LABEL_PID },
		{ "suppressions", required_argument, NULL, OPT_SUPPRESSIONS },
		{ "temporary", optional_argument, NULL, OPT_TEMPORARY },
		{ "histogram", no_argument, NULL, OPT_HISTOGRAM },
		{ "site", required_argument, NULL, OPT_SITE },
		{ "thread", required_argument, NULL, OPT_THREAD },
		{ "symbolize", no_argument, NULL, OPT_SYMBOLIZE },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "running", no_argument, NULL, OPT_RUNNING },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct bare_option temporary = { "temporary", "a duration",
					 is_duration, NULL };
	int c;

	while ((c = getopt_long(argc, argv, "f:o:jn:g:cs:a:hV", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'f':
			o->view = choose_view(optarg);
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'j':
			o->view = view_named("json");
			break;
		case 'c':
			o->cumulative = true;
			break;
		case OPT_KIND:
			o->kinds = kind_bits[choose("--kind", optarg,
						    kind_names, 3)];
			break;
		case OPT_ALL:
			o->all = true;
			break;
		case 'n':
			o->top = parse_top(optarg);
			break;
		case 'g':
			choose_grouping(o, optarg);
			break;
		case 's':
			o->sort = (enum sort_key)choose("--sort", optarg,
							sort_names, 3);
			o->sort_given = true;
			break;
		case 'a':
			o->at = parse_at(optarg, &o->at_spec);
			break;
		case OPT_FROM:
			parse_moment(&o->from, "--from", optarg);
			break;
		case OPT_TO:
			parse_moment(&o->to, "--to", optarg);
			break;
		case OPT_DEBUG_DIR:
			o->debug_dirs = xrealloc(o->debug_dirs,
						 o->debug_dir_count + 1,
						 sizeof(char *));
			o->debug_dirs[o->debug_dir_count++] = optarg;
			break;
		case OPT_SYSROOT:
			o->sysroot = optarg;
			break;
		case OPT_BASE:
			o->base_files = xrealloc(o->base_files,
						 o->base_count + 1,
						 sizeof(char *));
			o->base_files[o->base_count++] = optarg;
			break;
		case OPT_BASE_SYSROOT:
			o->base_sysroot = optarg;
			break;
		case OPT_LEAKS:
			o->leaks = true;
			break;
		case OPT_GROWTH:
			o->growth = true;
			break;
		case OPT_KEEP_WRAPPERS:
			o->keep_wrappers = true;
			break;
		case OPT_LABEL_PID:
			o->label_pid = true;
			break;
		case OPT_SUPPRESSIONS:
			o->suppressions = load_suppressions(o->suppressions,
							    optarg);
			break;
		case OPT_TEMPORARY:
			choose_blocks(o, BLOCKS_TEMPORARY);
			o->blocks.temporary_us = parse_temporary(optarg);
			temporary.next = !optarg && optind < argc ? argv[optind]
								  : NULL;
			break;
		case OPT_HISTOGRAM:
			choose_blocks(o, BLOCKS_SIZES);
			break;
		case OPT_SITE:
			o->blocks.site = optarg;
			break;
		case OPT_THREAD:
			o->thread = parse_thread(&o->thread_chosen, optarg);
			break;
		case OPT_SYMBOLIZE:
			o->symbolize = true;
			break;
		case OPT_RUNNING:
			o->running = true;
			o->running_until_us = wall_clock_us();
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			puts("memprof-report (" PACKAGE_NAME ") " PACKAGE_VERSION);
			exit(0);
		default:
			fputs("Try 'memprof-report --help' for more information.\n",
			      stderr);
			exit(2);
		}
	}
	check_bare_option(&temporary);
	if (optind == argc)
		usage_error("%s", "no profile given");
	if (o->symbolize && (o->view || o->base_count || o->leaks ||
			     o->growth || o->suppressions || o->label_pid))
		usage_error("%s", "--symbolize writes a profile, not a view: "
				  "no --format, --base, --leaks, --growth, "
				  "--suppressions or --label-pid");
	if (o->symbolize && argc - optind != 1)
		usage_error("%s", "--symbolize writes one profile: give one");
	if (o->cumulative && o->grouping == GROUP_BY_STACK)
		usage_error("%s", "--cumulative groups by function or line, "
				  "not by stack");
	/* -o - is standard output, as for most tools, not a file named -. */
	if (o->output && strcmp(o->output, "-") == 0)
		o->output = NULL;
	if (!o->view && o->output)
		o->view = view_for_file(o->output);
	if (!o->view)
		o->view = view_named("text");
	/* A profile's bytes on a terminal garble it and tell nothing; a pipe
	 * or a file takes them. */
	if (!o->output && isatty(STDOUT_FILENO) &&
	    (o->symbolize || o->view->binary))
		usage_error("%s", xasprintf("%s%s writes a binary profile, "
					    "not to a terminal: give -o FILE "
					    "or redirect standard output",
					    o->symbolize ? "--symbolize"
							 : "--format=",
					    o->symbolize ? "" : o->view->name));
	if (o->base_count && !o->view->write_comparison)
		usage_error("--base writes no --format=%s", o->view->name);
	if (o->leaks && !o->view->write_leaks)
		usage_error("--leaks writes no --format=%s", o->view->name);
	if (o->leaks && o->base_count)
		usage_error("%s", "--leaks reads one run; --base compares two");
	if (o->growth && !o->view->growth_column)
		usage_error("--growth adds no column to --format=%s",
			    o->view->name);
	if (o->growth && o->base_count)
		usage_error("%s", "--growth reads one run; --base compares two");
	if (o->from.kind == MOMENT_SECONDS && o->to.kind == MOMENT_SECONDS &&
	    o->from.seconds >= o->to.seconds)
		usage_error("%s", "--from must come before --to: the stretch "
				  "between them is empty");
	if (o->suppressions && o->at != AT_END && !o->leaks)
		usage_error("%s", "--suppressions applies to what was never "
				  "freed: give --at end or --leaks");
	check_blocks(o);
	o->blocks.by_bytes = o->sort == SORT_BY_ALLOCATED;
	return optind;
}

/* Everything gathered while the profiles are read. */
struct gathered {
	struct progress progress;
	struct messages warnings, notes;
	struct messages unread; /* files left out */
	struct mlyze_stats stats; /* of all profiles */
	struct profile_summary *profiles;
	size_t profile_count;
	struct frame_namer *namer;
	/* The stacks of all profiles, their sites and growth. */
	struct report_result result;
	/* --temporary, --histogram, --group-by thread; else NULL: */
	const struct block_options *blocks;
	struct block_collector collector; /* of the profile read now */
	struct class_table cells;  /* the blocks of the report's stacks */
	struct block_table table;  /* the threads, and then the view */
	const struct thread_filter *thread; /* --thread, or NULL */
	uint64_t thread_blocks;    /* sampled blocks --thread followed */
	struct messages thread_names; /* the threads' names, once each */
	bool several_files;
	const struct options *options;
	uint64_t born_outside;     /* sampled blocks left out by a stretch */
	char *moment;              /* with --at TIME: its label */
	char *from, *to;           /* of --from and --to, or NULL */
	bool has_mappings;         /* a profile holds some, counted or not */
	double mapped_peak;        /* of the peaks, the mappings' counted */
};

static void warn(void *ctx, const char *message)
{
	struct gathered *g = ctx;

	progress_done(&g->progress);
	fprintf(stderr, "memprof-report: warning: %s\n", message);
	add_message(&g->warnings, xstrdup(message));
}

static struct mlyze_stat *copy_stats(const struct mlyze_info *info)
{
	struct mlyze_stat *stats = xcalloc(info->stat_count + 1,
					   sizeof(*stats));

	for (size_t i = 0; i < info->stat_count; i++) {
		stats[i].key = xstrdup(info->stat_list[i].key);
		stats[i].value = info->stat_list[i].value;
	}
	return stats;
}

static char **copy_command_line(const struct mlyze_info *info)
{
	char **argv = xcalloc(info->command_line_length + 1, sizeof(char *));

	for (size_t i = 0; i < info->command_line_length; i++)
		argv[i] = xstrdup(info->command_line[i]);
	return argv;
}

/* The program that replaced the process by exec, or NULL. */
static char *replaced_by(const struct mlyze_info *info)
{
	if (!info->ended_by || strcmp(info->ended_by, "exec") != 0)
		return NULL;
	return xstrdup(info->exec_program ? info->exec_program : "?");
}

/* How a recording window that did not start with the process came to be,
 * or NULL.  A running process's has not ended. */
static char *recording_window(const struct mlyze_info *info, bool running)
{
	if (!info->started_by)
		return NULL;
	if (!info->ended_by && running)
		return xasprintf("started by %s, still recording",
				 info->started_by);
	return xasprintf("started by %s, ended by %s", info->started_by,
			 info->ended_by ? info->ended_by : "?");
}

static void map_stacks(struct stack_amounts *a, const size_t *stack_map)
{
	for (size_t k = 0; k < a->count; k++)
		a->stacks[k] = stack_map[a->stacks[k]];
}

/* The replay's series move to the summary; the stacks of its snapshots
 * become the report's (`stack_map`, see stacks_add_profile). */
static void take_series(struct profile_summary *p, struct heap_replay *h,
			const size_t *stack_map)
{
	p->timeline = h->timeline;
	p->timeline_count = h->timeline_count;
	p->marks = h->events_kept;
	p->mark_count = h->events_kept_count;
	p->snapshots = h->snapshots;
	p->snapshot_count = h->snapshot_count;
	p->allocated_after_snapshots = h->allocated_after_snapshots;
	for (size_t i = 0; i < p->snapshot_count; i++) {
		struct heap_snapshot *snap = &p->snapshots[i];

		for (size_t k = 0; k < snap->count; k++)
			snap->stacks[k] = stack_map[snap->stacks[k]];
		map_stacks(&snap->allocated, stack_map);
	}
	map_stacks(&p->allocated_after_snapshots, stack_map);
	p->memory = h->memory;
	memset(&h->memory, 0, sizeof(h->memory));
	h->timeline = NULL;
	h->events_kept = NULL;
	h->snapshots = NULL;
	memset(&h->allocated_after_snapshots, 0,
	       sizeof(h->allocated_after_snapshots));
	h->timeline_count = h->events_kept_count = h->snapshot_count = 0;
}

static void summarise(struct gathered *g, const char *file,
		      const mlyze_reader *r, const struct heap_replay *h)
{
	const struct mlyze_info *info = mlyze_info(r);
	struct profile_summary *p;
	uint64_t end = heap_replay_end_us(r, h);
	bool running = g->options->running && info->complete == 0;

	/* A running process has lived to now, whether it wrote events since
	 * its last or not (one that no longer allocates writes none). */
	if (running && g->options->running_until_us > end)
		end = g->options->running_until_us;

	g->profiles = xrealloc(g->profiles, g->profile_count + 1,
			       sizeof(*g->profiles));
	p = &g->profiles[g->profile_count++];
	memset(p, 0, sizeof(*p));
	p->file = xstrdup(file);
	p->pid = info->pid;
	p->start_time_us = info->start_time_us;
	p->command_line = copy_command_line(info);
	p->title = info->title ? xstrdup(info->title) : NULL;
	p->window = recording_window(info, g->options->running);
	p->duration_s = end > info->start_time_us
				? (double)(end - info->start_time_us) / 1e6
				: 0.0;
	p->sampling_rate = info->sampling_rate;
	p->rate_changed = h->rate_changed;
	p->complete = info->complete;
	p->running = running;
	p->truncated = mlyze_truncated(r);
	p->exec_program = replaced_by(info);
	p->malloc_defined_by = info->malloc_defined_by
				       ? xstrdup(info->malloc_defined_by)
				       : NULL;
	p->damaged_stacks = info->damaged_stacks;
	p->has_stack_methods = info->has_stack_methods;
	p->fp_stacks = info->fp_stacks;
	p->dwarf_stacks = info->dwarf_stacks;
	p->stats = copy_stats(info);
	p->stat_count = info->stat_count;
	p->events = h->events;
	p->checkpoints = h->checkpoints;
	if (h->checkpoints)
		p->kept_from_s =
			(double)(h->kept_from_us - info->start_time_us) / 1e6;
	p->peak_time_s = (double)(h->peak_time_us - info->start_time_us) / 1e6;
	p->peak = h->total.live[AT_PEAK];
	p->mapped_peak = h->mapped_peak_bytes;
	p->peak_level_share = h->peak_level_share;
	p->end = h->total.live[AT_END];
	p->at_time_s = (double)(h->at.passed_us - info->start_time_us) / 1e6;
}

static void add_stats(struct mlyze_stats *total, const struct mlyze_stats *s)
{
#define ADD(member, field) total->member += s->member;
	MLYZE_STATS_MEMBERS(ADD)
#undef ADD
}

/* "1 of 3 profiles could not be read and is left out: b.mlyze." */
static char *unread_note(const struct messages *files, size_t total)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "%zu of %zu profiles could not be read and %s left "
		  "out:", files->count, total,
		  files->count == 1 ? "is" : "are");
	for (size_t i = 0; i < files->count; i++)
		sb_printf(&sb, "%s %s", i ? "," : "", files->items[i]);
	sb_add(&sb, ".");
	return sb_take(&sb);
}

/* The sum of the peaks of resident memory of the profiles in *peaks;
 * returns how many profiles read it. */
static size_t resident_peaks(const struct gathered *g,
			     struct memory_point *peaks)
{
	size_t processes = 0;

	*peaks = (struct memory_point){ 0 };
	for (size_t i = 0; i < g->profile_count; i++)
		processes += memory_peak_add(peaks, &g->profiles[i].memory);
	return processes;
}

/* The profiles whose program's malloc was not the runtime's. */
static struct unseen_malloc unseen_malloc_of(const struct gathered *g)
{
	struct unseen_malloc unseen = { .of = g->profile_count };

	for (size_t i = 0; i < g->profile_count; i++) {
		const char *defined_by = g->profiles[i].malloc_defined_by;

		if (!defined_by)
			continue;
		if (!unseen.defined_by)
			unseen.defined_by = defined_by;
		unseen.profiles++;
	}
	return unseen;
}

/* "Only the blocks allocated from 2 s to marker done are counted ..." */
static char *stretch_note(const struct gathered *g)
{
	return xasprintf(
		"Only the blocks allocated from %s to %s are counted (--from, "
		"--to), in every estimate and over time; %" PRIu64 " sampled "
		"block%s allocated outside %s left out.",
		g->from ? g->from : "the start", g->to ? g->to : "the end",
		g->born_outside, g->born_outside == 1 ? "" : "s",
		g->born_outside == 1 ? "is" : "are");
}

/* Caveats of all the profiles together, in plain words. */
static void note_caveats(struct gathered *g)
{
	const struct mlyze_stats *s = &g->stats;
	uint64_t dropped = s->heap_map_full_drops + s->stack_table_drops;

	char *broken_stacks = stacks_health_note(&g->result.stacks);
	struct memory_point peaks;
	size_t processes = resident_peaks(g, &peaks);
	struct unseen_malloc unseen = unseen_malloc_of(g);
	char *memory = memory_explained_note(
		&peaks, processes, g->result.stacks.heap.live[AT_PEAK].bytes,
		g->mapped_peak, &unseen);

	if (memory)
		add_message(&g->notes, memory);
	if (g->from || g->to)
		add_message(&g->notes, stretch_note(g));
	if (broken_stacks)
		add_message(&g->notes, broken_stacks);
	if (dropped)
		add_message(&g->notes, xasprintf(
			"The runtime dropped %" PRIu64 " samples because its "
			"tables were full; the estimates are too low.",
			dropped));
	if (g->unread.count)
		add_message(&g->notes, unread_note(&g->unread,
						   g->unread.count +
							   g->profile_count));
	if (s->events_dropped)
		add_message(&g->notes, xasprintf(
			"%" PRIu64 " events could not be written; the "
			"estimates may be wrong.", s->events_dropped));
	for (size_t i = 0; i < g->profile_count; i++) {
		if (g->profiles[i].window) {
			add_message(&g->notes, xstrdup(
				"A recording window started in a running "
				"process: blocks allocated before it are "
				"unknown to the profile, and their frees are "
				"not counted."));
			break;
		}
	}
}

static void warn_replaced(struct gathered *g, const char *file,
			  const struct heap_replay *h)
{
	char *message;

	if (!h->replaced)
		return;
	message = xasprintf("%s: offset %" PRIu64 ": ALLOC at an address that "
			    "is already live (%" PRIu64 " such ALLOC%s in this "
			    "profile); the earlier block counts as freed",
			    file, h->first_replaced_offset, h->replaced,
			    h->replaced == 1 ? "" : "s");
	warn(g, message);
	free(message);
}

/* A profile with a size limit keeps its events after its last
 * checkpoint only: say where what it shows over time starts. */
static void note_checkpoints(struct gathered *g, const char *file,
			     const mlyze_reader *r, const struct heap_replay *h)
{
	uint64_t start = mlyze_info(r)->start_time_us;

	if (!h->checkpoints)
		return;
	add_message(&g->notes, xasprintf(
		"%s: its size limit discarded the %" PRIu64 " events before "
		"%.1f s (%" PRIu64 " checkpoint%s): the live heap over time "
		"has one point per checkpoint until then, every event after; "
		"the peak, the trends and the markers are those from %.1f s "
		"on; the totals allocated are since the start.",
		file, h->events_discarded,
		(double)(h->kept_from_us - start) / 1e6, h->checkpoints,
		h->checkpoints == 1 ? "" : "s",
		(double)(h->kept_from_us - start) / 1e6));
}

/* What the replay of one profile told of its blocks joins the report's
 * (its stacks as stack_map says, see stacks_add_profile). */
static void take_blocks(struct gathered *g, const char *file,
			const struct class_table *cells,
			const struct heap_replay *h, const size_t *stack_map,
			const mlyze_reader *r)
{
	if (g->blocks->view == BLOCKS_THREADS)
		blocks_add_threads(&g->table, cells, h->thread_names,
				   g->several_files ? mlyze_info(r)->pid : 0);
	else
		class_table_merge(&g->cells, cells, stack_map);
	if (h->checkpoints)
		add_message(&g->notes, xasprintf(
			"%s: this view counts the blocks allocated after its "
			"last checkpoint only (the lives of those before it "
			"were discarded).", file));
}

/* What --thread left out of a profile that the report should say; and
 * what it followed, and the names it could have chosen, for
 * check_thread_filter. */
static void note_thread_filter(struct gathered *g, const char *file,
			       const struct heap_replay *h)
{
	g->thread_blocks += h->thread_blocks;
	for (size_t i = 0; h->thread_names && i < THREAD_IDS; i++) {
		size_t k = 0;

		if (!h->thread_names[i])
			continue;
		while (k < g->thread_names.count &&
		       strcmp(g->thread_names.items[k], h->thread_names[i]))
			k++;
		if (k == g->thread_names.count)
			add_message(&g->thread_names,
				    xstrdup(h->thread_names[i]));
	}
	if (h->totals_left_out)
		add_message(&g->notes, xasprintf(
			"%s: --thread leaves out what was allocated before "
			"its checkpoint (its totals do not say by which "
			"thread).", file));
	if (g->thread->name && !h->thread_names)
		add_message(&g->notes, xasprintf(
			"%s: no thread has a name in this profile (its "
			"runtime did not record them, or could not read "
			"/proc): --thread=%s matches none; give a thread's "
			"id.", file, g->thread->name));
}

/* A --thread that no sampled block of the profiles read was allocated
 * by is a usage error, as a marker they do not have is: an empty report
 * would read as a program that allocated too little to be seen.  The
 * message names the threads that could be chosen. */
static void check_thread_filter(const struct gathered *g)
{
	const struct thread_filter *f = g->thread;
	const size_t shown = 10;

	if (!f || g->thread_blocks || !g->profile_count)
		return;
	if (f->name)
		fprintf(stderr, "memprof-report: --thread=%s: no sampled "
			"block was allocated by a thread of that name", f->name);
	else
		fprintf(stderr, "memprof-report: --thread=%u: no sampled "
			"block was allocated by a thread of that id (its low "
			"16 bits)", (unsigned)f->id);
	for (size_t i = 0; i < g->thread_names.count && i < shown; i++)
		fprintf(stderr, "%s%s", i ? ", " : "; the threads named in "
			"the profiles: ", g->thread_names.items[i]);
	if (g->thread_names.count > shown)
		fprintf(stderr, " and %zu more",
			g->thread_names.count - shown);
	if (!g->thread_names.count)
		fprintf(stderr, "; no thread has a name in the profiles");
	fputs(" (--group-by thread lists the threads with their ids)\n",
	      stderr);
	exit(2);
}

/* The moments of --at, --from and --to must be moments of the profile
 * that its events show, and the stretch must not be empty; else a usage
 * error. */
static void check_moments(const char *file, const mlyze_reader *r,
			  const struct heap_replay *h)
{
	const struct mlyze_info *info = mlyze_info(r);
	uint64_t end = heap_replay_end_us(r, h);
	const struct moment_track *tracks[] = { &h->at, &h->from, &h->to };
	char why[4096 + 512];

	for (size_t i = 0; i < sizeof(tracks) / sizeof(tracks[0]); i++) {
		struct moment_bounds bounds = {
			.file = file,
			.duration_s = (double)(end - info->start_time_us) / 1e6,
			.kept_from_s = h->checkpoints
					       ? (double)(h->kept_from_us -
							  info->start_time_us) /
							 1e6
					       : 0,
			.passed = tracks[i]->passed,
		};

		if (tracks[i]->spec &&
		    moment_check(tracks[i]->spec, &bounds, why,
				 sizeof(why)) < 0) {
			fprintf(stderr, "memprof-report: %s\n", why);
			exit(2);
		}
	}
	if (h->from.passed && h->to.passed &&
	    h->to.passed_us <= h->from.passed_us) {
		fprintf(stderr, "memprof-report: --from %s, --to %s: in %s, "
			"the stretch between them is empty (--to comes at "
			"%.3f s, --from at %.3f s)\n", h->from.spec->text,
			h->to.spec->text, file,
			(double)(h->to.passed_us - info->start_time_us) / 1e6,
			(double)(h->from.passed_us - info->start_time_us) / 1e6);
		exit(2);
	}
}

/* The hooks of the engine (report_hooks) that gather what the report
 * says of each profile.  A profile that cannot be read is named on
 * stderr and left out. */
static void profile_opened(void *ctx, const char *file,
			   const mlyze_reader *r, struct replay_options *replaying)
{
	struct gathered *g = ctx;

	class_table_init(&g->collector.cells);
	progress_start(&g->progress, file);
	/* The trends of a running process's stream run to now. */
	if (mlyze_info(r)->complete == 0)
		replaying->until_us = g->options->running_until_us;
}

static void profile_failed(void *ctx, const char *file, const mlyze_reader *r)
{
	struct gathered *g = ctx;

	progress_done(&g->progress);
	fprintf(stderr, "memprof-report: %s\n", mlyze_error(r));
	add_message(&g->unread, xstrdup(file));
	class_table_free(&g->collector.cells);
}

static void profile_replayed(void *ctx, const char *file,
			     const mlyze_reader *r, struct heap_replay *h)
{
	struct gathered *g = ctx;

	progress_done(&g->progress);
	check_moments(file, r, h);
	g->born_outside += h->born_outside;
	summarise(g, file, r, h);
	g->has_mappings |= h->has_mappings;
	g->mapped_peak += h->mapped_peak_bytes;
	add_stats(&g->stats, &mlyze_info(r)->stats);
	warn_replaced(g, file, h);
	note_checkpoints(g, file, r, h);
}

static void profile_merged(void *ctx, const char *file, const mlyze_reader *r,
			   struct heap_replay *h, const size_t *stack_map)
{
	struct gathered *g = ctx;

	if (g->blocks)
		take_blocks(g, file, &g->collector.cells, h, stack_map, r);
	if (g->thread)
		note_thread_filter(g, file, h);
	class_table_free(&g->collector.cells);
	take_series(&g->profiles[g->profile_count - 1], h, stack_map);
}

static void all_profiles_merged(void *ctx, const struct stack_table *stacks)
{
	(void)stacks;
	note_caveats(ctx);
}

static void free_series(struct profile_summary *p)
{
	struct heap_replay series = {
		.timeline = p->timeline,
		.events_kept = p->marks,
		.events_kept_count = p->mark_count,
		.snapshots = p->snapshots,
		.snapshot_count = p->snapshot_count,
		.allocated_after_snapshots = p->allocated_after_snapshots,
		.memory = p->memory,
	};

	heap_replay_free(&series);
}

static void free_gathered(struct gathered *g)
{
	for (size_t i = 0; i < g->profile_count; i++) {
		struct profile_summary *p = &g->profiles[i];

		for (char **arg = p->command_line; *arg; arg++)
			free(*arg);
		free(p->command_line);
		for (size_t k = 0; k < p->stat_count; k++)
			free((char *)p->stats[k].key);
		free(p->stats);
		free(p->title);
		free(p->window);
		free(p->exec_program);
		free(p->malloc_defined_by);
		free(p->file);
		free_series(p);
	}
	free(g->profiles);
	if (g->blocks) {
		class_table_free(&g->cells);
		block_table_free(&g->table);
	}
	report_result_free(&g->result);
	frame_namer_free(g->namer);
	free_messages(&g->warnings);
	free_messages(&g->notes);
	free_messages(&g->unread);
	free_messages(&g->thread_names);
	free(g->moment);
	free(g->from);
	free(g->to);
}

/* The sites a table shows: without --all, a table of live bytes leaves
 * out the sites with nothing live at its moment (sorted last). */
static size_t shown_sites(const struct site_table *sites,
			  const struct options *o)
{
	size_t n = sites->count;

	if (o->all || o->sort != SORT_BY_LIVE)
		return n;
	while (n > 0 && sites->sites[n - 1].heap.live[o->at].samples == 0)
		n--;
	return n;
}

/* Write the view to -o FILE or standard output; returns 0 or 1. */
static int write_view(const struct options *o, const struct view *view,
		      const struct report *report)
{
	FILE *out = o->output ? fopen(o->output, "w") : stdout;
	const char *name = o->output ? o->output : "standard output";
	int failed;

	if (!out) {
		fprintf(stderr, "memprof-report: %s: %s\n", o->output,
			strerror(errno));
		return 1;
	}
	failed = view->write(out, report) < 0;
	failed |= fflush(out) != 0 || ferror(out);
	if (o->output)
		failed |= fclose(out) != 0;
	if (failed)
		fprintf(stderr, "memprof-report: %s: write error: %s\n", name,
			strerror(errno));
	return failed;
}

static bool colour_wanted(const struct options *o)
{
	return !o->output && isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL;
}

/* How the modules are found: under `sysroot`, the debug files in the
 * --debug-dir directories too; warnings go to g. */
static struct symbolizer_options symbolizing(struct gathered *g,
					     const struct options *o,
					     const char *sysroot)
{
	return (struct symbolizer_options){
		.sysroot = sysroot,
		.debug_dirs = o->debug_dirs,
		.n_debug_dirs = o->debug_dir_count,
		.warn = warn,
		.warn_ctx = g,
	};
}

/* Whether the sites are ranked by their growth: for --leaks, --growth,
 * or a view that shows the growing sites, unless it shows blocks or
 * compares. */
static bool ranks_growth(const struct options *o)
{
	return !o->base_count && !o->blocks_wanted &&
	       (o->leaks || o->growth || o->view->shows_growth);
}

/* What the replay of each profile measures for the view. */
static struct replay_options replaying(struct gathered *g,
				       const struct options *o)
{
	return (struct replay_options){
		.tick = progress_tick,
		.tick_ctx = &g->progress,
		.snapshots = o->view->snapshots,
		/* A comparison shows no growth: its base needs none either. */
		.growth = o->leaks || o->growth ||
			  (o->view->shows_growth && !o->base_count),
		.block_ended = g->blocks ? blocks_collect : NULL,
		.block_ended_ctx = &g->collector,
		.thread = g->thread,
		.at = o->at == AT_TIME ? &o->at_spec : NULL,
		.from = o->from.kind ? &o->from : NULL,
		.to = o->to.kind ? &o->to : NULL,
		.kinds = o->kinds ? o->kinds : KIND_ALL,
	};
}

/* Read `files` into g, their modules found under `sysroot`, their
 * stacks made into sites as the options say.  Returns the exit status
 * of reading them: 0 when all could be read, else 1, or 2 when none
 * could and one broke the format. */
static int gather(struct gathered *g, const struct options *o,
		  const char *sysroot, char **files, int count)
{
	struct symbolizer_options so = symbolizing(g, o, sysroot);
	struct report_request request = {
		.files = (const char *const *)files,
		.count = (size_t)count,
		.reading = { .warn = warn, .warn_ctx = g },
		.until = ranks_growth(o) ? REPORT_LEAKS : REPORT_SITES,
		.label_pid = o->label_pid,
		.suppressions = o->suppressions,
		.keep_wrappers = o->keep_wrappers,
		.grouping = o->grouping,
		.cumulative = o->cumulative,
		.sort = o->sort,
		.at = o->at,
		.per_marker_when_marked = true,
		.hooks = { .ctx = g,
			   .opened = profile_opened,
			   .failed = profile_failed,
			   .replayed = profile_replayed,
			   .merged = profile_merged,
			   .all_merged = all_profiles_merged },
	};

	g->namer = request.namer = frame_namer_new(&so);
	g->options = o;
	g->thread = o->thread;
	g->several_files = count > 1;
	if (o->blocks_wanted) {
		g->blocks = g->collector.options = &o->blocks;
		class_table_init(&g->cells);
		block_table_init(&g->table, &o->blocks);
	}
	if (o->from.kind)
		g->from = moment_label(&o->from);
	if (o->to.kind)
		g->to = moment_label(&o->to);
	request.replaying = replaying(g, o);
	report_engine_run(&request, &g->result);
	if (!g->result.failed)
		return 0;
	return g->result.read == 0 && g->result.malformed ? 2 : 1;
}

/* The report of what g gathered (what its sites show adds to g's
 * notes). */
static struct report make_report(struct gathered *g, const struct options *o)
{
	const struct stack_table *stacks = &g->result.stacks;
	const struct site_table *sites = &g->result.sites;
	char *unnamed, *wrappers;
	struct memory_point resident;
	size_t resident_processes = resident_peaks(g, &resident);

	if (o->suppressions)
		add_message(&g->notes, suppressions_note(o->suppressions));
	if (!o->keep_wrappers) {
		wrappers = wrappers_note(stacks);
		if (wrappers)
			add_message(&g->notes, wrappers);
	}
	if (o->at == AT_TIME && !g->moment)
		g->moment = moment_label(&o->at_spec);
	unnamed = sites_unnamed_note(sites, stacks);
	if (unnamed)
		add_message(&g->notes, unnamed);
	return (struct report){
		.profiles = g->profiles,
		.profile_count = g->profile_count,
		.stacks = stacks,
		.sites = sites,
		.shown_sites = shown_sites(sites, o),
		.leaks = ranks_growth(o) ? &g->result.leaks : NULL,
		.top = o->top,
		.grouping = o->grouping,
		.sort = o->sort,
		.at = o->at,
		.moment = g->moment,
		.moment_is_marker = o->at_spec.kind == MOMENT_MARKER,
		.from = g->from,
		.to = g->to,
		.born_outside = g->born_outside,
		.colour = colour_wanted(o),
		.all = o->all,
		.resident = resident,
		.resident_processes = resident_processes,
		.unseen_malloc = unseen_malloc_of(g),
		.mapped_peak = g->mapped_peak,
		.notes = g->notes.items,
		.note_count = g->notes.count,
		.warnings = g->warnings.items,
		.warning_count = g->warnings.count,
	};
}

/* --base: what changed from the base profiles to `report`'s.  Returns the
 * exit status. */
static int write_comparison(const struct options *o, struct report *report)
{
	struct gathered g = { 0 };
	struct comparison comparison;
	struct report base;
	struct view view;
	int rc = gather(&g, o, o->base_sysroot ? o->base_sysroot : o->sysroot,
			o->base_files, (int)o->base_count);

	if (g.profile_count == 0)
		return rc ? rc : 1;
	base = make_report(&g, o);
	compare_sites(&comparison, base.sites, report->sites, o->sort, o->at);
	report->base = &base;
	report->comparison = &comparison;
	view = *o->view;
	view.write = view.write_comparison;
	if (write_view(o, &view, report) != 0)
		rc = 1;
	report->base = NULL;
	report->comparison = NULL;
	comparison_free(&comparison);
	free_gathered(&g);
	return rc;
}

/* The report with the sites ranked by their growth: the view of
 * --leaks, a view that shows the growing sites, or one with a column of
 * growth (--growth).  Returns 0 or 1. */
static int write_with_growth(const struct options *o, struct report *report)
{
	struct view view = *o->view;

	if (o->leaks)
		view.write = view.write_leaks;
	return write_view(o, &view, report);
}

/* --temporary, --histogram or --group-by thread.  Returns 0 or 1. */
static int write_blocks(const struct options *o, struct gathered *g,
			struct report *report)
{
	struct view view = *o->view;

	if (o->blocks.view == BLOCKS_THREADS)
		blocks_sort_threads(&g->table);
	else
		blocks_tabulate(&g->table, &g->cells, &g->result.sites,
				&g->result.stacks, o->all);
	report->blocks = &g->table;
	view.write = view.write_blocks;
	return write_view(o, &view, report);
}

int main(int argc, char **argv)
{
	struct options o = { .top = DEFAULT_TOP,
			     .blocks.temporary_us = TEMPORARY_DEFAULT_US };
	struct gathered g = { 0 };
	int first = parse_options(argc, argv, &o);
	struct report report;
	struct symbolizer_options so;
	int rc;

	if (o.symbolize) {
		so = symbolizing(&g, &o, o.sysroot);
		rc = symbolize_profile(argv[first], o.output, &so);
		free_messages(&g.warnings);
		free(o.debug_dirs);
		return rc;
	}
	rc = gather(&g, &o, o.sysroot, argv + first, argc - first);

	if (g.profile_count == 0)
		exit(rc);
	check_thread_filter(&g);
	report = make_report(&g, &o);
	if (o.base_count) {
		int base_rc = write_comparison(&o, &report);

		rc = rc ? rc : base_rc;
	} else if (o.blocks_wanted) {
		rc |= write_blocks(&o, &g, &report);
	} else if (ranks_growth(&o)) {
		rc |= write_with_growth(&o, &report);
	} else if (write_view(&o, o.view, &report) != 0) {
		rc = 1;
	}
	free_gathered(&g);
	free(o.debug_dirs);
	free(o.base_files);
	if (o.suppressions)
		suppressions_free(o.suppressions);
	free(o.suppressions);
	return rc;
}
