/* symbolizer-test.c - unit tests of the offline symbolizer.
 *
 * Contract: resolves the fixtures make-fixtures.sh builds (a PIE program, a
 * shared library, stripped copies with their debug files found by build-id,
 * debuglink and sysroot, damaged files) and compares with what the fixture
 * program reports about itself at run time.  Also resolves addresses in the
 * C library many times and prints the lookup rate (informative, not
 * checked).
 */
#include <config.h>

#include <check.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "object-info.h"
#include "symbolizer.h"

#define FIXTURES SYMBOLIZER_FIXTURES_DIR
#define FIXTURE FIXTURES "/fixture"
#define LIBRARY FIXTURES "/libfixture.so"

/* What the fixture program says about itself. */
static struct {
	char build_id[129];
	uint64_t leaf, scale, increment, inlined, ends_with_call, library;
	unsigned leaf_line, inlined_line, library_line;
	unsigned innermost_call_line, helper_call_line;
	char library_build_id[129];
} fixture;

static void die(const char *message)
{
	fprintf(stderr, "symbolizer-test: %s\n", message);
	exit(1);
}

static void parse_fixture_line(const char *line)
{
	unsigned seen = 0;

	seen += sscanf(line, "build_id %128s", fixture.build_id) == 1;
	seen += sscanf(line, "function fixture_leaf %" SCNx64 " %u",
		       &fixture.leaf, &fixture.leaf_line) == 2;
	seen += sscanf(line, "function _ZN7example5scaleEi %" SCNx64,
		       &fixture.scale) == 1;
	seen += sscanf(line, "function fixture_increment %" SCNx64,
		       &fixture.increment) == 1;
	seen += sscanf(line, "inlined %" SCNx64 " %u %u %u", &fixture.inlined,
		       &fixture.inlined_line, &fixture.innermost_call_line,
		       &fixture.helper_call_line) == 4;
	seen += sscanf(line, "library fixture_lib_function %" SCNx64 " %u %128s",
		       &fixture.library, &fixture.library_line,
		       fixture.library_build_id) == 3;
	seen += sscanf(line, "ends_with_call %" SCNx64,
		       &fixture.ends_with_call) == 1;
	if (seen != 1)
		die("unexpected line from the fixture program");
}

/* Runs once, before the tests fork, so every test sees the results. */
static void read_fixture_report(void)
{
	FILE *p = popen(FIXTURE " " LIBRARY, "r");
	char line[512];

	if (p == NULL)
		die("cannot run " FIXTURE);
	while (fgets(line, sizeof line, p) != NULL)
		parse_fixture_line(line);
	if (pclose(p) != 0 || fixture.ends_with_call == 0 ||
	    fixture.library_build_id[0] == '\0')
		die(FIXTURE " failed or reported too little");
}

struct warnings {
	int count;
	char last[1024];
};

static void collect_warning(void *ctx, const char *message)
{
	struct warnings *w = ctx;

	w->count++;
	snprintf(w->last, sizeof w->last, "%s", message);
}

static struct symbolizer *new_symbolizer(struct warnings *w,
					 const char *sysroot,
					 const char *debug_dir)
{
	struct symbolizer_options opts = {
		.sysroot = sysroot,
		.debug_dirs = &debug_dir,
		.n_debug_dirs = debug_dir != NULL,
		.warn = collect_warning,
		.warn_ctx = w,
	};
	struct symbolizer *s = symbolizer_new(&opts);

	memset(w, 0, sizeof *w);
	ck_assert_ptr_nonnull(s);
	return s;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The lookup succeeds and names `function` at file:line (line 0: any). */
static void check_resolves(struct symbolizer *s, const char *path,
			   const char *build_id, uint64_t offset,
			   int is_return_address, const char *function,
			   const char *file, unsigned line)
{
	struct symbol_info info;

	ck_assert_int_eq(symbolizer_lookup(s, path, build_id, offset,
					   is_return_address, &info),
			 0);
	ck_assert_ptr_nonnull(info.function);
	ck_assert_str_eq(info.function, function);
	if (file == NULL)
		return;
	ck_assert_msg(info.file != NULL && ends_with(info.file, file),
		      "file %s, expected .../%s", info.file, file);
	if (line != 0)
		ck_assert_uint_eq(info.line, line);
}

static void check_leaf(struct symbolizer *s, const char *path)
{
	check_resolves(s, path, fixture.build_id, fixture.leaf, 0,
		       "fixture_leaf", "fixture-main.c", fixture.leaf_line);
}

/* A lookup in the fixtures that carry their own symbols and DWARF, and
 * what it must find. */
struct expected_lookup {
	const char *path;
	const char *build_id;
	const uint64_t *offset;
	int is_return_address;
	const char *function;
	const char *file;
	const unsigned *line; /* NULL: any */
};

static const struct expected_lookup expected_lookups[] = {
	{ FIXTURE, fixture.build_id, &fixture.leaf, 0, "fixture_leaf",
	  "fixture-main.c", &fixture.leaf_line },
	/* Clang links without .debug_aranges. */
	{ FIXTURES "/fixture-no-aranges", fixture.build_id, &fixture.leaf, 0,
	  "fixture_leaf", "fixture-main.c", &fixture.leaf_line },
	{ FIXTURE, NULL, &fixture.scale, 0, "example::scale(int)",
	  "fixture-main.c", NULL },
	{ FIXTURE, NULL, &fixture.increment, 0, "fixture_increment",
	  "fixture-main.c", NULL },
	{ FIXTURE, NULL, &fixture.ends_with_call, 1, "fixture_ends_with_call",
	  "fixture-main.c", NULL },
	{ FIXTURE, NULL, &fixture.inlined, 1, "fixture_with_inlined",
	  "fixture-main.c", &fixture.inlined_line },
	{ LIBRARY, fixture.library_build_id, &fixture.library, 0,
	  "fixture_lib_function", "fixture-lib.c", &fixture.library_line },
};

START_TEST(resolves_expected_lookup)
{
	const struct expected_lookup *e = &expected_lookups[_i];
	struct warnings w;
	struct symbolizer *s = new_symbolizer(&w, NULL, NULL);

	check_resolves(s, e->path, e->build_id, *e->offset,
		       e->is_return_address, e->function, e->file,
		       e->line != NULL ? *e->line : 0);
	ck_assert_int_eq(w.count, 0);
	symbolizer_free(s);
}
END_TEST

START_TEST(resolves_inside_function)
{
	struct warnings w;
	struct symbolizer *s = new_symbolizer(&w, NULL, NULL);

	check_resolves(s, FIXTURE, fixture.build_id, fixture.leaf + 1, 0,
		       "fixture_leaf", "fixture-main.c", 0);
	symbolizer_free(s);
}
END_TEST

/* One entry of a chain of inlined functions. */
static void check_chain_entry(const struct symbol_info *info,
			      const char *function, int inlined, unsigned line)
{
	ck_assert_ptr_nonnull(info->function);
	ck_assert_str_eq(info->function, function);
	ck_assert_int_eq(info->inlined, inlined);
	ck_assert_msg(info->file != NULL &&
			      ends_with(info->file, "fixture-main.c"),
		      "%s: file %s", function, info->file);
	ck_assert_uint_eq(info->line, line);
}

/* The inlined chain at `offset` in the fixture program. */
static int fixture_chain(struct symbolizer *s, uint64_t offset,
			 int is_return_address, struct symbol_info *chain,
			 size_t max)
{
	return symbolizer_lookup_inlined(s, FIXTURE, fixture.build_id, offset,
					 is_return_address, chain, max);
}

START_TEST(expands_inlined_functions)
{
	struct warnings w;
	struct symbolizer *s = new_symbolizer(&w, NULL, NULL);
	struct symbol_info chain[8];

	ck_assert_int_eq(fixture_chain(s, fixture.inlined, 1, chain, 8), 3);
	check_chain_entry(&chain[0], "inlined_innermost", 1,
			  fixture.innermost_call_line);
	check_chain_entry(&chain[1], "inlined_helper", 1,
			  fixture.helper_call_line);
	check_chain_entry(&chain[2], "fixture_with_inlined", 0,
			  fixture.inlined_line);
	/* Without room, the innermost inlined function and the function
	 * that holds it. */
	ck_assert_int_eq(fixture_chain(s, fixture.inlined, 1, chain, 2), 2);
	check_chain_entry(&chain[0], "inlined_innermost", 1,
			  fixture.innermost_call_line);
	check_chain_entry(&chain[1], "fixture_with_inlined", 0,
			  fixture.inlined_line);
	/* Code that inlines nothing is one function. */
	ck_assert_int_eq(fixture_chain(s, fixture.leaf, 0, chain, 8), 1);
	check_chain_entry(&chain[0], "fixture_leaf", 0, fixture.leaf_line);
	ck_assert_int_eq(w.count, 0);
	symbolizer_free(s);
}
END_TEST

/* A lookup that must fail, quietly. */
static void check_unknown(const char *path, const char *build_id,
			  uint64_t offset, int is_return_address)
{
	struct warnings w;
	struct symbolizer *s = new_symbolizer(&w, NULL, NULL);
	struct symbol_info info;

	ck_assert_int_eq(symbolizer_lookup(s, path, build_id, offset,
					   is_return_address, &info),
			 -1);
	ck_assert_ptr_null(info.function);
	ck_assert_ptr_null(info.file);
	ck_assert_int_eq(w.count, 0);
	symbolizer_free(s);
}

START_TEST(unknown_address_gives_minus_one)
{
	check_unknown(FIXTURE, NULL, 0, 0);
	check_unknown(FIXTURE, NULL, UINT64_C(1) << 40, 1);
}
END_TEST

/* The return address of a call that ends its function lies past the
 * function's end: without the adjustment it would not resolve to it. */
START_TEST(return_address_adjustment_matters)
{
	struct warnings w;
	struct symbolizer *s = new_symbolizer(&w, NULL, NULL);
	struct symbol_info info;
	int found = symbolizer_lookup(s, FIXTURE, NULL, fixture.ends_with_call,
				      0, &info);

	ck_assert(found != 0 || info.function == NULL ||
		  strcmp(info.function, "fixture_ends_with_call") != 0);
	symbolizer_free(s);
}
END_TEST

/* Stripped copies of the fixture, and where their debug files are. */
static const struct {
	const char *sysroot;
	const char *debug_dir;
	const char *path;
} stripped_copies[] = {
	/* By build-id, in a debug directory. */
	{ NULL, FIXTURES "/debug-root", FIXTURES "/fixture-stripped" },
	/* By .gnu_debuglink, in the .debug/ directory next to the module. */
	{ NULL, NULL, FIXTURES "/debuglink/fixture-debuglink" },
	/* By build-id, in the sysroot's /usr/lib/debug. */
	{ FIXTURES "/sysroot/", NULL, "/opt/fixture-stripped" },
};

START_TEST(finds_debug_file)
{
	struct warnings w;
	struct symbolizer *s = new_symbolizer(&w, stripped_copies[_i].sysroot,
					      stripped_copies[_i].debug_dir);

	check_leaf(s, stripped_copies[_i].path);
	ck_assert_int_eq(w.count, 0);
	symbolizer_free(s);
}
END_TEST

START_TEST(stripped_without_debug_file_gives_minus_one)
{
	struct warnings w;
	struct symbolizer *s = new_symbolizer(&w, NULL, NULL);

	check_unknown(FIXTURES "/fixture-stripped", fixture.build_id,
		      fixture.leaf, 0);
	/* Nothing to name its code with, but the file itself is fine. */
	ck_assert_int_eq(symbolizer_module_readable(
				 s, FIXTURES "/fixture-stripped",
				 fixture.build_id),
			 1);
	ck_assert_int_eq(w.count, 0);
	symbolizer_free(s);
}
END_TEST

START_TEST(build_id_mismatch_warns_once_and_resolves)
{
	struct warnings w;
	struct symbolizer *s = new_symbolizer(&w, NULL, NULL);
	char other[sizeof fixture.build_id];

	memcpy(other, fixture.build_id, sizeof other);
	other[0] = other[0] == '0' ? '1' : '0';
	check_resolves(s, FIXTURE, other, fixture.leaf, 0, "fixture_leaf",
		       NULL, 0);
	check_resolves(s, FIXTURE, other, fixture.scale, 0,
		       "example::scale(int)", NULL, 0);
	ck_assert_int_eq(w.count, 1);
	ck_assert_str_eq(w.last, FIXTURE ": build-id differs from the profile "
				 "(file changed since profiling); symbols may "
				 "be wrong");
	/* Upper-case hex is the same build-id. */
	for (char *c = other; *c != '\0'; c++)
		*c = (char)(*c >= 'a' && *c <= 'f' ? *c - 'a' + 'A' : *c);
	memcpy(other, fixture.build_id, 1);
	check_resolves(s, FIXTURE, other, fixture.leaf, 0, "fixture_leaf",
		       NULL, 0);
	ck_assert_int_eq(w.count, 1);
	symbolizer_free(s);
}
END_TEST

/* Modules whose lookups fail, the problem their warning names, and
 * whether their file could be read all the same. */
static const struct {
	const char *path;
	const char *problem;
	int readable;
} unusable_modules[] = {
	{ FIXTURES "/no-such-file", "No such file", 0 },
	{ FIXTURES "/garbage", "not an ELF file", 0 },
	{ FIXTURES "/truncated", "truncated", 0 },
	{ FIXTURES, "not a regular file", 0 },
	/* Stripped, and its debuglink names a file that changed since. */
	{ FIXTURES "/badcrc/fixture-badcrc", "fixture-badcrc.debug", 1 },
};

START_TEST(unusable_module_warns_once)
{
	const char *path = unusable_modules[_i].path;
	struct warnings w;
	struct symbolizer *s = new_symbolizer(&w, NULL, NULL);
	struct symbol_info info;

	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(symbolizer_lookup(s, path, NULL,
						   fixture.leaf + i, 1, &info),
				 -1);
	ck_assert_int_eq(symbolizer_module_readable(s, path, NULL),
			 unusable_modules[_i].readable);
	ck_assert_int_eq(w.count, 1);
	ck_assert_msg(strncmp(w.last, path, strlen(path)) == 0 &&
			      strstr(w.last, unusable_modules[_i].problem),
		      "warning: %s", w.last);
	symbolizer_free(s);
}
END_TEST

static void write_file(const char *path, const char *bytes, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, bytes, size), (ssize_t)size);
	ck_assert_int_eq(close(fd), 0);
}

static char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *bytes;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fstat(fileno(f), &st), 0);
	bytes = malloc((size_t)st.st_size);
	ck_assert_ptr_nonnull(bytes);
	ck_assert_uint_eq(fread(bytes, 1, (size_t)st.st_size, f),
			  (size_t)st.st_size);
	fclose(f);
	*size = (size_t)st.st_size;
	return bytes;
}

/* Variant n of `original`: cut short for even n, with bytes overwritten
 * (deterministically) for odd n. */
static size_t damage(const char *original, size_t size, char *copy,
		     unsigned n)
{
	uint32_t state = 2463534242u + n;

	memcpy(copy, original, size);
	if (n % 2 == 0)
		return size * n / 256;
	for (int i = 0; i < 16; i++) {
		state ^= state << 13;
		state ^= state >> 17;
		state ^= state << 5;
		copy[state % size] = (char)(state >> 24);
	}
	return size;
}

/* Looks up every fixture address in `path` (its debug file, when
 * debug_dir is set) for each damaged variant written over `target`. */
static void survive_damaged_copies(const char *original_path,
				   const char *target, const char *path,
				   const char *debug_dir)
{
	size_t size;
	char *original = read_file(original_path, &size);
	char *copy = malloc(size);
	const uint64_t offsets[] = { fixture.leaf, fixture.scale,
				     fixture.inlined, fixture.ends_with_call };

	ck_assert_ptr_nonnull(copy);
	for (unsigned n = 0; n < 256; n++) {
		struct warnings w;
		struct symbolizer *s;
		struct symbol_info info;

		write_file(target, copy, damage(original, size, copy, n));
		s = new_symbolizer(&w, NULL, debug_dir);
		for (size_t i = 0; i < sizeof offsets / sizeof *offsets; i++)
			(void)symbolizer_lookup(s, path, fixture.build_id,
						offsets[i], 1, &info);
		/* Unmap before the next variant rewrites the file. */
		symbolizer_free(s);
	}
	free(original);
	free(copy);
}

START_TEST(damaged_module_files_never_crash)
{
	const char *path = FIXTURES "/damaged-module";

	survive_damaged_copies(FIXTURE, path, path, NULL);
	unlink(path);
}
END_TEST

START_TEST(damaged_debug_files_never_crash)
{
	char root[] = FIXTURES "/damaged-debug-XXXXXX";
	char *relative, *original, *damaged, *tree, *subdir;

	ck_assert_ptr_nonnull(mkdtemp(root));
	ck_assert_int_ge(asprintf(&relative, ".build-id/%.2s/%s.debug",
				  fixture.build_id, fixture.build_id + 2),
			 0);
	ck_assert_int_ge(asprintf(&original, FIXTURES "/debug-root/%s", relative),
			 0);
	ck_assert_int_ge(asprintf(&damaged, "%s/%s", root, relative), 0);
	ck_assert_int_ge(asprintf(&tree, "%s/.build-id", root), 0);
	ck_assert_int_ge(asprintf(&subdir, "%s/%.2s", tree, fixture.build_id),
			 0);
	ck_assert_int_eq(mkdir(tree, 0755), 0);
	ck_assert_int_eq(mkdir(subdir, 0755), 0);
	survive_damaged_copies(original, damaged, FIXTURES "/fixture-stripped",
			       root);
	unlink(damaged);
	rmdir(subdir);
	rmdir(tree);
	rmdir(root);
	free(relative);
	free(original);
	free(damaged);
	free(tree);
	free(subdir);
}
END_TEST

/* Exported, non-IFUNC C library functions: their addresses resolve with
 * or without the library's debug file installed. */
static const char *const libc_functions[] = {
	"malloc", "free",   "calloc", "realloc", "printf", "fprintf",
	"fopen",  "fclose", "fread",  "fwrite",  "qsort",  "bsearch",
	"strtol", "getenv", "setenv", "atoi",    "exit",   "abort",
};
#define N_LIBC_FUNCTIONS (sizeof libc_functions / sizeof *libc_functions)

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) +
	       (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

START_TEST(resolves_c_library_in_bulk)
{
	enum { LOOKUPS = 200000, SPREAD = 64 };
	uint64_t offsets[N_LIBC_FUNCTIONS];
	struct object_info libc;
	struct warnings w;
	struct symbolizer *s = new_symbolizer(&w, NULL, NULL);
	struct symbol_info info;
	struct timespec start;
	size_t resolved = 0, with_line = 0;
	double load_time;

	/* The library's own definitions, even where a sanitizer interposes
	 * some of them. */
	void *handle = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);

	ck_assert_ptr_nonnull(handle);
	ck_assert_int_eq(object_info_find(dlsym(handle, "malloc"), &libc), 0);
	for (size_t i = 0; i < N_LIBC_FUNCTIONS; i++) {
		void *address = dlsym(handle, libc_functions[i]);

		ck_assert_ptr_nonnull(address);
		offsets[i] = (uintptr_t)address - libc.load_bias;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (size_t i = 0; i < N_LIBC_FUNCTIONS; i++)
		ck_assert_msg(symbolizer_lookup(s, libc.path, libc.build_id,
						offsets[i], 0, &info) == 0 &&
				      info.function != NULL,
			      "%s not resolved", libc_functions[i]);
	load_time = seconds_since(&start);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (unsigned i = 0; i < LOOKUPS; i++) {
		uint64_t offset = offsets[i % N_LIBC_FUNCTIONS] +
				  (i / N_LIBC_FUNCTIONS) % SPREAD;

		if (symbolizer_lookup(s, libc.path, libc.build_id, offset, 1,
				      &info) == 0) {
			resolved++;
			with_line += info.line != 0;
		}
	}
	printf("%s: first lookups (loading) %.3f s; %u lookups over %zu "
	       "addresses: %.0f lookups/s, %zu resolved, %zu with line\n",
	       libc.path, load_time, (unsigned)LOOKUPS,
	       N_LIBC_FUNCTIONS * SPREAD, LOOKUPS / seconds_since(&start),
	       resolved, with_line);
	ck_assert_int_eq(w.count, 0);
	symbolizer_free(s);
	dlclose(handle);
}
END_TEST

static Suite *symbolizer_suite(void)
{
	Suite *suite = suite_create("symbolizer");
	TCase *lookups = tcase_create("lookups");
	TCase *files = tcase_create("files");
	TCase *bulk = tcase_create("bulk");

	tcase_add_loop_test(lookups, resolves_expected_lookup, 0,
			    sizeof expected_lookups / sizeof *expected_lookups);
	tcase_add_test(lookups, resolves_inside_function);
	tcase_add_test(lookups, expands_inlined_functions);
	tcase_add_test(lookups, unknown_address_gives_minus_one);
	tcase_add_test(lookups, return_address_adjustment_matters);
	suite_add_tcase(suite, lookups);

	tcase_set_timeout(files, 60);
	tcase_add_loop_test(files, finds_debug_file, 0,
			    sizeof stripped_copies / sizeof *stripped_copies);
	tcase_add_test(files, stripped_without_debug_file_gives_minus_one);
	tcase_add_test(files, build_id_mismatch_warns_once_and_resolves);
	tcase_add_loop_test(files, unusable_module_warns_once, 0,
			    sizeof unusable_modules / sizeof *unusable_modules);
	tcase_add_test(files, damaged_module_files_never_crash);
	tcase_add_test(files, damaged_debug_files_never_crash);
	suite_add_tcase(suite, files);

	tcase_set_timeout(bulk, 120);
	tcase_add_test(bulk, resolves_c_library_in_bulk);
	suite_add_tcase(suite, bulk);
	return suite;
}

int main(void)
{
	SRunner *runner;
	int failed;

	read_fixture_report();
	runner = srunner_create(symbolizer_suite());
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? 0 : 1;
}
