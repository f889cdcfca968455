/* test-wrap-options.c - unit tests of memprof-wrap's text handling: the
 * --rate parser, the command-line parser, the output name pattern and the
 * shell quoting of the summary (main() is tests/unit/suite-main.c). */
#include "config.h"

#include "wrap-manifest.h"
#include "wrap-options.h"
#include "wrap-output.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void expect_size(const char *text, uint64_t expected)
{
	uint64_t bytes = 0;
	const char *problem = wrap_parse_size(text, &bytes);

	ck_assert_msg(problem == NULL, "'%s' refused: %s", text, problem);
	ck_assert_msg(bytes == expected, "'%s' gave %llu", text,
		      (unsigned long long)bytes);
}

static void expect_bad_size(const char *text, const char *expected)
{
	uint64_t bytes = 12345;
	const char *problem = wrap_parse_size(text, &bytes);

	ck_assert_msg(problem != NULL, "'%s' accepted", text);
	ck_assert_str_eq(problem, expected);
	ck_assert_msg(bytes == 12345, "'%s' changed the result", text);
}

START_TEST(sizes_accepted)
{
	expect_size("1", 1);
	expect_size("524288", 524288);
	expect_size("007", 7);
	expect_size("1k", 1024);
	expect_size("1K", 1024);
	expect_size("1KiB", 1024);
	expect_size("1kib", 1024);
	expect_size("1kIb", 1024);
	expect_size("3m", 3u << 20);
	expect_size("3MiB", 3u << 20);
	expect_size("5G", 5ull << 30);
	expect_size("5gib", 5ull << 30);
	expect_size("1099511627776", 1ull << 40);
	expect_size("1073741824K", 1ull << 40);
	expect_size("1048576m", 1ull << 40);
	expect_size("1024GiB", 1ull << 40);
}
END_TEST

START_TEST(sizes_refused)
{
	static const char *const not_integers[] = {
		"", "-1", "+1", " 1", "K", "\t5", ".5",
	};
	static const char *const bad_units[] = {
		"1 ", "1 K", "1KB", "1kb", "1Ki", "1T", "1.5M", "1MiBs", "12ab",
		"0x10", "1e3",
	};
	static const char *const too_large[] = {
		"1099511627777", "1025G", "1048577M", "1073741825k",
		"18446744073709551615", "18446744073709551616",
		"99999999999999999999999", "17179869184G",
	};

	for (size_t i = 0; i < sizeof not_integers / sizeof *not_integers; i++)
		expect_bad_size(not_integers[i], "not a positive integer");
	for (size_t i = 0; i < sizeof bad_units / sizeof *bad_units; i++)
		expect_bad_size(bad_units[i],
				"unknown unit (use K, M, G, KiB, MiB or GiB)");
	expect_bad_size("0", "must be greater than 0");
	expect_bad_size("000", "must be greater than 0");
	expect_bad_size("0GiB", "must be greater than 0");
	for (size_t i = 0; i < sizeof too_large / sizeof *too_large; i++)
		expect_bad_size(too_large[i], "too large (the most is 1024G)");
}
END_TEST

/* Parse the words of LINE (at most 16, split at spaces) as a command line. */
static int parse(const char *line, struct wrap_options *options)
{
	static char buffer[256];
	static char *argv[17];
	int argc = 0;

	snprintf(buffer, sizeof buffer, "%s", line);
	for (char *word = strtok(buffer, " "); word && argc < 16;
	     word = strtok(NULL, " "))
		argv[argc++] = word;
	argv[argc] = NULL;
	return wrap_parse_args(argc, argv, options);
}

START_TEST(arguments_parsed)
{
	struct wrap_options options;

	ck_assert_int_eq(parse("wrap python3 app.py", &options), WRAP_RUN);
	ck_assert_str_eq(options.command[0], "python3");
	ck_assert_str_eq(options.command[1], "app.py");
	ck_assert_ptr_null(options.command[2]);
	ck_assert_ptr_null(options.output);
	ck_assert_uint_eq(options.rate, 0);
	ck_assert(options.follow_fork);
	ck_assert(!options.quiet);

	ck_assert_int_eq(parse("wrap -q -o p.mlyze --rate=2K --no-follow-fork "
			       "cmd", &options), WRAP_RUN);
	ck_assert(options.quiet);
	ck_assert_str_eq(options.output, "p.mlyze");
	ck_assert_uint_eq(options.rate, 2048);
	ck_assert(!options.follow_fork);
	ck_assert_str_eq(options.command[0], "cmd");

	ck_assert_int_eq(parse("wrap -qop.mlyze -r 1 cmd", &options), WRAP_RUN);
	ck_assert_str_eq(options.output, "p.mlyze");
	ck_assert_uint_eq(options.rate, 1);
}
END_TEST

START_TEST(size_limits)
{
	struct wrap_options options;

	ck_assert_int_eq(parse("wrap cmd", &options), WRAP_RUN);
	ck_assert(!options.max_size_given);
	ck_assert_int_eq(parse("wrap --max-size=64K cmd", &options), WRAP_RUN);
	ck_assert(options.max_size_given);
	ck_assert_uint_eq(options.max_size, 65536);
	ck_assert_int_eq(parse("wrap --max-size=0 cmd", &options), WRAP_RUN);
	ck_assert(options.max_size_given);
	ck_assert_uint_eq(options.max_size, 0);
	ck_assert_int_eq(parse("wrap --max-size=1G cmd", &options), WRAP_RUN);
	ck_assert_uint_eq(options.max_size, UINT64_C(1) << 30);
	ck_assert_int_eq(parse("wrap --max-size=63K cmd", &options), 2);
	ck_assert_int_eq(parse("wrap --max-size=0K cmd", &options), 2);
	ck_assert_int_eq(parse("wrap --max-size=big cmd", &options), 2);
}
END_TEST

START_TEST(parsing_stops_at_command)
{
	struct wrap_options options;

	ck_assert_int_eq(parse("wrap cmd -q --help -- -o x", &options),
			 WRAP_RUN);
	ck_assert(!options.quiet);
	ck_assert_ptr_null(options.output);
	ck_assert_str_eq(options.command[0], "cmd");
	ck_assert_str_eq(options.command[1], "-q");
	ck_assert_str_eq(options.command[3], "--");

	ck_assert_int_eq(parse("wrap -q -- -x --help", &options), WRAP_RUN);
	ck_assert(options.quiet);
	ck_assert_str_eq(options.command[0], "-x");
	ck_assert_str_eq(options.command[1], "--help");
}
END_TEST

START_TEST(usage_errors)
{
	struct wrap_options options;

	ck_assert_int_eq(parse("wrap", &options), 2);
	ck_assert_int_eq(parse("wrap -q --", &options), 2);
	ck_assert_int_eq(parse("wrap --bogus cmd", &options), 2);
	ck_assert_int_eq(parse("wrap -o", &options), 2);
	ck_assert_int_eq(parse("wrap -r 0 cmd", &options), 2);
	ck_assert_int_eq(parse("wrap --rate=1X cmd", &options), 2);
	ck_assert_int_eq(parse("wrap --version", &options), 0);
	ck_assert_int_eq(parse("wrap --help cmd", &options), 0);
}
END_TEST

static void expect_expansion(const char *pattern, const char *expected)
{
	char *expanded = NULL;
	const char *problem = wrap_expand_host(pattern, "box%1", &expanded);

	ck_assert_msg(problem == NULL, "'%s' refused: %s", pattern, problem);
	ck_assert_str_eq(expanded, expected);
	free(expanded);
}

START_TEST(host_expanded)
{
	char *expanded = NULL;

	expect_expansion("p.mlyze", "p.mlyze");
	expect_expansion("%h.%p.mlyze", "box%%1.%p.mlyze");
	expect_expansion("%h/%h-%%h", "box%%1/box%%1-%%h");
	expect_expansion("100%%.%p", "100%%.%p");
	ck_assert_str_eq(wrap_expand_host("a%", "h", &expanded),
			 "a lone % ends it (write %% for a %)");
	ck_assert_str_eq(wrap_expand_host("a%d", "h", &expanded),
			 "unknown % sequence (use %p, %h or %%)");
	ck_assert_str_eq(wrap_expand_host("%%%", "h", &expanded),
			 "a lone % ends it (write %% for a %)");
	ck_assert_ptr_null(expanded);
}
END_TEST

START_TEST(default_output)
{
	char *name = wrap_default_output("python3");

	ck_assert_str_eq(name, "python3.%p.mlyze");
	free(name);
	name = wrap_default_output("/usr/bin/100%cpu");
	ck_assert_str_eq(name, "100%%cpu.%p.mlyze");
	free(name);
}
END_TEST

START_TEST(literal_paths)
{
	char *path = wrap_literal_path("/a/100%%/b.mlyze", 16);

	ck_assert_str_eq(path, "/a/100%/b.mlyze");
	free(path);
	path = wrap_literal_path("/a/100%%/b.%p.mlyze", 8);
	ck_assert_str_eq(path, "/a/100%");
	free(path);
	ck_assert_ptr_null(wrap_literal_path("/a/b.%p.mlyze", 13));
}
END_TEST

static void expect_quoted(const char *text, const char *expected)
{
	char *quoted = wrap_shell_quote(text);

	ck_assert_str_eq(quoted, expected);
	free(quoted);
}

START_TEST(shell_quoting)
{
	expect_quoted("python3.1234.mlyze", "python3.1234.mlyze");
	expect_quoted("/tmp/a-b_c+d,e:f=g@h%i", "/tmp/a-b_c+d,e:f=g@h%i");
	expect_quoted("", "''");
	expect_quoted("a b", "'a b'");
	expect_quoted("it's", "'it'\\''s'");
	expect_quoted("''", "''\\'''\\'''");
	expect_quoted("$x*?[a]~;&|<>`\"\\\n", "'$x*?[a]~;&|<>`\"\\\n'");
}
END_TEST

Suite *test_suite(void);

Suite *test_suite(void)
{
	Suite *suite = suite_create("memprof-wrap options");
	TCase *cases = tcase_create("text");

	tcase_add_test(cases, sizes_accepted);
	tcase_add_test(cases, sizes_refused);
	tcase_add_test(cases, arguments_parsed);
	tcase_add_test(cases, size_limits);
	tcase_add_test(cases, parsing_stops_at_command);
	tcase_add_test(cases, usage_errors);
	tcase_add_test(cases, host_expanded);
	tcase_add_test(cases, default_output);
	tcase_add_test(cases, literal_paths);
	tcase_add_test(cases, shell_quoting);
	suite_add_tcase(suite, cases);
	return suite;
}
