/* Unit tests of the crash-safe event stream: what is written reads back,
 * pages are faulted in ahead of the stream, and a window being faulted in
 * outside the writer's lock stays mapped until that ends, however the
 * stream moves meanwhile; the first window is small, and the file keeps
 * its unwritten tail until trimmed. */
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
#include "scratch-dir.h"

Suite *test_suite(void);

#define PIECE 1000u

static char dir[] = "/tmp/spprof-stream-XXXXXX";
static char path[sizeof(dir) + 16];
static struct event_stream stream;

static void setup(void)
{
	int fd;

	scratch_dir_make(dir);
	snprintf(path, sizeof(path), "%s/s.part", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(stream_open(&stream, fd, path, 0), 0);
	close(fd);
}

static void teardown(void)
{
	scratch_dir_remove(dir);
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

/* Writes pieces until the stream leaves chores, and returns them. */
static struct stream_chores next_chores(unsigned *i)
{
	struct stream_chores c;

	do {
		write_piece((*i)++);
		c = stream_take_chores(&stream);
	} while (!c.unmap && !c.populate);
	return c;
}

/* Writes pieces, doing the chores they leave, until the window moves. */
static void write_until_moved(unsigned *i)
{
	const uint8_t *window = stream.window;

	while (stream.window == window) {
		struct stream_chores c;

		write_piece((*i)++);
		c = stream_take_chores(&stream);
		stream_do_chores(&c);
		stream_chores_done(&stream, &c);
	}
}

/* The file holds the pieces written, then (untrimmed) zero bytes up to
 * the end of the last window. */
static void check_file(unsigned pieces, int trimmed)
{
	struct stat st;
	uint8_t buffer[PIECE], expected[PIECE];
	off_t written = (off_t)pieces * PIECE;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	if (trimmed)
		ck_assert_int_eq(st.st_size, written);
	else
		ck_assert_int_gt(st.st_size, written);
	for (unsigned i = 0; i < pieces; i++) {
		memset(expected, (int)(i % 251), PIECE);
		ck_assert_int_eq(read(fd, buffer, PIECE), PIECE);
		ck_assert_msg(memcmp(buffer, expected, PIECE) == 0,
			      "piece %u differs", i);
	}
	memset(expected, 0, PIECE);
	while ((n = read(fd, buffer, PIECE)) > 0)
		ck_assert_msg(memcmp(buffer, expected, (size_t)n) == 0,
			      "the tail after the pieces is not zero");
	close(fd);
}

/* Closing leaves the unwritten tail; trimming cuts it. */
static void close_and_check(unsigned pieces)
{
	ck_assert_int_eq(stream_close(&stream), 0);
	check_file(pieces, 0);
	ck_assert_int_eq(stream_trim(&stream), 0);
	check_file(pieces, 1);
}

/* The first window is small, the next ones full size. */
START_TEST(first_window_is_small)
{
	unsigned i = 0;
	struct stat st;

	ck_assert_uint_eq(stream.window_end - stream.window_start,
			  STREAM_FIRST_WINDOW_BYTES);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, STREAM_FIRST_WINDOW_BYTES);
	write_until_moved(&i);
	ck_assert_uint_eq(stream.window_end - stream.window_start,
			  STREAM_WINDOW_BYTES);
	close_and_check(i);
}
END_TEST

/* A first event longer than the small window gets a full one. */
START_TEST(long_first_event_gets_a_full_window)
{
	const size_t n = STREAM_WINDOW_BYTES / 2;
	struct stream_chores c;
	uint8_t *p = stream_room(&stream, n);

	ck_assert_uint_gt(n, STREAM_FIRST_WINDOW_BYTES);
	ck_assert_ptr_nonnull(p);
	memset(p, 0, n);
	stream_commit(&stream, p + n);
	ck_assert_uint_eq(stream.window_end - stream.window_start,
			  STREAM_WINDOW_BYTES);
	c = stream_take_chores(&stream);
	stream_do_chores(&c);
	stream_chores_done(&stream, &c);
	ck_assert_int_eq(stream_close(&stream), 0);
	ck_assert_int_eq(stream_trim(&stream), 0);
}
END_TEST

/* Pages are faulted in ahead, a stretch at a time, once the stream has
 * written half a stretch (the first pages fault in as they are written);
 * a move leaves the old window to unmap and goes on in the new one. */
START_TEST(faults_in_ahead)
{
	unsigned i = 0;
	const uint8_t *first = stream.window;
	struct stream_chores c = stream_take_chores(&stream);
	uint64_t expected = STREAM_FAULT_AHEAD;

	ck_assert_ptr_null(c.unmap);
	ck_assert_ptr_null(c.populate);
	for (;;) {
		c = next_chores(&i);
		if (c.unmap)
			break;
		ck_assert_ptr_eq(c.window, first);
		ck_assert_ptr_eq(c.populate, first + expected);
		ck_assert_uint_eq(c.populate_bytes, STREAM_FAULT_AHEAD);
		/* ahead of the stream, half a stretch away */
		ck_assert_uint_lt(stream.end, expected);
		ck_assert_uint_gt(stream.end + STREAM_FAULT_AHEAD / 2, expected);
		expected += STREAM_FAULT_AHEAD;
		stream_do_chores(&c);
		stream_chores_done(&stream, &c);
	}
	ck_assert_uint_eq(expected, STREAM_FIRST_WINDOW_BYTES);
	ck_assert_ptr_eq(c.unmap, first);
	ck_assert_ptr_eq(c.window, stream.window);
	ck_assert_ptr_nonnull(c.populate);
	stream_do_chores(&c);
	stream_chores_done(&stream, &c);
	ck_assert(!is_mapped(first, STREAM_FIRST_WINDOW_BYTES));
	ck_assert(is_mapped(stream.window, c.window_bytes));
	close_and_check(i);
}
END_TEST

/* While pages of a window are being faulted in, no other pages are, the
 * window moves twice, and it is not handed out to be unmapped: it is
 * unmapped when the faulting ends. */
START_TEST(window_being_faulted_in_stays_mapped)
{
	unsigned i = 0;
	struct stream_chores slow = next_chores(&i), c;

	ck_assert_ptr_nonnull(slow.populate);
	do {
		c = next_chores(&i);
		ck_assert_ptr_null(c.populate);
	} while (!c.unmap);
	ck_assert_ptr_ne(c.unmap, slow.window);
	stream_do_chores(&c);
	ck_assert(is_mapped(slow.window, slow.window_bytes));
	stream_do_chores(&slow);
	stream_chores_done(&stream, &slow);
	ck_assert(!is_mapped(slow.window, slow.window_bytes));
	close_and_check(i);
}
END_TEST

/* Closing the stream while pages of its window are faulted in leaves the
 * window mapped until that ends; the file is cut to what was written. */
START_TEST(close_while_faulting_in)
{
	unsigned i = 0;
	struct stream_chores slow;

	write_until_moved(&i);
	slow = next_chores(&i);
	ck_assert_ptr_nonnull(slow.populate);
	write_piece(i++);
	ck_assert_int_eq(stream_close(&stream), 0);
	ck_assert(is_mapped(slow.window, slow.window_bytes));
	stream_do_chores(&slow);
	stream_chores_done(&stream, &slow);
	ck_assert(!is_mapped(slow.window, slow.window_bytes));
	ck_assert_int_eq(stream_trim(&stream), 0);
	check_file(i, 1);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("event_stream");
	TCase *tc = tcase_create("chores");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, faults_in_ahead);
	tcase_add_test(tc, window_being_faulted_in_stays_mapped);
	tcase_add_test(tc, close_while_faulting_in);
	tcase_add_test(tc, first_window_is_small);
	tcase_add_test(tc, long_first_event_gets_a_full_window);
	suite_add_tcase(s, tc);
	return s;
}
