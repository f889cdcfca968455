/* Unit tests of profile names: the bare name when it is free, the next
 * number after those in use however many there are, a streamed file's
 * name counted as taken, the final name following the streamed one, and
 * a streamed file that has its name only once its header is in it. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "profile_files.h"
#include "scratch-dir.h"

Suite *test_suite(void);

static char dir[] = "/tmp/spprof-names-XXXXXX";
static struct profile_files files;

static void setup(void)
{
	scratch_dir_make(dir);
	memset(&files, 0, sizeof(files));
	snprintf(files.pattern, sizeof(files.pattern), "%s/p.mlyze", dir);
}

static void teardown(void)
{
	scratch_dir_remove(dir);
}

static void make_file(const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

/* Streams, then publishes a file under the final name; checks both. */
static void check_names(const char *part, const char *final)
{
	char expected[PATH_MAX], tmp[PATH_MAX], published[PATH_MAX];
	int fd = profile_files_create_part(&files);

	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(expected, sizeof(expected), "%s/%s", dir, part);
	ck_assert_str_eq(files.part, expected);
	snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
	make_file("tmp");
	ck_assert_int_eq(profile_files_publish(&files, tmp, published,
					       sizeof(published)),
			 0);
	snprintf(expected, sizeof(expected), "%s/%s", dir, final);
	ck_assert_str_eq(published, expected);
}

START_TEST(bare_name_when_free)
{
	check_names("p.mlyze.part", "p.mlyze");
}
END_TEST

/* Far more profiles of one name than the old limit of a thousand tries. */
START_TEST(next_number_after_thousands)
{
	char name[64];

	make_file("p.mlyze");
	for (unsigned k = 1; k < 2500; k++) {
		snprintf(name, sizeof(name), "p.%u.mlyze", k);
		make_file(name);
	}
	check_names("p.2500.mlyze.part", "p.2500.mlyze");
}
END_TEST

START_TEST(streamed_name_is_taken)
{
	make_file("p.mlyze.part");
	make_file("p.1.mlyze");
	check_names("p.2.mlyze.part", "p.2.mlyze");
}
END_TEST

/* A final name taken while the profile streamed: the next one. */
START_TEST(final_name_taken_meanwhile)
{
	char tmp[PATH_MAX], published[PATH_MAX];
	int fd = profile_files_create_part(&files);

	ck_assert_int_ge(fd, 0);
	close(fd);
	make_file("p.mlyze");
	make_file("tmp");
	snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
	ck_assert_int_eq(profile_files_publish(&files, tmp, published,
					       sizeof(published)),
			 0);
	ck_assert_ptr_nonnull(strstr(published, "/p.1.mlyze"));
}
END_TEST

/* No .part shows before its first bytes are in it; it then takes the
 * first free name, with those bytes. */
START_TEST(streamed_file_named_once_written)
{
	static const char head[] = "MLYZ header";
	char expected[PATH_MAX], read_back[sizeof(head)];
	int fd, named;

	make_file("p.mlyze.part");
	fd = profile_files_open_unnamed_part(&files);
	if (fd < 0)
		return; /* a file system without unnamed files: nothing to see */
	ck_assert_int_eq(write(fd, head, sizeof(head)), sizeof(head));
	snprintf(expected, sizeof(expected), "%s/p.1.mlyze.part", dir);
	ck_assert_int_ne(access(expected, F_OK), 0);
	ck_assert_int_eq(profile_files_name_part(&files, fd), 0);
	close(fd);
	ck_assert_str_eq(files.part, expected);
	named = open(expected, O_RDONLY);
	ck_assert_int_ge(named, 0);
	ck_assert_int_eq(read(named, read_back, sizeof(read_back)),
			 sizeof(head));
	ck_assert_mem_eq(read_back, head, sizeof(head));
	close(named);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("profile_files");
	TCase *tc = tcase_create("names");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, bare_name_when_free);
	tcase_add_test(tc, next_number_after_thousands);
	tcase_add_test(tc, streamed_name_is_taken);
	tcase_add_test(tc, final_name_taken_meanwhile);
	tcase_add_test(tc, streamed_file_named_once_written);
	suite_add_tcase(s, tc);
	return s;
}
