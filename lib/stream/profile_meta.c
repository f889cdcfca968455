/* profile_meta.c - header and JSON metadata (see profile_meta.h). */
#include "config.h"

#include "profile_meta.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "frames.h"
#include "malloc_owner.h"
#include "mlyze-codec.h"
#include "modules.h"
#include "names.h"
#include "utf8.h"

#define CMDLINE_MAX (64u * 1024)

static void json_uint_member(struct outbuf *o, const char *key, uint64_t v)
{
	outbuf_json_key(o, key, 0);
	outbuf_uint(o, v);
}

static void json_string_member(struct outbuf *o, const char *key,
			       const char *v)
{
	outbuf_json_key(o, key, 0);
	outbuf_json_string(o, v);
}

/* The command line as /proc/self/cmdline shows it now: n bytes of
 * NUL-terminated arguments. */
struct command_line {
	char text[CMDLINE_MAX + 1];
	size_t n;
};

static struct command_line at_start;

static void read_command_line(struct command_line *c)
{
	ssize_t r = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	c->n = 0;
	while (fd >= 0 && c->n < CMDLINE_MAX &&
	       (r = read(fd, c->text + c->n, CMDLINE_MAX - c->n)) > 0)
		c->n += (size_t)r;
	if (fd >= 0)
		close(fd);
	c->text[c->n] = '\0';
}

void meta_note_command_line(void)
{
	read_command_line(&at_start);
}

static void write_command_line(struct outbuf *o)
{
	outbuf_json_key(o, "command_line", 0);
	outbuf_str(o, "[");
	for (size_t i = 0; i < at_start.n; i += strlen(at_start.text + i) + 1) {
		if (i)
			outbuf_str(o, ",");
		outbuf_json_string(o, at_start.text + i);
	}
	outbuf_str(o, "]");
}

/* Joins the n bytes of arguments in c with spaces, in place, without
 * trailing padding: one line. */
static void join_arguments(struct command_line *c)
{
	while (c->n > 0 && (c->text[c->n - 1] == '\0' ||
			    c->text[c->n - 1] == ' '))
		c->n--;
	for (size_t i = 0; i < c->n; i++)
		if (c->text[i] == '\0')
			c->text[i] = ' ';
	c->text[c->n] = '\0';
}

/* A program that rewrites its arguments to show what it does (servers:
 * "postgres: checkpointer", "nginx: worker process") has a title: the
 * command line as it is now, one line.  NULL when it has none. */
static const char *title_now(void)
{
	static struct command_line now;

	read_command_line(&now);
	if (now.n == at_start.n && !memcmp(now.text, at_start.text, now.n))
		return NULL;
	join_arguments(&now);
	return now.n ? now.text : NULL;
}

static void write_title(struct outbuf *o)
{
	const char *title = title_now();

	if (title)
		json_string_member(o, "title", title);
}

const char *meta_process_name(void)
{
	static struct command_line started;
	const char *title = title_now();

	if (title)
		return title;
	started = at_start;
	join_arguments(&started);
	return started.text;
}

/* The members every profile starts its metadata with (no closing brace). */
static void write_identity(struct outbuf *o, const struct profile_meta *m,
			   int complete)
{
	char text[PATH_MAX];
	ssize_t n;

	outbuf_str(o, "{");
	outbuf_json_key(o, "producer", 1);
	outbuf_json_string(o, PACKAGE_NAME " " PACKAGE_VERSION);
	outbuf_json_key(o, "complete", 0);
	outbuf_str(o, complete ? "true" : "false");
	json_uint_member(o, "pid", (uint64_t)getpid());
	json_uint_member(o, "ppid", (uint64_t)getppid());
	if (gethostname(text, sizeof(text) - 1) == 0) {
		text[sizeof(text) - 1] = '\0';
		json_string_member(o, "hostname", text);
	}
	n = readlink("/proc/self/exe", text, sizeof(text) - 1);
	if (n > 0) {
		text[n] = '\0';
		json_string_member(o, "executable", text);
	}
	write_command_line(o);
	write_title(o);
	json_uint_member(o, "sampling_rate", m->sampling_rate);
	json_uint_member(o, "start_time_us", m->start_wall_us);
	json_uint_member(o, "max_stack_depth", MEMPROF_MAX_STACK_DEPTH);
	if (m->started_by)
		json_string_member(o, "started_by", m->started_by);
	if (malloc_owner_other())
		json_string_member(o, "malloc_defined_by", malloc_owner_other());
}

static void write_frame_json(struct outbuf *o, uint64_t pc)
{
	long m = modules_find(pc);

	if (frame_is_script(pc)) {
		outbuf_str(o, "{\"file_id\":");
		outbuf_uint(o, script_frame_file(pc));
		outbuf_str(o, ",\"func_id\":");
		outbuf_uint(o, script_frame_function(pc));
		outbuf_str(o, ",\"line\":");
		outbuf_uint(o, script_frame_line(pc));
	} else if (m < 0) {
		outbuf_str(o, "{\"address\":");
		outbuf_uint(o, pc);
	} else {
		outbuf_str(o, "{\"module_id\":");
		outbuf_uint(o, (uint64_t)m);
		outbuf_str(o, ",\"offset\":");
		outbuf_uint(o, pc - modules_get((uint32_t)m)->load_bias);
	}
	outbuf_str(o, "}");
}

static int stack_is_defined(const struct profile_meta *m, uint32_t id)
{
	return (m->stack_defined[id / 8] >> (id % 8)) & 1;
}

static void write_stacks_json(struct outbuf *o, const struct profile_meta *m)
{
	uint32_t count = stack_table_count(m->stacks);
	int first = 1;

	outbuf_json_key(o, "stack_traces", 0);
	outbuf_str(o, "{");
	if (m->none_defined) {
		outbuf_str(o, "\"4294967295\":[]");
		first = 0;
	}
	for (uint32_t id = 0; id < count; id++) {
		const struct stack_entry *e = stack_table_get(m->stacks, id);
		char key[16];

		if (!e || !stack_is_defined(m, id))
			continue;
		snprintf(key, sizeof(key), "%u", id);
		outbuf_json_key(o, key, first);
		first = 0;
		outbuf_str(o, "[");
		for (uint32_t i = 0; i < e->depth; i++) {
			if (i)
				outbuf_str(o, ",");
			write_frame_json(o, e->frames[i]);
		}
		outbuf_str(o, "]");
	}
	outbuf_str(o, "}");
}

static void write_hex(struct outbuf *o, const uint8_t *bytes, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		char pair[2] = { digits[bytes[i] >> 4], digits[bytes[i] & 15] };

		outbuf_bytes(o, pair, 2);
	}
}

static void write_modules_json(struct outbuf *o)
{
	uint32_t count = modules_count();

	outbuf_json_key(o, "modules", 0);
	outbuf_str(o, "{");
	for (uint32_t id = 0; id < count; id++) {
		const struct module *m = modules_get(id);
		char key[16];

		snprintf(key, sizeof(key), "%u", id);
		outbuf_json_key(o, key, id == 0);
		outbuf_str(o, "{\"path\":");
		outbuf_json_string(o, m->path);
		/* JSON text is UTF-8: a path that is not is repaired above for
		 * display, and its bytes follow for the symbolizer. */
		if (!utf8_valid(m->path, strlen(m->path))) {
			outbuf_str(o, ",\"path_bytes\":\"");
			write_hex(o, (const uint8_t *)m->path,
				  strlen(m->path));
			outbuf_str(o, "\"");
		}
		json_uint_member(o, "start", m->start);
		json_uint_member(o, "end", m->end);
		json_uint_member(o, "load_bias", m->load_bias);
		if (m->build_id_len) {
			outbuf_str(o, ",\"build_id\":\"");
			write_hex(o, m->build_id, m->build_id_len);
			outbuf_str(o, "\"");
		}
		outbuf_str(o, "}");
	}
	outbuf_str(o, "}");
}

static void write_strings_json(struct outbuf *o, const char *name,
			       enum string_table table)
{
	uint32_t count = strings_count(table);

	outbuf_json_key(o, name, 0);
	outbuf_str(o, "{");
	for (uint32_t id = 0; id < count; id++) {
		char key[16];

		snprintf(key, sizeof(key), "%u", id);
		outbuf_json_key(o, key, id == 0);
		outbuf_json_string(o, strings_get(table, id));
	}
	outbuf_str(o, "}");
}

/* The statistics memprof-stats.def gives a key, under "stats". */
static void write_stats_json(struct outbuf *o, const memprof_stats *s)
{
	int first = 1;

	outbuf_json_key(o, "stats", 0);
	outbuf_str(o, "{");
#define MEMPROF_STAT(type, field, key, source, kind, unit, description) \
	if (key[0]) {                                                       \
		outbuf_json_key(o, key, first);                             \
		outbuf_uint(o, (uint64_t)s->field);                         \
		first = 0;                                                  \
	}
#include <spprof/memprof-stats.def>
#undef MEMPROF_STAT
	outbuf_str(o, "}");
}

static void write_header(uint8_t header[MLYZE_HEADER_SIZE],
			 uint64_t start_wall_us, uint32_t meta_len)
{
	memset(header, 0, MLYZE_HEADER_SIZE);
	memcpy(header + MLYZE_OFF_MAGIC, MLYZE_MAGIC, 4);
	mlyze_put_le(header + MLYZE_OFF_VERSION, MLYZE_VERSION, 4);
	mlyze_put_le(header + MLYZE_OFF_START_US, start_wall_us, 8);
	mlyze_put_le(header + MLYZE_OFF_METADATA_LEN, meta_len, 4);
}

/* How the profile ended: by exit, replaced by an exec, or as the
 * recording window says. */
static void write_ending(struct outbuf *o, const struct profile_meta *m)
{
	const char *ended_by = m->exec_program ? "exec" : "exit";

	json_string_member(o, "ended_by", m->ended_by ? m->ended_by : ended_by);
	if (m->exec_program)
		json_string_member(o, "exec_program", m->exec_program);
}

int meta_write_prologue(struct outbuf *o, const struct profile_meta *m,
			int complete)
{
	uint8_t header[MLYZE_HEADER_SIZE];
	uint64_t meta_start, meta_len;

	write_header(header, m->start_wall_us, 0);
	outbuf_bytes(o, header, sizeof(header));
	meta_start = o->written + o->len;
	write_identity(o, m, complete);
	if (complete) {
		json_uint_member(o, "end_time_us",
				 clock_ns(CLOCK_REALTIME) / 1000);
		write_ending(o, m);
		write_stacks_json(o, m);
		write_modules_json(o);
		write_strings_json(o, "files", STRINGS_FILES);
		write_strings_json(o, "functions", STRINGS_FUNCTIONS);
		write_stats_json(o, m->stats);
	}
	outbuf_str(o, "}");
	meta_len = o->written + o->len - meta_start;
	if (outbuf_flush(o))
		return o->error;
	if (meta_len > UINT32_MAX)
		return EFBIG;
	write_header(header, m->start_wall_us, (uint32_t)meta_len);
	if (pwrite(o->fd, header, sizeof(header), 0) != sizeof(header))
		return errno ? errno : EIO;
	return 0;
}
