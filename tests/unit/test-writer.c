/* Unit tests of the profile writer: a written profile reads back whole. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mlyze-codec.h"
#include "modules.h"
#include "writer.h"
#include "scratch-dir.h"

Suite *test_suite(void);

static struct stack_table stacks;
static struct heap_map heap, in_place;
static struct runtime_config settings;
static char dir[] = "/tmp/spprof-writer-XXXXXX";

struct decoded {
	unsigned allocs, frees, markers, gcs, rates, memories, definitions;
	uint64_t last_alloc_size, last_alloc_address, last_free_address;
	uint64_t last_resident, last_anonymous, last_resident_peak;
	uint32_t last_stack;
	unsigned threads;
	unsigned maps;
	uint64_t last_thread_id;
	char last_thread_name[MLYZE_THREAD_NAME_MAX + 1];
};

static void setup(void)
{
	scratch_dir_make(dir);
	snprintf(settings.output, sizeof(settings.output), "%s/out.mlyze", dir);
	ck_assert_int_eq(stack_table_init(&stacks, STACK_TABLE_MAX_DEFAULT), 0);
	ck_assert_int_eq(modules_init(), 0);
	ck_assert_int_eq(heap_map_init(&heap, HEAP_MAP_INITIAL_CAPACITY), 0);
	ck_assert_int_eq(
		heap_map_init_compact(&in_place, HEAP_MAP_INITIAL_CAPACITY), 0);
	ck_assert_int_eq(writer_configure(&settings, &stacks, &heap,
					  &in_place, 4096, 0),
			 0);
}

static void teardown(void)
{
	scratch_dir_remove(dir);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	data = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(data, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return data;
}

/* Decodes the fields this test checks from each event. */
static void decode(const uint8_t *ev, unsigned type, struct decoded *d)
{
	uint64_t v = 0;
	size_t used = 0, pos = 1;

	mlyze_get_varint(ev + pos, MLYZE_VARINT_MAX, &v, &used);
	pos += used;
	switch (type) {
	case MLYZE_EVENT_ALLOC:
		d->allocs++;
		d->last_alloc_address = mlyze_get_le(ev + pos, 8);
		pos += 8;
		mlyze_get_varint(ev + pos, MLYZE_VARINT_MAX,
				 &d->last_alloc_size, &used);
		pos += used;
		mlyze_get_varint(ev + pos, MLYZE_VARINT_MAX, &v, &used);
		d->last_stack = (uint32_t)v;
		break;
	case MLYZE_EVENT_FREE:
		d->frees++;
		d->last_free_address = mlyze_get_le(ev + pos, 8);
		break;
	case MLYZE_EVENT_GC:
		d->gcs++;
		break;
	case MLYZE_EVENT_MARKER:
		d->markers++;
		break;
	case MLYZE_EVENT_RATE:
		d->rates++;
		break;
	case MLYZE_EVENT_MEMORY:
		d->memories++;
		mlyze_get_varint(ev + pos, MLYZE_VARINT_MAX, &v, &used);
		pos += used; /* the payload length */
		mlyze_get_varint(ev + pos, MLYZE_VARINT_MAX,
				 &d->last_resident, &used);
		pos += used;
		mlyze_get_varint(ev + pos, MLYZE_VARINT_MAX,
				 &d->last_anonymous, &used);
		pos += used;
		mlyze_get_varint(ev + pos, MLYZE_VARINT_MAX,
				 &d->last_resident_peak, &used);
		break;
	case MLYZE_EVENT_THREAD:
		d->threads++;
		mlyze_get_varint(ev + pos, MLYZE_VARINT_MAX, &v, &used);
		pos += used; /* the payload length */
		mlyze_get_varint(ev + pos, MLYZE_VARINT_MAX,
				 &d->last_thread_id, &used);
		pos += used;
		mlyze_get_varint(ev + pos, MLYZE_VARINT_MAX, &v, &used);
		pos += used;
		ck_assert_uint_le(v, MLYZE_THREAD_NAME_MAX);
		memcpy(d->last_thread_name, ev + pos, (size_t)v);
		d->last_thread_name[v] = '\0';
		break;
	case MLYZE_EVENT_MAP:
		d->maps++;
		break;
	default:
		d->definitions++;
	}
}

/* Checks the header, returns the parsed metadata and decodes events. */
static json_t *read_profile(const char *path, struct decoded *d)
{
	size_t len, pos, ev_len;
	uint8_t *data = slurp(path, &len);
	uint32_t meta_len;
	json_error_t err;
	json_t *meta;
	unsigned type;

	ck_assert_uint_ge(len, MLYZE_HEADER_SIZE);
	ck_assert(!memcmp(data, MLYZE_MAGIC, 4));
	ck_assert_uint_eq(mlyze_get_le(data + MLYZE_OFF_VERSION, 4), 1);
	meta_len = (uint32_t)mlyze_get_le(data + MLYZE_OFF_METADATA_LEN, 4);
	ck_assert_uint_le(MLYZE_HEADER_SIZE + meta_len, len);
	meta = json_loadb((const char *)data + MLYZE_HEADER_SIZE, meta_len, 0,
			  &err);
	ck_assert_msg(meta != NULL, "bad JSON: %s", err.text);
	memset(d, 0, sizeof(*d));
	for (pos = MLYZE_HEADER_SIZE + meta_len; pos < len; pos += ev_len) {
		if (mlyze_is_unwritten_tail(data + pos, len - pos))
			break;
		ck_assert_int_eq(mlyze_event_size(data + pos, len - pos,
						  &ev_len, &type),
				 MLYZE_EVENT_OK);
		decode(data + pos, type, d);
	}
	free(data);
	return meta;
}

static const memprof_stats no_stats;

START_TEST(round_trip)
{
	uint64_t frames[2] = { (uintptr_t)&setup, (uintptr_t)&read_profile };
	struct heap_record r = { .size = 40u << 20, .sampling_rate = 4096 };
	char path[PATH_MAX], part[PATH_MAX + 8];
	struct decoded d;
	json_t *meta, *stack;

	r.stack_id = stack_table_intern(&stacks, frames, 2);
	ck_assert_int_eq(prctl(PR_SET_NAME, "writer-test"), 0);
	writer_alloc(0x7000, &r);
	writer_marker("phase two");
	writer_rate(8192);
	writer_gc(10, 2000);
	writer_free(0x7000);
	writer_finalise(&no_stats);
	writer_alloc(0x8000, &r); /* after finalising: ignored */

	snprintf(path, sizeof(path), "%s/out.mlyze", dir);
	snprintf(part, sizeof(part), "%s.part", path);
	ck_assert_int_ne(access(part, F_OK), 0);
	meta = read_profile(path, &d);
	ck_assert_uint_eq(d.allocs, 1);
	ck_assert_uint_eq(d.frees, 1);
	ck_assert_uint_eq(d.markers, 1);
	ck_assert_uint_eq(d.gcs, 1);
	ck_assert_uint_eq(d.rates, 2); /* initial and changed rate */
	ck_assert_uint_eq(d.definitions, 0);
	/* The thread that allocated, by its name. */
	ck_assert_uint_eq(d.threads, 1);
	ck_assert_uint_eq(d.last_thread_id, (uint64_t)syscall(SYS_gettid));
	ck_assert_str_eq(d.last_thread_name, "writer-test");
	/* The process's memory, read with the first sample and at the end
	 * (the next reading is not due for a while). */
	ck_assert_uint_eq(d.memories, 2);
	ck_assert_uint_gt(d.last_resident, 0);
	ck_assert_uint_le(d.last_anonymous, d.last_resident);
	/* The kernel's high-water mark, read after the resident memory. */
	ck_assert_uint_ge(d.last_resident_peak, d.last_resident);
	ck_assert_uint_eq(d.last_alloc_address, 0x7000);
	ck_assert_uint_eq(d.last_alloc_size, 40u << 20); /* never clamped */
	ck_assert_uint_eq(d.last_free_address, 0x7000);
	ck_assert(json_is_true(json_object_get(meta, "complete")));
	ck_assert_int_eq(json_integer_value(json_object_get(meta, "sampling_rate")),
			 4096);
	ck_assert_int_eq(json_integer_value(json_object_get(meta, "pid")),
			 getpid());
	stack = json_object_get(json_object_get(meta, "stack_traces"), "0");
	ck_assert_uint_eq(json_array_size(stack), 2);
	/* frames inside this test program map to its module */
	ck_assert_ptr_nonnull(
		json_object_get(json_array_get(stack, 0), "module_id"));
	ck_assert_str_eq(json_string_value(json_object_get(
				 json_object_get(meta, "functions"), "0")),
			 "phase two");
	ck_assert(json_object_size(json_object_get(meta, "modules")) > 0);
	json_decref(meta);
}
END_TEST

/* A thread whose first sample is an anonymous mapping is named before
 * it, as for an allocation. */
START_TEST(mapping_thread_is_named)
{
	uint64_t frame = (uintptr_t)&setup;
	struct sampled_mapping m = { .start = 0x10000, .length = 65536,
				     .sampling_rate = 4096 };
	char path[PATH_MAX];
	struct decoded d;

	m.stack_id = stack_table_intern(&stacks, &frame, 1);
	ck_assert_int_eq(prctl(PR_SET_NAME, "mapper"), 0);
	writer_map(&m, 0);
	writer_finalise(&no_stats);

	snprintf(path, sizeof(path), "%s/out.mlyze", dir);
	json_decref(read_profile(path, &d));
	ck_assert_uint_eq(d.maps, 1);
	ck_assert_uint_eq(d.threads, 1);
	ck_assert_uint_eq(d.last_thread_id, (uint64_t)syscall(SYS_gettid));
	ck_assert_str_eq(d.last_thread_name, "mapper");
}
END_TEST

START_TEST(never_overwrites)
{
	char path[PATH_MAX], second[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/out.mlyze", dir);
	snprintf(second, sizeof(second), "%s/out.1.mlyze", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	ck_assert(write(fd, "precious", 8) == 8);
	close(fd);
	writer_gc(1, 1);
	writer_finalise(&no_stats);
	ck_assert_int_eq(access(second, F_OK), 0);
	{
		size_t len;
		uint8_t *data = slurp(path, &len);

		ck_assert_uint_eq(len, 8);
		ck_assert(!memcmp(data, "precious", 8));
		free(data);
	}
}
END_TEST

START_TEST(streamed_file_defines_before_use)
{
	uint64_t frames[1] = { 0x1234 };
	struct heap_record r = { .size = 100, .sampling_rate = 4096 };
	char part[PATH_MAX + 32];
	struct decoded d;
	json_t *meta;

	r.stack_id = stack_table_intern(&stacks, frames, 1);
	for (int i = 0; i < 20000; i++) /* enough to flush the buffer */
		writer_alloc(0x1000 * (uintptr_t)(i + 1), &r);
	snprintf(part, sizeof(part), "%s/out.mlyze.part", dir);
	meta = read_profile(part, &d);
	ck_assert(json_is_false(json_object_get(meta, "complete")));
	ck_assert_uint_gt(d.allocs, 1000);
	ck_assert_uint_ge(d.definitions, 2); /* modules and the stack */
	json_decref(meta);
}
END_TEST

/* Whether the file system of dir has unnamed files (O_TMPFILE). */
static int has_unnamed_files(void)
{
	int fd = open(dir, O_TMPFILE | O_WRONLY, 0600);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* The final file is written unnamed and linked in once whole: finalising
 * names no file in the directory but the profile, so a process killed in
 * the middle of it leaves no part of a final file behind.  (Where the
 * file system has no unnamed files, a named one is renamed instead.) */
START_TEST(finalising_names_only_the_profile)
{
	struct heap_record r = { .size = 4096, .sampling_rate = 4096 };
	uint64_t frames[1] = { 0x1234 };
	char events[4096];
	ssize_t n;
	int watch;

	if (!has_unnamed_files()) {
		fprintf(stderr, "%s: no unnamed files here: not tested\n", dir);
		return;
	}
	r.stack_id = stack_table_intern(&stacks, frames, 1);
	writer_alloc(0x1000, &r);
	watch = inotify_init1(IN_NONBLOCK);
	ck_assert_int_ge(watch, 0);
	ck_assert_int_ge(inotify_add_watch(watch, dir, IN_CREATE | IN_MOVED_TO),
			 0);
	writer_finalise(&no_stats);
	n = read(watch, events, sizeof(events));
	ck_assert_int_gt(n, 0);
	for (char *p = events; p < events + n;) {
		const struct inotify_event *ev = (const struct inotify_event *)p;

		ck_assert_str_eq(ev->name, "out.mlyze");
		p += sizeof(*ev) + ev->len;
	}
	close(watch);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("writer");
	TCase *tc = tcase_create("writer");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, mapping_thread_is_named);
	tcase_add_test(tc, never_overwrites);
	tcase_add_test(tc, streamed_file_defines_before_use);
	tcase_add_test(tc, finalising_names_only_the_profile);
	suite_add_tcase(s, tc);
	return s;
}
