/* check-reader - unit tests of libmlyze: every event type, definitions in
 * the metadata and in the stream, forward compatibility, the read buffer
 * boundaries, truncation, errors, and the weights. */
#include "config.h"

#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mlyze-script.h"
#include "mlyze-stats.h"
#include "spprof/mlyze.h"

static int profile_fd = -1;
static int warning_count;
static char last_warning[512];

static void record_warning(void *ctx, const char *message)
{
	(void)ctx;
	warning_count++;
	snprintf(last_warning, sizeof(last_warning), "%s", message);
}

/* Write bytes into an anonymous file, profile_fd. */
static void write_bytes(const uint8_t *data, size_t length)
{
	FILE *f = tmpfile();

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, length, f), length);
	fflush(f);
	profile_fd = dup(fileno(f));
	fclose(f);
	ck_assert_int_eq(lseek(profile_fd, 0, SEEK_SET), 0);
}

/* A reader on profile_fd. */
static mlyze_reader *open_written(size_t buffer_size)
{
	struct mlyze_options options = { .buffer_size = buffer_size,
					 .warn = record_warning };
	mlyze_reader *r;

	warning_count = 0;
	last_warning[0] = '\0';
	r = mlyze_open_fd(profile_fd, "test.mlyze", &options);
	ck_assert_ptr_nonnull(r);
	return r;
}

/* Write bytes into an anonymous file and open a reader on it. */
static mlyze_reader *open_bytes(const uint8_t *data, size_t length,
				size_t buffer_size)
{
	write_bytes(data, length);
	return open_written(buffer_size);
}

static void compile(const char *script, struct bytes *profile)
{
	char error[256];

	ck_assert_msg(script_compile(script, profile, error, sizeof(error)) == 0,
		      "%s", error);
}

/* Compile a script into an anonymous file and open a reader on it. */
static mlyze_reader *open_script_buffered(const char *script,
					  size_t buffer_size)
{
	struct bytes profile = { 0 };
	mlyze_reader *r;

	compile(script, &profile);
	r = open_bytes(profile.data, profile.length, buffer_size);
	bytes_free(&profile);
	return r;
}

static mlyze_reader *open_script(const char *script)
{
	return open_script_buffered(script, 0);
}

static void close_reader(mlyze_reader *r)
{
	mlyze_close(r);
	close(profile_fd);
	profile_fd = -1;
}

static void next_ok(mlyze_reader *r, struct mlyze_event *ev,
		    enum mlyze_event_kind type)
{
	int rc = mlyze_next(r, ev);

	ck_assert_msg(rc == 1, "mlyze_next: %d (%s)", rc,
		      mlyze_error(r) ? mlyze_error(r) : "no error");
	ck_assert_int_eq(ev->type, type);
}

static void expect_end(mlyze_reader *r)
{
	struct mlyze_event ev;

	ck_assert_int_eq(mlyze_next(r, &ev), 0);
	ck_assert_int_eq(mlyze_next(r, &ev), 0);
	ck_assert_int_eq(mlyze_status(r), MLYZE_OK);
}

static void expect_error(const char *script, const char *message)
{
	mlyze_reader *r = open_script(script);
	struct mlyze_event ev;

	while (mlyze_next(r, &ev) > 0)
		;
	ck_assert_int_eq(mlyze_status(r), MLYZE_BAD_FILE);
	ck_assert_str_eq(mlyze_error(r), message);
	ck_assert_int_eq(mlyze_next(r, &ev), -1);
	close_reader(r);
}

#define FINALISED_METADATA                                                   \
	"metadata {\"producer\": \"test\", \"complete\": true, \"pid\": 42, "  \
	"\"ppid\": 1, \"hostname\": \"box\", \"executable\": \"/usr/bin/app\", " \
	"\"command_line\": [\"app\", \"-v\"], \"sampling_rate\": 1000, "       \
	"\"start_time_us\": 1000, \"end_time_us\": 9000, "                     \
	"\"max_stack_depth\": 64, "                                            \
	"\"stats\": {\"samples\": 2, \"native_stacks\": 5, "                   \
	"\"shallow_stacks\": 1, \"events_dropped\": 3}, "                      \
	"\"files\": {\"0\": \"app.py\"}, "                                     \
	"\"functions\": {\"0\": \"phase one\", \"1\": \"main\"}, "             \
	"\"modules\": {\"0\": {\"path\": \"/usr/bin/app\", \"start\": 4096, "  \
	"\"end\": 8192, \"load_bias\": 0, \"build_id\": \"ABcd\"}}, "          \
	"\"stack_traces\": {\"7\": [{\"module_id\": 0, \"offset\": 4200}, "    \
	"{\"address\": 99}, {\"file_id\": 0, \"func_id\": 1, \"line\": 12}]}}\n"

START_TEST(header_and_metadata)
{
	mlyze_reader *r = open_script("header start=1000\n" FINALISED_METADATA);
	const struct mlyze_info *info = mlyze_info(r);

	ck_assert_int_eq(mlyze_status(r), MLYZE_OK);
	ck_assert_uint_eq(info->version, 1);
	ck_assert_uint_eq(info->start_time_us, 1000);
	ck_assert_uint_gt(info->metadata_length, 100);
	ck_assert_str_eq(info->producer, "test");
	ck_assert_int_eq(info->complete, 1);
	ck_assert_uint_eq(info->pid, 42);
	ck_assert_uint_eq(info->ppid, 1);
	ck_assert_str_eq(info->hostname, "box");
	ck_assert_str_eq(info->executable, "/usr/bin/app");
	ck_assert_uint_eq(info->command_line_length, 2);
	ck_assert_str_eq(info->command_line[1], "-v");
	ck_assert_uint_eq(info->sampling_rate, 1000);
	ck_assert_uint_eq(info->end_time_us, 9000);
	ck_assert_uint_eq(info->max_stack_depth, 64);
	ck_assert_int_eq(info->has_stats, 1);
	ck_assert_uint_eq(info->stats.samples, 2);
	ck_assert_uint_eq(info->stats.shallow_stacks, 1);
	ck_assert_uint_eq(info->stats.events_dropped, 3);
	ck_assert_int_eq(info->has_stack_methods, 0); /* not in its stats */
	ck_assert_uint_eq(mlyze_string_count(r, MLYZE_TABLE_FUNCTIONS), 2);
	ck_assert_str_eq(mlyze_string_at(r, MLYZE_TABLE_FUNCTIONS, 1)->text,
			 "main");
	ck_assert_ptr_null(mlyze_string_at(r, MLYZE_TABLE_FUNCTIONS, 2));
	ck_assert_str_eq(mlyze_find_string(r, MLYZE_TABLE_FILES, 0)->text,
			 "app.py");
	ck_assert_uint_eq(mlyze_module_count(r), 1);
	ck_assert_str_eq(mlyze_module_at(r, 0)->build_id, "abcd");
	ck_assert_uint_eq(mlyze_stack_count(r), 1);
	ck_assert_ptr_eq(mlyze_find_stack(r, 7), mlyze_stack_at(r, 0));
	ck_assert_ptr_null(mlyze_find_stack(r, 8));
	ck_assert_int_eq(warning_count, 0);
	expect_end(r);
	close_reader(r);
}
END_TEST

/* Stats that count the stacks by unwinding method make them known. */
START_TEST(stack_methods)
{
	mlyze_reader *r = open_script(
		"header start=1000\n"
		"metadata {\"complete\": true, \"stats\": {\"samples\": 9, "
		"\"fp_stacks\": 7, \"dwarf_stacks\": 2}}\n");
	const struct mlyze_info *info = mlyze_info(r);

	ck_assert_int_eq(mlyze_status(r), MLYZE_OK);
	ck_assert_int_eq(info->has_stack_methods, 1);
	ck_assert_uint_eq(info->fp_stacks, 7);
	ck_assert_uint_eq(info->dwarf_stacks, 2);
	expect_end(r);
	close_reader(r);
}
END_TEST

/* Every integer of the stats is kept by name, one this reader has no
 * field for too, so that a statistic the runtime adds is read. */
START_TEST(stats_by_name)
{
	mlyze_reader *r = open_script(
		"header start=1000\n"
		"metadata {\"complete\": true, \"stats\": {\"samples\": 9, "
		"\"later_stat\": 4, \"note\": \"text\"}}\n");
	const struct mlyze_info *info = mlyze_info(r);

	ck_assert_int_eq(mlyze_status(r), MLYZE_OK);
	ck_assert_uint_eq(info->stat_count, 2);
	ck_assert_str_eq(info->stat_list[0].key, "samples");
	ck_assert_uint_eq(info->stat_list[0].value, 9);
	ck_assert_str_eq(info->stat_list[1].key, "later_stat");
	ck_assert_uint_eq(info->stat_list[1].value, 4);
	expect_end(r);
	close_reader(r);
}
END_TEST

/* The rows of memprof-stats.def, numbered in its order. */
enum stat_row {
#define MEMPROF_STAT(type, field, key, source, kind, unit, description) \
	ROW_##field,
#include <spprof/memprof-stats.def>
#undef MEMPROF_STAT
	STAT_ROWS
};

static uint64_t stat_named(const struct mlyze_info *info, const char *key)
{
	for (size_t i = 0; i < info->stat_count; i++)
		if (strcmp(info->stat_list[i].key, key) == 0)
			return info->stat_list[i].value;
	ck_abort_msg("no stat %s", key);
	return 0;
}

/* Every KEY of memprof-stats.def has one home in struct mlyze_info (or
 * is listed as read by name only), and the reader fills each member with
 * its row's value: a profile whose stats hold each KEY with its row's
 * number plus 1 reads that number into the member mapped to the row. */
START_TEST(every_stat_key_has_one_home)
{
	char script[2048] = "header start=1000\n"
			    "metadata {\"complete\": true, \"stats\": {";
	size_t length = strlen(script);
	int homes[STAT_ROWS] = { 0 };

#define MEMPROF_STAT(type, field, key, source, kind, unit, description) \
	if (key[0])                                                         \
		length += snprintf(script + length, sizeof(script) - length, \
				   "\"%s\": %d, ", key, ROW_##field + 1);
#include <spprof/memprof-stats.def>
#undef MEMPROF_STAT
	snprintf(script + length, sizeof(script) - length, "\"end\": 0}}\n");
	mlyze_reader *r = open_script(script);
	const struct mlyze_info *info = mlyze_info(r);

	ck_assert_int_eq(mlyze_status(r), MLYZE_OK);
#define IN_STATS(member, field)                                      \
	ck_assert_uint_eq(info->stats.member, ROW_##field + 1);      \
	homes[ROW_##field]++;
	MLYZE_STATS_MEMBERS(IN_STATS)
#undef IN_STATS
#define IN_INFO(member, field)                                       \
	ck_assert_uint_eq(info->member, ROW_##field + 1);            \
	homes[ROW_##field]++;
	MLYZE_INFO_STAT_MEMBERS(IN_INFO)
#undef IN_INFO
#define BY_NAME_ONLY(field) homes[ROW_##field]++;
	MLYZE_STATS_BY_NAME_ONLY(BY_NAME_ONLY)
#undef BY_NAME_ONLY
#define MEMPROF_STAT(type, field, key, source, kind, unit, description)   \
	ck_assert_msg(homes[ROW_##field] == (key[0] != '\0'),              \
		      #field ": %d homes", homes[ROW_##field]);            \
	if (key[0])                                                         \
		ck_assert_uint_eq(stat_named(info, key), ROW_##field + 1);
#include <spprof/memprof-stats.def>
#undef MEMPROF_STAT
	ck_assert_int_eq(info->has_stack_methods, 1);
	expect_end(r);
	close_reader(r);
}
END_TEST

START_TEST(every_event_type)
{
	mlyze_reader *r = open_script("header start=1000\n" FINALISED_METADATA
				      "alloc 5 0x1000 100 7 3\n"
				      "free 2 0x1000\n"
				      "gc 1 10 2000\n"
				      "marker 0 0\n"
				      "rate 4 2048\n"
				      "alloc 1 0xffffffffffffffff 50 7 65535\n"
				      "memory 2 300000000 200000000\n"
				      /* 1000 resident, 500 anonymous, a peak
				       * of 2000 */
				      "event 8 1 e807f403d00f\n");
	uint64_t events_start = 256 + mlyze_info(r)->metadata_length;
	struct mlyze_event ev;

	next_ok(r, &ev, MLYZE_EVENT_ALLOC);
	ck_assert_uint_eq(ev.offset, events_start);
	ck_assert_uint_eq(ev.time_us, 1005);
	ck_assert_uint_eq(ev.alloc.address, 0x1000);
	ck_assert_uint_eq(ev.alloc.size, 100);
	ck_assert_uint_eq(ev.alloc.stack->id, 7);
	ck_assert_uint_eq(ev.alloc.thread, 3);
	ck_assert_uint_eq(ev.alloc.sampling_rate, 1000);
	next_ok(r, &ev, MLYZE_EVENT_FREE);
	ck_assert_uint_eq(ev.offset, events_start + 14);
	ck_assert_uint_eq(ev.time_us, 1007);
	ck_assert_uint_eq(ev.free.address, 0x1000);
	next_ok(r, &ev, MLYZE_EVENT_GC);
	ck_assert_uint_eq(ev.time_us, 1008);
	ck_assert_uint_eq(ev.gc.objects, 10);
	ck_assert_uint_eq(ev.gc.bytes, 2000);
	next_ok(r, &ev, MLYZE_EVENT_MARKER);
	ck_assert_str_eq(ev.marker.name->text, "phase one");
	next_ok(r, &ev, MLYZE_EVENT_RATE);
	ck_assert_uint_eq(ev.time_us, 1012);
	ck_assert_uint_eq(ev.rate.sampling_rate, 2048);
	next_ok(r, &ev, MLYZE_EVENT_ALLOC);
	ck_assert_uint_eq(ev.time_us, 1013);
	ck_assert_uint_eq(ev.alloc.address, UINT64_MAX);
	ck_assert_uint_eq(ev.alloc.thread, 65535);
	ck_assert_uint_eq(ev.alloc.sampling_rate, 2048);
	next_ok(r, &ev, MLYZE_EVENT_MEMORY);
	ck_assert_uint_eq(ev.time_us, 1015);
	ck_assert_uint_eq(ev.memory.resident, 300000000);
	ck_assert_uint_eq(ev.memory.anonymous, 200000000);
	ck_assert_uint_eq(ev.memory.resident_peak, 0); /* an older runtime's */
	next_ok(r, &ev, MLYZE_EVENT_MEMORY);
	ck_assert_uint_eq(ev.memory.resident, 1000);
	ck_assert_uint_eq(ev.memory.anonymous, 500);
	ck_assert_uint_eq(ev.memory.resident_peak, 2000);
	expect_end(r);
	ck_assert_int_eq(mlyze_truncated(r), 0);
	close_reader(r);
}
END_TEST

/* A THREAD event names a thread by its whole id; bytes that are not
 * UTF-8 and control characters (a thread may be named with any) are
 * shown as U+FFFD, not refused; a name longer than the kernel keeps is an
 * error. */
START_TEST(thread_names)
{
	mlyze_reader *r = open_script(
		"header start=1000\n" FINALISED_METADATA
		/* tid 70000, "worker-1" */
		"event 12 1 f0a20408776f726b65722d31\n"
		/* tid 5, "a", a stray byte and an escape; an empty name */
		"event 12 1 0503" "61ff1b\n"
		"event 12 1 0600\n");
	struct mlyze_event ev;

	next_ok(r, &ev, MLYZE_EVENT_THREAD);
	ck_assert_uint_eq(ev.time_us, 1001);
	ck_assert_uint_eq(ev.thread.tid, 70000);
	ck_assert_str_eq(ev.thread.name, "worker-1");
	next_ok(r, &ev, MLYZE_EVENT_THREAD);
	ck_assert_uint_eq(ev.thread.tid, 5);
	ck_assert_str_eq(ev.thread.name, "a\xef\xbf\xbd\xef\xbf\xbd");
	next_ok(r, &ev, MLYZE_EVENT_THREAD);
	ck_assert_uint_eq(ev.thread.tid, 6);
	ck_assert_str_eq(ev.thread.name, "");
	expect_end(r);
	close_reader(r);
	expect_error("header start=1000\n" FINALISED_METADATA
		     "event 12 1 011030313233343536373839616263646566\n",
		     "test.mlyze: offset 871: THREAD name of 16 bytes, more "
		     "than the 15 a thread's name has");
}
END_TEST

static void check_frames(const struct mlyze_stack *stack)
{
	const struct mlyze_frame *f = stack->frames;

	ck_assert_uint_eq(stack->id, 7);
	ck_assert_uint_eq(stack->depth, 3);
	ck_assert_int_eq(f[0].form, MLYZE_FORM_MODULE);
	ck_assert_str_eq(f[0].module->path, "/usr/bin/app");
	ck_assert_str_eq(f[0].module->build_id, "abcd");
	ck_assert_uint_eq(f[0].offset, 4200);
	ck_assert_int_eq(f[1].form, MLYZE_FORM_ADDRESS);
	ck_assert_uint_eq(f[1].offset, 99);
	ck_assert_int_eq(f[2].form, MLYZE_FORM_PYTHON);
	ck_assert_str_eq(f[2].file->text, "app.py");
	ck_assert_str_eq(f[2].function->text, "main");
	ck_assert_uint_eq(f[2].line, 12);
}

START_TEST(metadata_definitions)
{
	mlyze_reader *r = open_script("header\n" FINALISED_METADATA);

	check_frames(mlyze_find_stack(r, 7));
	close_reader(r);
}
END_TEST

START_TEST(inline_definitions)
{
	mlyze_reader *r = open_script(
		"header\n"
		"metadata {\"complete\": false, \"sampling_rate\": 512}\n"
		"module 0 0 4096 8192 0 abcd /usr/bin/app\n"
		"string 0 0 0 app.py\n"
		"string 0 1 1 main\n"
		"stack 0 7 native:4200 native:99 python:0:1:12\n"
		"alloc 3 0x10 8 7 1\n");
	struct mlyze_event ev;

	ck_assert_int_eq(warning_count, 1);
	ck_assert_str_eq(last_warning,
			 "test.mlyze: profile was not finalised (process ended "
			 "before writing its metadata); stacks defined so far "
			 "are used");
	next_ok(r, &ev, MLYZE_EVENT_MODULE);
	ck_assert_uint_eq(ev.module.module->end, 8192);
	next_ok(r, &ev, MLYZE_EVENT_STRING);
	ck_assert_int_eq(ev.string.table, MLYZE_TABLE_FILES);
	ck_assert_str_eq(ev.string.string->text, "app.py");
	next_ok(r, &ev, MLYZE_EVENT_STRING);
	ck_assert_int_eq(ev.string.table, MLYZE_TABLE_FUNCTIONS);
	next_ok(r, &ev, MLYZE_EVENT_STACK);
	check_frames(ev.stack.stack);
	next_ok(r, &ev, MLYZE_EVENT_ALLOC);
	ck_assert_ptr_eq(ev.alloc.stack, mlyze_find_stack(r, 7));
	expect_end(r);
	close_reader(r);
}
END_TEST

START_TEST(native_addresses_map_through_the_latest_module)
{
	mlyze_reader *r = open_script(
		"header\n"
		"metadata {\"sampling_rate\": 512}\n"
		"module 0 0 0x7f0000 0x7f8000 0x7e0000 - /lib/old.so\n"
		"stack 0 1 native:0x7f0010\n"
		"module 0 1 0x7f4000 0x7f6000 0x7f0000 - /lib/new.so\n"
		"stack 0 2 native:0x7f0010 native:0x7f4010 native:0x7f8000\n");
	const struct mlyze_stack *s;
	struct mlyze_event ev;

	while (mlyze_next(r, &ev) > 0)
		;
	s = mlyze_find_stack(r, 1);
	ck_assert_str_eq(s->frames[0].module->path, "/lib/old.so");
	ck_assert_uint_eq(s->frames[0].offset, 0x10010);
	s = mlyze_find_stack(r, 2);
	ck_assert_int_eq(s->frames[0].form, MLYZE_FORM_ADDRESS);
	ck_assert_str_eq(s->frames[1].module->path, "/lib/new.so");
	ck_assert_uint_eq(s->frames[1].offset, 0x4010);
	ck_assert_int_eq(s->frames[2].form, MLYZE_FORM_ADDRESS);
	ck_assert_uint_eq(s->frames[2].offset, 0x7f8000);
	close_reader(r);
}
END_TEST

START_TEST(identical_redefinition_is_accepted)
{
	mlyze_reader *r = open_script(
		"header\n" FINALISED_METADATA
		"module 0 0 4096 8192 0 abcd /usr/bin/app\n"
		"string 0 1 1 main\n"
		"stack 0 7 native:4200 native:99 python:0:1:12\n");
	struct mlyze_event ev;

	next_ok(r, &ev, MLYZE_EVENT_MODULE);
	ck_assert_ptr_eq(ev.module.module, mlyze_module_at(r, 0));
	next_ok(r, &ev, MLYZE_EVENT_STRING);
	next_ok(r, &ev, MLYZE_EVENT_STACK);
	ck_assert_ptr_eq(ev.stack.stack, mlyze_find_stack(r, 7));
	ck_assert_uint_eq(mlyze_stack_count(r), 1);
	expect_end(r);
	close_reader(r);
}
END_TEST

START_TEST(unknown_event_types_are_skipped)
{
	mlyze_reader *r = open_script("header start=0\n"
				      "metadata {\"sampling_rate\": 1, "
				      "\"stack_traces\": {\"0\": []}}\n"
				      "event 13 3 deadbeef\n"
				      "event 255 4 \n"
				      "alloc 1 0x10 8 0 1\n");
	struct mlyze_event ev;

	next_ok(r, &ev, MLYZE_EVENT_ALLOC);
	ck_assert_uint_eq(ev.time_us, 8);
	ck_assert_uint_eq(ev.offset, mlyze_position(r) - 14);
	expect_end(r);
	close_reader(r);
}
END_TEST

/* fill_row (/src/row.h:7) inlined into build_table (/src/table.c:42) at
 * 0x1234 of module 0; nothing at 0x3000, which module 0 was read for. */
#define SYMBOL_EVENTS                                                        \
	"event 11 0 00b424020866696c6c5f726f770a2f7372632f726f772e68070b"    \
	"6275696c645f7461626c650c2f7372632f7461626c652e632a\n"                 \
	"event 11 0 00806000\n"

START_TEST(symbol_events_name_native_frames)
{
	mlyze_reader *r = open_script("header\n" FINALISED_METADATA
				      SYMBOL_EVENTS SYMBOL_EVENTS);
	const struct mlyze_module *module;
	const struct mlyze_symbol *symbols;
	struct mlyze_event ev;

	next_ok(r, &ev, MLYZE_EVENT_SYMBOL);
	module = mlyze_find_module(r, 0);
	ck_assert_ptr_eq(ev.symbol.module, module);
	ck_assert_uint_eq(ev.symbol.offset, 0x1234);
	ck_assert_uint_eq(ev.symbol.count, 2);
	ck_assert_str_eq(ev.symbol.symbols[0].function, "fill_row");
	ck_assert_str_eq(ev.symbol.symbols[0].file, "/src/row.h");
	ck_assert_uint_eq(ev.symbol.symbols[0].line, 7);
	ck_assert_int_eq(ev.symbol.symbols[0].inlined, 1);
	ck_assert_str_eq(ev.symbol.symbols[1].function, "build_table");
	ck_assert_uint_eq(ev.symbol.symbols[1].line, 42);
	ck_assert_int_eq(ev.symbol.symbols[1].inlined, 0);
	next_ok(r, &ev, MLYZE_EVENT_SYMBOL);
	ck_assert_uint_eq(ev.symbol.count, 0);
	/* The same again: accepted, as an identical redefinition is. */
	next_ok(r, &ev, MLYZE_EVENT_SYMBOL);
	next_ok(r, &ev, MLYZE_EVENT_SYMBOL);
	expect_end(r);
	ck_assert_int_eq(mlyze_find_symbols(r, module, 0x1234, &symbols), 2);
	ck_assert_str_eq(symbols[1].file, "/src/table.c");
	ck_assert_int_eq(mlyze_find_symbols(r, module, 0x3000, &symbols), 0);
	ck_assert_int_eq(mlyze_find_symbols(r, module, 0x1235, &symbols), -1);
	close_reader(r);
}
END_TEST

/* A sampled mapping, its end, and what remains of it. */
START_TEST(mappings_are_read)
{
	mlyze_reader *r = open_script(
		"header start=0\n"
		"metadata {\"sampling_rate\": 1, \"stack_traces\": {\"0\": []}}\n"
		"event 9 1 0000100000000000808004802000020000\n"
		"event 10 1 0000100000000000808004\n"
		"event 9 1 0000100000000000808001800800020001\n");
	struct mlyze_event ev;

	next_ok(r, &ev, MLYZE_EVENT_MAP);
	ck_assert_uint_eq(ev.map.address, 0x100000);
	ck_assert_uint_eq(ev.map.size, 65536);
	ck_assert_uint_eq(ev.map.sampling_rate, 4096);
	ck_assert_uint_eq(ev.map.stack->id, 0);
	ck_assert_uint_eq(ev.map.thread, 2);
	ck_assert_uint_eq(ev.map.remainder, 0);
	next_ok(r, &ev, MLYZE_EVENT_UNMAP);
	ck_assert_uint_eq(ev.unmap.address, 0x100000);
	ck_assert_uint_eq(ev.unmap.length, 65536);
	next_ok(r, &ev, MLYZE_EVENT_MAP);
	ck_assert_uint_eq(ev.map.size, 16384);
	ck_assert_uint_eq(ev.map.sampling_rate, 1024);
	ck_assert_uint_eq(ev.map.remainder, 1);
	expect_end(r);
	close_reader(r);
}
END_TEST

START_TEST(unknown_keys_are_ignored)
{
	mlyze_reader *r = open_script(
		"header\n"
		"metadata {\"sampling_rate\": 8, \"future\": [1, {\"x\": null}], "
		"\"stats\": {\"samples\": 1, \"mystery\": \"yes\"}, "
		"\"modules\": {\"3\": {\"path\": \"/a\", \"start\": 0, \"end\": 1, "
		"\"load_bias\": 0, \"flavour\": 2}}, "
		"\"stack_traces\": {\"1\": [{\"module_id\": 3, \"offset\": 0, "
		"\"inlined\": true}]}}\n"
		"alloc 0 0x10 8 1 1\n");
	struct mlyze_event ev;

	next_ok(r, &ev, MLYZE_EVENT_ALLOC);
	ck_assert_str_eq(ev.alloc.stack->frames[0].module->path, "/a");
	expect_end(r);
	close_reader(r);
}
END_TEST

START_TEST(payload_bytes_past_the_known_fields_are_ignored)
{
	mlyze_reader *r = open_script("header\n"
				      "metadata {\"sampling_rate\": 8}\n"
				      "event 7 0 8001ff00\n"
				      "event 6 0 01020174ffff\n");
	struct mlyze_event ev;

	next_ok(r, &ev, MLYZE_EVENT_RATE);
	ck_assert_uint_eq(ev.rate.sampling_rate, 128);
	next_ok(r, &ev, MLYZE_EVENT_STRING);
	ck_assert_uint_eq(ev.string.string->id, 2);
	ck_assert_str_eq(ev.string.string->text, "t");
	expect_end(r);
	close_reader(r);
}
END_TEST

/* Many events through the smallest buffer decode as through a large one. */
static char *long_script(void)
{
	size_t size = 1 << 20, n = 0;
	char *s = malloc(size);

	ck_assert_ptr_nonnull(s);
	n += (size_t)snprintf(s + n, size - n,
			      "header\nmetadata {\"sampling_rate\": 4096}\n");
	for (int i = 0; i < 300; i++) {
		n += (size_t)snprintf(s + n, size - n, "stack 0 %d native:%d\n"
				      "alloc %d 0x%x %d %d 7\nfree 1 0x%x\n",
				      i, i * 977, i % 50, 0x1000 + i * 16,
				      i * i + 1, i, 0x1000 + i * 16);
		if (i % 7 == 0) {
			n += (size_t)snprintf(s + n, size - n, "event 13 1 ");
			for (int k = 0; k < 100 + i; k++)
				n += (size_t)snprintf(s + n, size - n, "%02x", k & 0xff);
			n += (size_t)snprintf(s + n, size - n, "\n");
		}
	}
	return s;
}

/* a and b are the same event, read by two readers. */
static void expect_same_event(const struct mlyze_event *a,
			      const struct mlyze_event *b)
{
	ck_assert_int_eq(a->type, b->type);
	ck_assert_uint_eq(a->offset, b->offset);
	ck_assert_uint_eq(a->time_us, b->time_us);
	if (a->type == MLYZE_EVENT_ALLOC) {
		ck_assert_uint_eq(a->alloc.address, b->alloc.address);
		ck_assert_uint_eq(a->alloc.size, b->alloc.size);
		ck_assert_uint_eq(a->alloc.stack->id, b->alloc.stack->id);
	} else if (a->type == MLYZE_EVENT_FREE) {
		ck_assert_uint_eq(a->free.address, b->free.address);
	}
}

/* Both readers of long_script() read its 900 events, and no more. */
static void expect_both_read_all(mlyze_reader *first, int first_fd,
				 mlyze_reader *second, int events)
{
	struct mlyze_event ev;

	ck_assert_int_eq(events, 900);
	ck_assert_int_eq(mlyze_next(first, &ev), 0);
	ck_assert_int_eq(mlyze_next(second, &ev), 0);
	ck_assert_int_eq(mlyze_status(second), MLYZE_OK);
	mlyze_close(first);
	close(first_fd);
	close_reader(second);
}

START_TEST(small_buffer_reads_the_same_events)
{
	char *script = long_script();
	mlyze_reader *big = open_script_buffered(script, 0);
	int big_fd = profile_fd;
	mlyze_reader *small = open_script_buffered(script, 256);
	struct mlyze_event a, b;
	int events = 0;

	while (mlyze_next(big, &a) > 0) {
		ck_assert_int_eq(mlyze_next(small, &b), 1);
		expect_same_event(&a, &b);
		events++;
	}
	expect_both_read_all(big, big_fd, small, events);
	free(script);
}
END_TEST

/* Batches hold the events mlyze_next() reads one by one, through the
 * smallest buffer too; only ALLOCs and FREEs come before another event
 * in a batch. */
START_TEST(batches_read_the_same_events)
{
	char *script = long_script();
	mlyze_reader *one = open_script_buffered(script, 0);
	int one_fd = profile_fd;
	mlyze_reader *batched = open_script_buffered(script, 256);
	struct mlyze_event a, batch[5];
	int n, events = 0;

	while ((n = mlyze_next_events(batched, batch, 5)) > 0) {
		for (int i = 0; i < n; i++) {
			ck_assert_int_eq(mlyze_next(one, &a), 1);
			expect_same_event(&a, &batch[i]);
			if (a.type > MLYZE_EVENT_FREE)
				ck_assert_int_eq(i, n - 1);
		}
		events += n;
	}
	ck_assert_int_eq(n, 0);
	expect_both_read_all(one, one_fd, batched, events);
	free(script);
}
END_TEST

/* In the child: bytes into the pipe's end fd in chunks of 1 to 13 bytes,
 * each written once the reader has taken the one before, so that every
 * read() of the reader returns a chunk and the buffer's edges fall
 * inside every field, varints too. */
static void write_in_chunks(int fd, const uint8_t *data, size_t length)
{
	static const size_t sizes[] = { 1, 2, 3, 5, 7, 11, 13 };
	struct pollfd reader = { .fd = fd, .events = 0 }; /* POLLERR */
	size_t done = 0, chunk;
	int unread;

	for (unsigned i = 0; done < length; i++) {
		chunk = sizes[i % 7] < length - done ? sizes[i % 7]
						      : length - done;
		if (write(fd, data + done, chunk) != (ssize_t)chunk)
			_exit(1);
		done += chunk;
		while (ioctl(fd, FIONREAD, &unread) == 0 && unread > 0) {
			if (poll(&reader, 1, 0) > 0)
				_exit(1); /* the reader is gone */
			sched_yield();
		}
	}
	_exit(0);
}

/* A reader of bytes through a pipe, written in chunks by a child
 * (*writer: close the reader with close_piped()). */
static mlyze_reader *open_bytes_piped(const uint8_t *data, size_t length,
				      size_t buffer_size, pid_t *writer)
{
	struct mlyze_options options = { .buffer_size = buffer_size,
					 .warn = record_warning };
	int ends[2];
	mlyze_reader *r;

	ck_assert_int_eq(pipe(ends), 0);
	*writer = fork();
	ck_assert_int_ne(*writer, -1);
	if (*writer == 0) {
		close(ends[0]);
		write_in_chunks(ends[1], data, length);
	}
	close(ends[1]);
	profile_fd = ends[0];
	warning_count = 0;
	last_warning[0] = '\0';
	r = mlyze_open_fd(profile_fd, "test.mlyze", &options);
	ck_assert_ptr_nonnull(r);
	return r;
}

static void close_piped(mlyze_reader *r, pid_t writer)
{
	int status;

	close_reader(r);
	ck_assert_int_eq(waitpid(writer, &status, 0), writer);
}

/* A profile through a pipe that hands it over a few bytes at a time (as
 * the base of a difference is fed to memprof-report) reads as from a
 * file, through a small buffer and the default one, whole and with the
 * unwritten tail of a streamed file (shorter than the buffer, as the
 * server feeds it: a pipe cannot be read ahead). */
START_TEST(a_profile_through_a_pipe_in_small_chunks_reads_the_same)
{
	static const char whole[] = "metadata {";
	char *script = long_script();
	char *streamed = malloc(strlen(script) + 64);
	const char *const scripts[] = { script, streamed };
	const char *metadata = strstr(script, whole) + strlen(whole);

	ck_assert_ptr_nonnull(streamed);
	sprintf(streamed, "header\nmetadata {\"complete\": false, %szeros 200\n",
		metadata);
	for (size_t i = 0; i < 2; i++) {
		for (size_t buffer = 0; buffer <= 256; buffer += 256) {
			struct bytes profile = { 0 };
			mlyze_reader *file = open_script(scripts[i]);
			int file_fd = profile_fd;
			pid_t writer;
			mlyze_reader *piped;
			struct mlyze_event a, b;
			int events = 0;

			compile(scripts[i], &profile);
			piped = open_bytes_piped(profile.data, profile.length,
						 buffer, &writer);
			bytes_free(&profile);
			while (mlyze_next(file, &a) > 0) {
				int rc = mlyze_next(piped, &b);

				ck_assert_msg(rc == 1, "event %d through the "
					      "pipe: %d (%s)", events, rc,
					      mlyze_error(piped)
						      ? mlyze_error(piped)
						      : "no error");
				expect_same_event(&a, &b);
				events++;
			}
			ck_assert_int_eq(events, 900);
			ck_assert_int_eq(mlyze_next(file, &a), 0);
			ck_assert_msg(mlyze_next(piped, &b) == 0,
				      "script %zu, buffer %zu: the pipe reads "
				      "type %d at offset %" PRIu64 " after the "
				      "last event", i, buffer, (int)b.type,
				      b.offset);
			ck_assert_int_eq(mlyze_status(piped), MLYZE_OK);
			mlyze_close(file);
			close(file_fd);
			close_piped(piped, writer);
		}
	}
	free(streamed);
	free(script);
}
END_TEST

START_TEST(a_cut_file_is_read_to_its_last_whole_event)
{
	mlyze_reader *r = open_script("header\n"
				      "metadata {\"sampling_rate\": 8, "
				      "\"stack_traces\": {\"0\": []}}\n"
				      "alloc 0 0x10 8 0 1\n"
				      "bytes 00 05 00 10\n");
	uint64_t cut_at = 256 + mlyze_info(r)->metadata_length + 14;
	struct mlyze_event ev;
	char expected[256];

	next_ok(r, &ev, MLYZE_EVENT_ALLOC);
	ck_assert_int_eq(mlyze_next(r, &ev), 0);
	ck_assert_int_eq(mlyze_truncated(r), 1);
	ck_assert_int_eq(mlyze_status(r), MLYZE_OK);
	snprintf(expected, sizeof(expected),
		 "test.mlyze: offset %llu: ALLOC event cut short by the end "
		 "of the file; read up to the last whole event",
		 (unsigned long long)cut_at);
	ck_assert_str_eq(last_warning, expected);
	close_reader(r);
}
END_TEST

START_TEST(a_cut_unknown_payload_is_a_cut_file)
{
	mlyze_reader *r = open_script_buffered("header\n"
					       "metadata {}\n"
					       "bytes 0d 00 e8 07 0102030405\n",
					       256);
	struct mlyze_event ev;

	ck_assert_int_eq(mlyze_next(r, &ev), 0);
	ck_assert_int_eq(mlyze_truncated(r), 1);
	ck_assert_ptr_nonnull(strstr(last_warning, "offset 258: type 13 event cut short"));
	close_reader(r);
}
END_TEST

START_TEST(errors_name_the_offset_and_the_problem)
{
	expect_error("bytes 4d545243", "test.mlyze: offset 0: file too short "
		     "for a header (4 of 256 bytes)");
	expect_error("header magic=MTRX\nmetadata {}\n",
		     "test.mlyze: offset 0: bad magic (not a .mlyze profile)");
	expect_error("header\nmetadata {}\nbytes 00 00 0000000000000000 80 00\n",
		     "test.mlyze: offset 268: overlong varint in ALLOC size");
	expect_error("header\nmetadata {\"stack_traces\": {\"0\": []}}\n"
		     "alloc 0 0x10 8 3 1\n",
		     "test.mlyze: offset 283: ALLOC references undefined stack 3");
	expect_error("header\nmetadata {\"stack_traces\": {\"0\": []}}\n"
		     "stack 0 0 native:5\n",
		     "test.mlyze: offset 283: stack 0 redefined with different "
		     "content");
	expect_error("header\nmetadata {}\nevent 4 0 80\n",
		     "test.mlyze: offset 258: STACK payload too short (1 bytes)");
}
END_TEST

/* Reads every event to the end; returns the ALLOC events. */
static int count_allocs_to_end(mlyze_reader *r)
{
	struct mlyze_event ev;
	int rc, allocs = 0;

	while ((rc = mlyze_next(r, &ev)) > 0)
		allocs += ev.type == MLYZE_EVENT_ALLOC;
	ck_assert_msg(rc == 0, "%s", mlyze_error(r));
	return allocs;
}

START_TEST(a_damaged_stack_in_the_metadata_damages_that_stack_only)
{
	mlyze_reader *r = open_script(
		"header\n"
		"metadata {\"sampling_rate\": 8, \"files\": {\"0\": \"a.py\"}, "
		"\"functions\": {\"0\": \"f\"}, \"stack_traces\": {"
		"\"0\": [{\"file_id\": 0, \"func_id\": 0, \"line\": 1}], "
		"\"1\": [{\"address\": 5}, {\"file_id\": 1048575, "
		"\"func_id\": 1047552, \"line\": 1}], "
		"\"2\": [{\"module_id\": 4, \"offset\": 0}], \"3\": 7}}\n"
		"alloc 0 0x10 8 1 1\n"
		"alloc 0 0x20 8 0 1\n");
	const struct mlyze_stack *damaged = mlyze_find_stack(r, 1);
	struct mlyze_event ev;

	ck_assert_int_eq(mlyze_status(r), MLYZE_OK);
	ck_assert_uint_eq(mlyze_info(r)->damaged_stacks, 3);
	ck_assert_int_eq(damaged->damaged, 1);
	ck_assert_uint_eq(damaged->depth, 0);
	ck_assert_int_eq(mlyze_find_stack(r, 0)->damaged, 0);
	ck_assert_uint_eq(mlyze_find_stack(r, 0)->depth, 1);
	ck_assert_int_eq(warning_count, 0);
	next_ok(r, &ev, MLYZE_EVENT_ALLOC);
	ck_assert_ptr_eq(ev.alloc.stack, damaged);
	next_ok(r, &ev, MLYZE_EVENT_ALLOC);
	expect_end(r);
	ck_assert_int_eq(warning_count, 1);
	ck_assert_str_eq(last_warning,
			 "test.mlyze: 3 damaged stacks read without frames, "
			 "their samples unattributed (the first: offset 256: "
			 "stack 1 references undefined file 1048575)");
	close_reader(r);
}
END_TEST

START_TEST(a_damaged_stack_in_the_stream_damages_that_stack_only)
{
	mlyze_reader *r = open_script(
		"header\n"
		"metadata {\"complete\": false, \"sampling_rate\": 8}\n"
		"stack 0 1 native:5 python:1048575:1047552:1\n"
		"stack 0 1 native:5 python:1048575:1047552:1\n"
		"event 4 0 020207\n"
		"stack 0 3 native:6\n"
		"alloc 0 0x10 8 1 1\n"
		"alloc 0 0x20 8 2 1\n"
		"alloc 0 0x30 8 3 1\n");
	struct mlyze_event ev;

	next_ok(r, &ev, MLYZE_EVENT_STACK);
	ck_assert_int_eq(ev.stack.stack->damaged, 1);
	next_ok(r, &ev, MLYZE_EVENT_STACK);
	ck_assert_ptr_eq(ev.stack.stack, mlyze_find_stack(r, 1));
	next_ok(r, &ev, MLYZE_EVENT_STACK);
	ck_assert_int_eq(ev.stack.stack->damaged, 1);
	next_ok(r, &ev, MLYZE_EVENT_STACK);
	ck_assert_int_eq(ev.stack.stack->damaged, 0);
	ck_assert_int_eq(count_allocs_to_end(r), 3);
	ck_assert_uint_eq(mlyze_info(r)->damaged_stacks, 2);
	ck_assert_int_eq(warning_count, 2);
	ck_assert_ptr_nonnull(strstr(last_warning, "2 damaged stacks"));
	close_reader(r);
	/* A stack defined whole cannot be redefined damaged. */
	expect_error("header\nmetadata {\"stack_traces\": {\"0\": []}}\n"
		     "stack 0 0 python:9:9:1\n",
		     "test.mlyze: offset 283: stack 0 redefined with different "
		     "content");
}
END_TEST

#define STREAMED_METADATA                                                    \
	"header\n"                                                           \
	"metadata {\"complete\": false, \"sampling_rate\": 8, "              \
	"\"stack_traces\": {\"1\": []}}\n"                                   \
	"alloc 0 0x10 8 1 1\n"

START_TEST(the_unwritten_tail_of_a_streamed_file_ends_it)
{
	/* Tails shorter and longer than the buffer, read through a small
	 * and the default buffer. */
	static const char *const tails[] = { "zeros 1\n", "zeros 100\n",
					     "zeros 9000\n", "zeros 70000\n" };

	for (size_t i = 0; i < 4; i++) {
		char script[512];

		snprintf(script, sizeof(script), "%s%s", STREAMED_METADATA,
			 tails[i]);
		for (size_t buffer = 0; buffer <= 256; buffer += 256) {
			mlyze_reader *r = open_script_buffered(script, buffer);

			ck_assert_int_eq(count_allocs_to_end(r), 1);
			ck_assert_int_eq(mlyze_truncated(r), 0);
			ck_assert_int_eq(warning_count, 1); /* not finalised */
			close_reader(r);
		}
	}
}
END_TEST

START_TEST(zero_bytes_followed_by_data_are_read_as_events)
{
	/* Zero events at address 0 of stack 0, which is not defined. */
	for (size_t buffer = 0; buffer <= 256; buffer += 256) {
		char expected[128];
		mlyze_reader *r = open_script_buffered(
			STREAMED_METADATA "zeros 9000\nbytes 01\n", buffer);
		struct mlyze_event ev;

		snprintf(expected, sizeof(expected),
			 "test.mlyze: offset %u: ALLOC references undefined "
			 "stack 0", 256 + mlyze_info(r)->metadata_length + 14);
		next_ok(r, &ev, MLYZE_EVENT_ALLOC);
		ck_assert_int_eq(mlyze_next(r, &ev), -1);
		ck_assert_str_eq(mlyze_error(r), expected);
		close_reader(r);
	}
	/* A finalised file has no unwritten tail. */
	expect_error("header\nmetadata {\"complete\": true, "
		     "\"stack_traces\": {\"1\": []}}\nzeros 100\n",
		     "test.mlyze: offset 301: ALLOC references undefined "
		     "stack 0");
}
END_TEST

/* Reads every event to the end; returns how many, failing on an error. */
static int count_events_to_end(mlyze_reader *r)
{
	struct mlyze_event ev;
	int rc, events = 0;

	while ((rc = mlyze_next(r, &ev)) > 0)
		events++;
	ck_assert_msg(rc == 0, "%s", mlyze_error(r));
	return events;
}

/* A process killed while writing an event leaves the event's first bytes
 * and the zeros after them.  Wherever the cut falls, in an event of any
 * type, the events before it are read and nothing fails; where the event
 * cannot be read, the reader says it was cut short. */
#define FOUR_STREAMED_EVENTS                                                 \
	"header\n"                                                          \
	"metadata {\"complete\": false, \"sampling_rate\": 8}\n"            \
	"string 0 0 200 a.py\n"                                             \
	"string 0 1 200 load\n"                                             \
	"stack 0 200 native:4096\n"                                         \
	"alloc 0 0x10 8 200 1\n"

START_TEST(an_event_its_writer_did_not_finish_ends_the_events)
{
	static const char prefix[] = FOUR_STREAMED_EVENTS;
	static const char *const last_events[] = {
		"alloc 300 0x7f0012345678 100000 200 4660\n",
		"free 300 0x7f0012345678\n",
		"gc 300 100000 200000\n",
		"marker 300 200\n",
		"stack 300 201 native:0x7f0012345678 python:200:200:4660\n",
		"module 300 9 0x7f0000000000 0x7f0000100000 0 abcdef "
		"/usr/lib/libx.so\n",
		"string 300 1 201 a_function_name\n",
		"rate 300 100000\n",
	};
	struct bytes before = { 0 };
	int cut_short = 0;

	compile(prefix, &before);
	for (size_t e = 0; e < sizeof(last_events) / sizeof(*last_events);
	     e++) {
		struct bytes all = { 0 };
		char script[512];

		snprintf(script, sizeof(script), "%s%s", prefix, last_events[e]);
		compile(script, &all);
		for (size_t kept = before.length; kept <= all.length; kept++) {
			uint8_t *cut = calloc(1, all.length + 64);
			mlyze_reader *r;
			pid_t writer;
			int events;

			memcpy(cut, all.data, kept);
			r = open_bytes(cut, all.length + 64, 0);
			events = count_events_to_end(r);
			ck_assert_msg(events == 4 + (kept == all.length) ||
					      (events == 5 && kept > before.length),
				      "%s cut after %zu bytes: %d events",
				      last_events[e], kept - before.length,
				      events);
			cut_short += strstr(last_warning,
					    "cut short where the writing stopped") !=
				     NULL;
			close_reader(r);
			/* The same through a pipe (a base fed to a report),
			 * which cannot be read ahead. */
			r = open_bytes_piped(cut, all.length + 64, 0, &writer);
			ck_assert_msg(count_events_to_end(r) == events,
				      "%s cut after %zu bytes, through a pipe: "
				      "%s", last_events[e],
				      kept - before.length,
				      mlyze_error(r) ? mlyze_error(r)
						     : "fewer events");
			close_piped(r, writer);
			free(cut);
		}
		bytes_free(&all);
	}
	bytes_free(&before);
	ck_assert_int_gt(cut_short, 0);
}
END_TEST

/* A file read while its process writes it: the reader buffered the
 * first bytes of the last event, and the zeros after them, before the
 * writer finished it.  Wherever the cut fell, the event is read whole. */
START_TEST(an_event_finished_after_it_was_buffered_is_read_whole)
{
	struct bytes before = { 0 }, all = { 0 };

	compile(FOUR_STREAMED_EVENTS, &before);
	compile(FOUR_STREAMED_EVENTS
		"alloc 300 0x7f0012345678 100000 200 4660\n", &all);
	/* From its second byte: an ALLOC's first byte, its type, is 0, which
	 * the reader cannot tell from the unwritten tail. */
	for (size_t kept = before.length + 2; kept < all.length; kept++) {
		uint8_t *cut = calloc(1, all.length + 64);
		struct mlyze_event ev;
		mlyze_reader *r;

		memcpy(cut, all.data, kept);
		r = open_bytes(cut, all.length + 64, 0);
		for (int i = 0; i < 4; i++)
			ck_assert_int_eq(mlyze_next(r, &ev), 1);
		ck_assert_int_eq(pwrite(profile_fd, all.data + kept,
					all.length - kept, (off_t)kept),
				 (ssize_t)(all.length - kept));
		ck_assert_msg(mlyze_next(r, &ev) == 1, "cut after %zu: %s",
			      kept - before.length,
			      mlyze_error(r) ? mlyze_error(r) : "no event");
		ck_assert_int_eq(ev.type, MLYZE_EVENT_ALLOC);
		ck_assert_uint_eq(ev.alloc.address, 0x7f0012345678);
		ck_assert_uint_eq(ev.alloc.size, 100000);
		ck_assert_uint_eq(ev.alloc.thread, 4660);
		ck_assert_int_eq(mlyze_next(r, &ev), 0);
		close_reader(r);
		free(cut);
	}
	bytes_free(&before);
	bytes_free(&all);
}
END_TEST

/* FOUR_STREAMED_EVENTS, a STACK of a new stack, an ALLOC of it: the
 * bytes up to the STACK, up to the ALLOC, and all of them. */
struct new_stack_profile {
	struct bytes before, defined, all;
};

#define A_NEW_STACK "stack 0 201 native:0x7f0012345678 native:0x7f0012340000\n"

static void compile_new_stack(struct new_stack_profile *p)
{
	compile(FOUR_STREAMED_EVENTS, &p->before);
	compile(FOUR_STREAMED_EVENTS A_NEW_STACK, &p->defined);
	compile(FOUR_STREAMED_EVENTS A_NEW_STACK
		"alloc 300 0x7f0012345678 100000 201 4660\n", &p->all);
}

static void free_new_stack(struct new_stack_profile *p)
{
	bytes_free(&p->before);
	bytes_free(&p->defined);
	bytes_free(&p->all);
}

/* The STACK and the ALLOC of the new stack next, as written, then the
 * end. */
static void expect_new_stack_and_alloc(mlyze_reader *r)
{
	struct mlyze_event ev;

	next_ok(r, &ev, MLYZE_EVENT_STACK);
	ck_assert_uint_eq(ev.stack.stack->id, 201);
	next_ok(r, &ev, MLYZE_EVENT_ALLOC);
	ck_assert_uint_eq(ev.alloc.stack->id, 201);
	ck_assert_uint_eq(ev.alloc.stack->depth, 2);
	ck_assert_int_eq(ev.alloc.stack->damaged, 0);
	ck_assert_uint_eq(ev.alloc.stack->frames[1].offset, 0x7f0012340000);
	expect_end(r);
}

/* A reader that reached the end of the events its writer had written,
 * the writer stopped in the middle of a STACK (preempted for longer than
 * the reader waits), takes the STACK up again where it stopped once the
 * writer has finished it: read from its zeros, it would define a stack
 * without its frames, or another stack (0, before its id is written),
 * and the ALLOC after it would find none. */
START_TEST(a_definition_its_writer_had_not_finished_is_read_when_followed)
{
	struct new_stack_profile p = { 0 };

	compile_new_stack(&p);
	for (size_t kept = p.before.length + 1; kept < p.defined.length;
	     kept++) {
		size_t length = p.all.length + 64;
		uint8_t *cut = calloc(1, length);
		mlyze_reader *r;

		memcpy(cut, p.all.data, kept);
		r = open_bytes(cut, length, 0);
		ck_assert_int_eq(count_events_to_end(r), 4);
		ck_assert_int_eq(pwrite(profile_fd, p.all.data + kept,
					p.all.length - kept, (off_t)kept),
				 (ssize_t)(p.all.length - kept));
		ck_assert_int_eq(mlyze_follow(r), 0);
		expect_new_stack_and_alloc(r);
		close_reader(r);
		free(cut);
	}
	free_new_stack(&p);
}
END_TEST

/* The same for any other event: read from its zeros, an ALLOC whose
 * thread its writer had not written yet has thread 0 (another field,
 * another value; a varint, a length that puts the events after it out
 * of step).  Read so as the last event of the file, it is checked when
 * the reader follows the file: read whole, the reader reads on; read
 * wrong, it refuses to follow, for the events to be read anew. */
START_TEST(an_event_read_before_its_writer_finished_it_is_checked_when_followed)
{
	struct bytes before = { 0 }, all = { 0 };
	int refused = 0;

	compile(FOUR_STREAMED_EVENTS, &before);
	compile(FOUR_STREAMED_EVENTS
		"alloc 300 0x7f0012345678 100000 200 4660\n", &all);
	for (size_t kept = before.length + 2; kept <= all.length; kept++) {
		size_t length = all.length + 64;
		uint8_t *cut = calloc(1, length);
		struct mlyze_event ev;
		mlyze_reader *r;
		int rc;

		memcpy(cut, all.data, kept);
		r = open_bytes(cut, length, 0);
		for (int i = 0; i < 4; i++)
			ck_assert_int_eq(mlyze_next(r, &ev), 1);
		rc = mlyze_next(r, &ev); /* the ALLOC as written so far */
		ck_assert_int_ge(rc, 0);
		expect_end(r);
		ck_assert_int_eq(pwrite(profile_fd, all.data + kept,
					all.length - kept, (off_t)kept),
				 (ssize_t)(all.length - kept));
		if (mlyze_follow(r) < 0) {
			refused++;
		} else {
			if (rc == 0)
				next_ok(r, &ev, MLYZE_EVENT_ALLOC);
			ck_assert_msg(ev.alloc.thread == 4660 &&
					      ev.alloc.size == 100000,
				      "cut after %zu: read as thread %u",
				      kept - before.length, ev.alloc.thread);
			expect_end(r);
		}
		close_reader(r);
		free(cut);
	}
	ck_assert_int_gt(refused, 0);
	bytes_free(&before);
	bytes_free(&all);
}
END_TEST

/* A read() of a file its writer writes meanwhile copies page after page:
 * the pages copied last may hold bytes written after the zeros that the
 * first ones held.  torn_read() stands for read() (the library's calls
 * come to it) and tears the first read of `fd` that holds [hole, torn)
 * so: the writer writes `rest` at `hole` while the bytes before `torn`
 * are copied, those from `torn` on after it wrote them. */
static struct {
	int fd; /* -1: no read is torn */
	off_t hole, torn;
	const uint8_t *rest;
	size_t rest_length;
} tearing = { .fd = -1 };

ssize_t torn_read(int fd, void *buffer, size_t n) __asm__("read");

ssize_t torn_read(int fd, void *buffer, size_t n)
{
	off_t at = fd == tearing.fd ? lseek(fd, 0, SEEK_CUR) : -1;
	ssize_t got = syscall(SYS_read, fd, buffer, n);
	size_t written_late;

	if (at < 0 || at > tearing.hole || at + got <= tearing.torn)
		return got;
	ck_assert_int_eq(pwrite(fd, tearing.rest, tearing.rest_length,
				tearing.hole),
			 (ssize_t)tearing.rest_length);
	written_late = tearing.rest_length -
		       (size_t)(tearing.torn - tearing.hole);
	if (written_late > (size_t)(at + got - tearing.torn))
		written_late = (size_t)(at + got - tearing.torn);
	memcpy((uint8_t *)buffer + (tearing.torn - at),
	       tearing.rest + (tearing.torn - tearing.hole), written_late);
	tearing.fd = -1;
	return got;
}

/* A reader preempted in the middle of a read() while its writer wrote a
 * STACK and the ALLOC of that stack: the read held the STACK's first
 * bytes, zeros where the rest was still to be written, and the ALLOC
 * after them.  The STACK is read as written, not as its zeros said (a
 * stack 0 without frames), and the ALLOC finds it. */
START_TEST(a_read_its_writer_overtook_is_read_as_written)
{
	struct new_stack_profile p = { 0 };

	compile_new_stack(&p);
	/* Read whole at once, and through a small buffer. */
	for (size_t buffer = 0; buffer <= 256; buffer += 256) {
		/* Type, delta and payload length of the STACK written. */
		size_t hole = p.before.length + 3, length = p.all.length + 64;
		uint8_t *unwritten = calloc(1, length);
		struct mlyze_event ev;
		mlyze_reader *r;

		memcpy(unwritten, p.all.data, hole);
		tearing.hole = (off_t)hole;
		tearing.torn = (off_t)p.defined.length;
		tearing.rest = p.all.data + hole;
		tearing.rest_length = p.all.length - hole;
		write_bytes(unwritten, length);
		tearing.fd = profile_fd;
		r = open_written(buffer);
		for (int i = 0; i < 4; i++)
			ck_assert_int_eq(mlyze_next(r, &ev), 1);
		expect_new_stack_and_alloc(r);
		ck_assert_int_eq(tearing.fd, -1); /* a read was torn */
		close_reader(r);
		free(unwritten);
	}
	free_new_stack(&p);
}
END_TEST

/* How long the reader waits for a writer stopped in the middle of an
 * event (SETTLING_PAUSE_NS in mlyze-reader.c). */
#define READER_PAUSE_NS 2000000

static uint64_t monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Writes the events of `all` after `header` into fd, each in two halves
 * a moment apart, as a writer stopped in an event by a page fault leaves
 * it; how long each event stood half-written goes into half_written_ns. */
static void write_in_halves(int fd, const struct bytes *all, size_t header,
			    size_t events, uint64_t *half_written_ns)
{
	const struct timespec pause = { 0, 100000 };
	size_t length = (all->length - header) / events, half = length / 2;

	for (size_t e = 0; e < events; e++) {
		off_t at = (off_t)(header + e * length);
		uint64_t start = monotonic_ns();

		if (pwrite(fd, all->data + at, half, at) != (ssize_t)half)
			_exit(1);
		nanosleep(&pause, NULL);
		if (pwrite(fd, all->data + at + half, length - half,
			   at + (off_t)half) != (ssize_t)(length - half))
			_exit(1);
		half_written_ns[e] = monotonic_ns() - start;
		nanosleep(&pause, NULL);
	}
	_exit(0);
}

/* Reads the file at path to its end; returns how many events of the
 * expected values came before the first that is not (or the error). */
static int whole_events_read(const char *path, bool *failed)
{
	/* A small buffer: refilled many times, as a long file is. */
	struct mlyze_options options = { .buffer_size = 512 };
	const struct timespec pause = { 0, 10000 };
	mlyze_reader *r = mlyze_open(path, &options);
	struct mlyze_event ev;
	int rc, events = 0;

	ck_assert_ptr_nonnull(r);
	while ((rc = mlyze_next(r, &ev)) > 0 &&
	       ev.alloc.address == 0x7f0000u + 16u * (unsigned)events &&
	       ev.alloc.size == 1000u + (unsigned)events &&
	       ev.alloc.thread == 7) {
		/* Slowly, so that the writer writes on meanwhile. */
		nanosleep(&pause, NULL);
		events++;
	}
	*failed = rc != 0;
	mlyze_close(r);
	return events;
}

/* A writer process writes events, each in two halves, and a reader reads
 * the file again and again while it does: every read ends without error,
 * at a whole event, with the values written, unless its writer stood in
 * that event for longer than the reader waits. */
START_TEST(a_file_read_while_written_is_read_to_its_last_whole_event)
{
	enum { EVENTS = 400 };
	char path[] = "/tmp/check-reader-XXXXXX";
	struct bytes header = { 0 }, all = { 0 };
	char *script = malloc(64 * EVENTS + 256), *at = script;
	uint64_t *half_written_ns = mmap(NULL, EVENTS * sizeof(uint64_t),
					 PROT_READ | PROT_WRITE,
					 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	bool read_wrong[EVENTS + 1] = { false };
	int fd = mkstemp(path), reads = 0, status;
	pid_t writer;

	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_ne(half_written_ns, MAP_FAILED);
	at += sprintf(at, "header\nmetadata {\"complete\": false, "
			  "\"stack_traces\": {\"1\": []}}\n");
	compile(script, &header);
	for (int i = 0; i < EVENTS; i++)
		at += sprintf(at, "alloc 3 0x%x %d 1 7\n", 0x7f0000 + 16 * i,
			      1000 + i);
	compile(script, &all);
	ck_assert_uint_eq((all.length - header.length) % EVENTS, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)all.length + 4096), 0);
	ck_assert_int_eq(pwrite(fd, all.data, header.length, 0),
			 (ssize_t)header.length);
	writer = fork();
	ck_assert_int_ge(writer, 0);
	if (writer == 0)
		write_in_halves(fd, &all, header.length, EVENTS,
				half_written_ns);
	while (waitpid(writer, &status, WNOHANG) == 0 || reads == 0) {
		bool failed;
		int events = whole_events_read(path, &failed);

		if (failed)
			read_wrong[events] = true;
		reads++;
	}
	for (int e = 0; e < EVENTS; e++)
		ck_assert_msg(!read_wrong[e] ||
				      half_written_ns[e] > READER_PAUSE_NS,
			      "event %d read wrong, half-written for %" PRIu64
			      " ns only", e, half_written_ns[e]);
	ck_assert_int_eq(status, 0);
	ck_assert_int_gt(reads, 3);
	unlink(path);
	close(fd);
	free(script);
	munmap(half_written_ns, EVENTS * sizeof(uint64_t));
	bytes_free(&header);
	bytes_free(&all);
}
END_TEST

START_TEST(how_the_process_ended_is_exposed)
{
	mlyze_reader *r = open_script(
		"header\n"
		"metadata {\"ended_by\": \"exec\", "
		"\"exec_program\": \"/usr/bin/env\"}\n");

	ck_assert_str_eq(mlyze_info(r)->ended_by, "exec");
	ck_assert_str_eq(mlyze_info(r)->exec_program, "/usr/bin/env");
	expect_end(r);
	close_reader(r);
	r = open_script("header\nmetadata {\"ended_by\": \"exit\"}\n");
	ck_assert_str_eq(mlyze_info(r)->ended_by, "exit");
	ck_assert_ptr_null(mlyze_info(r)->exec_program);
	close_reader(r);
}
END_TEST

START_TEST(sparse_and_dense_ids_are_found)
{
	static const uint64_t ids[] = { 100, 5, 65, 4294967295u, 0, 1000000 };
	mlyze_reader *r = open_script(
		"header\nmetadata {\"sampling_rate\": 8, \"stack_traces\": "
		"{\"100\": [], \"5\": [], \"65\": [], \"4294967295\": [], "
		"\"0\": []}}\n"
		"stack 0 1000000\n");
	struct mlyze_event ev;

	next_ok(r, &ev, MLYZE_EVENT_STACK);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		ck_assert_ptr_nonnull(mlyze_find_stack(r, ids[i]));
		ck_assert_uint_eq(mlyze_find_stack(r, ids[i])->id, ids[i]);
		ck_assert_uint_eq(mlyze_find_stack(r, ids[i])->index, i);
	}
	ck_assert_ptr_null(mlyze_find_stack(r, 6));
	ck_assert_ptr_null(mlyze_find_stack(r, 101));
	ck_assert_ptr_null(mlyze_find_stack(r, 4294967294u));
	close_reader(r);
}
END_TEST

START_TEST(a_definition_larger_than_the_buffer_is_refused)
{
	char script[1024] = "header\nmetadata {\"sampling_rate\": 8}\n"
			    "event 6 0 0100ac02";
	mlyze_reader *r;
	struct mlyze_event ev;

	/* STRING: table 1, id 0, 300 bytes of text, then more events. */
	for (int i = 0; i < 300; i++)
		strcat(script, "61");
	strcat(script, "\ngc 0 1 1\ngc 0 1 1\n");
	r = open_script_buffered(script, 256);
	ck_assert_int_eq(mlyze_next(r, &ev), -1);
	ck_assert_str_eq(mlyze_error(r),
			 "test.mlyze: offset 276: STRING payload of 304 bytes "
			 "is larger than the read buffer (256 bytes)");
	close_reader(r);
}
END_TEST

static void weight_of(uint64_t size, uint64_t rate, double bytes,
		      double count)
{
	struct mlyze_weight w;

	mlyze_weigh(size, rate, &w);
	ck_assert_double_eq_tol(w.bytes, bytes, bytes * 1e-12 + 1e-12);
	ck_assert_double_eq_tol(w.count, count, count * 1e-12 + 1e-12);
	ck_assert_double_eq_tol(w.bytes_variance, w.bytes * (w.bytes - size),
				w.bytes * w.bytes * 1e-12 + 1e-12);
	ck_assert_double_eq_tol(w.count_variance, w.count * (w.count - 1),
				w.count * w.count * 1e-12 + 1e-12);
}

START_TEST(weights)
{
	double p = 1 - exp(-1.0);

	/* s = S: p = 1 - 1/e. */
	weight_of(1000, 1000, 1000 / p, 1 / p);
	/* Tiny blocks stand for about S bytes each: s / (s/S - s²/2S²). */
	weight_of(1, 1 << 20, 1048576.5, 1048576.5);
	/* Huge blocks are always sampled and stand for themselves. */
	weight_of(100u << 20, 1 << 20, 100u << 20, 1);
	/* Unknown rate: every sample counts once. */
	weight_of(123, 0, 123, 1);
	/* A block of 0 bytes is never sampled: it stands for nothing, as in
	 * memprof_estimate_bytes(), whatever the rate. */
	weight_of(0, 512, 0, 0);
	weight_of(0, 0, 0, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("libmlyze");
	TCase *t = tcase_create("reader");
	SRunner *sr;
	int failed;

	tcase_add_test(t, header_and_metadata);
	tcase_add_test(t, stack_methods);
	tcase_add_test(t, stats_by_name);
	tcase_add_test(t, every_stat_key_has_one_home);
	tcase_add_test(t, symbol_events_name_native_frames);
	tcase_add_test(t, every_event_type);
	tcase_add_test(t, thread_names);
	tcase_add_test(t, metadata_definitions);
	tcase_add_test(t, inline_definitions);
	tcase_add_test(t, native_addresses_map_through_the_latest_module);
	tcase_add_test(t, identical_redefinition_is_accepted);
	tcase_add_test(t, unknown_event_types_are_skipped);
	tcase_add_test(t, mappings_are_read);
	tcase_add_test(t, unknown_keys_are_ignored);
	tcase_add_test(t, payload_bytes_past_the_known_fields_are_ignored);
	tcase_add_test(t, small_buffer_reads_the_same_events);
	tcase_add_test(t, batches_read_the_same_events);
	tcase_add_test(t, a_profile_through_a_pipe_in_small_chunks_reads_the_same);
	tcase_add_test(t, a_cut_file_is_read_to_its_last_whole_event);
	tcase_add_test(t, a_cut_unknown_payload_is_a_cut_file);
	tcase_add_test(t, errors_name_the_offset_and_the_problem);
	tcase_add_test(t, a_definition_larger_than_the_buffer_is_refused);
	tcase_add_test(t, sparse_and_dense_ids_are_found);
	tcase_add_test(t, weights);
	tcase_add_test(t, a_damaged_stack_in_the_metadata_damages_that_stack_only);
	tcase_add_test(t, a_damaged_stack_in_the_stream_damages_that_stack_only);
	tcase_add_test(t, the_unwritten_tail_of_a_streamed_file_ends_it);
	tcase_add_test(t, an_event_its_writer_did_not_finish_ends_the_events);
	tcase_add_test(t, an_event_finished_after_it_was_buffered_is_read_whole);
	tcase_add_test(t, a_definition_its_writer_had_not_finished_is_read_when_followed);
	tcase_add_test(t, an_event_read_before_its_writer_finished_it_is_checked_when_followed);
	tcase_add_test(t, a_read_its_writer_overtook_is_read_as_written);
	tcase_add_test(t, a_file_read_while_written_is_read_to_its_last_whole_event);
	tcase_add_test(t, zero_bytes_followed_by_data_are_read_as_events);
	tcase_add_test(t, how_the_process_ended_is_exposed);
	suite_add_tcase(s, t);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
