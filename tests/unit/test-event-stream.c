/* Unit tests of the crash-safe event stream: what is written reads back,
 * and a window being faulted in outside the writer's lock stays mapped
 * until that ends, however the stream moves meanwhile. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event_stream.h"

Suite *test_suite(void);

#define PIECE 1000u

static char dir[] = "/tmp/spprof-stream-XXXXXX";
static char path[sizeof(dir) + 16];
static struct event_stream stream;

static void setup(void)
{
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.part", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(stream_open(&stream, fd, path, 0), 0);
	close(fd);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

static int is_mapped(const void *address, size_t bytes)
{
	return msync((void *)address, bytes, MS_ASYNC) == 0 || errno != ENOMEM;
}

/* Writes piece number i (PIECE bytes of the value i % 251). */
static void write_piece(unsigned i)
{
	uint8_t *p = stream_room(&stream, PIECE);

	ck_assert_ptr_nonnull(p);
	memset(p, (int)(i % 251), PIECE);
	stream_commit(&stream, p + PIECE);
}

/* Writes pieces until the window moves; returns the chores it left. */
static struct stream_chores write_until_moved(unsigned *i)
{
	const uint8_t *window = stream.window;
	struct stream_chores c;

	for (;;) {
		write_piece((*i)++);
		c = stream_take_chores(&stream);
		if (stream.window != window)
			return c;
		ck_assert_ptr_null(c.unmap);
		ck_assert_ptr_null(c.populate);
	}
}

static void check_file(unsigned pieces)
{
	struct stat st;
	uint8_t buffer[PIECE];
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq(st.st_size, (off_t)pieces * PIECE);
	for (unsigned i = 0; i < pieces; i++) {
		ck_assert_int_eq(read(fd, buffer, PIECE), PIECE);
		for (unsigned j = 0; j < PIECE; j++)
			ck_assert_uint_eq(buffer[j], i % 251);
	}
	close(fd);
}

/* The first window is left to fault in as the stores come (most
 * processes write far less); each move leaves the old window to unmap
 * and the new one to fault in. */
START_TEST(moves_leave_chores)
{
	unsigned i = 0;
	const uint8_t *first = stream.window;
	size_t bytes = STREAM_WINDOW_BYTES;
	struct stream_chores c = stream_take_chores(&stream);

	ck_assert_ptr_null(c.unmap);
	ck_assert_ptr_null(c.populate);
	c = write_until_moved(&i);
	ck_assert_ptr_eq(c.unmap, first);
	ck_assert_ptr_eq(c.populate, stream.window);
	stream_do_chores(&c);
	stream_chores_done(&stream, &c);
	ck_assert(!is_mapped(first, bytes));
	ck_assert(is_mapped(c.populate, c.populate_bytes));
	ck_assert_int_eq(stream_close(&stream), 0);
	check_file(i);
}
END_TEST

/* The window moves twice while one is being faulted in: that one is not
 * handed out to be unmapped, and is unmapped when its faulting ends; the
 * next is not faulted in meanwhile. */
START_TEST(window_being_faulted_in_stays_mapped)
{
	unsigned i = 0;
	struct stream_chores slow = write_until_moved(&i), c;

	c = write_until_moved(&i);
	ck_assert_ptr_null(c.unmap);
	ck_assert_ptr_null(c.populate);
	c = write_until_moved(&i);
	ck_assert_ptr_nonnull(c.unmap);
	ck_assert_ptr_ne(c.unmap, slow.populate);
	ck_assert_ptr_null(c.populate);
	stream_do_chores(&c);
	ck_assert(is_mapped(slow.populate, slow.populate_bytes));
	stream_do_chores(&slow);
	stream_chores_done(&stream, &slow);
	ck_assert(!is_mapped(slow.populate, slow.populate_bytes));
	ck_assert_int_eq(stream_close(&stream), 0);
	check_file(i);
}
END_TEST

/* Closing the stream while its window is faulted in leaves it mapped
 * until the faulting ends; the file is cut to what was written. */
START_TEST(close_while_faulting_in)
{
	unsigned i = 0;
	struct stream_chores slow = write_until_moved(&i);

	write_piece(i++);
	ck_assert_int_eq(stream_close(&stream), 0);
	ck_assert(is_mapped(slow.populate, slow.populate_bytes));
	stream_do_chores(&slow);
	stream_chores_done(&stream, &slow);
	ck_assert(!is_mapped(slow.populate, slow.populate_bytes));
	check_file(i);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("event_stream");
	TCase *tc = tcase_create("chores");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, moves_leave_chores);
	tcase_add_test(tc, window_being_faulted_in_stays_mapped);
	tcase_add_test(tc, close_while_faulting_in);
	suite_add_tcase(s, tc);
	return s;
}
