/* ctl-metrics.c - the profiles of this host as Prometheus metrics (see
 * ctl-metrics.h). */
#include "config.h"

#include "ctl-metrics.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ctl-service.h"
#include "ctl-sites.h"
#include "ctl-stream.h"
#include "ctl-text.h"
#include "ctl-user.h"
#include "utf8.h"

/* Bytes of a label value kept, before escaping: a command line or a
 * service name is identified by far less. */
#define LABEL_VALUE_MAX 128
/* pid, command and service, each escaped (at most two bytes a byte). */
#define LABELS_MAX (3 * (2 * LABEL_VALUE_MAX + 32))

/* What one process shows. */
struct process_metrics {
	char labels[LABELS_MAX]; /* pid="..",command="..",service=".." */
	struct ctl_sites sites;
	double profile_bytes; /* the streamed file's size */
	memprof_stats stats;  /* as the runtime last published them */
};

/* FNV-1a, of the whole value. */
static uint32_t value_hash(const char *value)
{
	uint32_t hash = 2166136261u;

	for (const unsigned char *c = (const unsigned char *)value; *c; c++)
		hash = (hash ^ *c) * 16777619u;
	return hash;
}

/* Appends name="value" to out (of size bytes, holding a string), value
 * escaped as the text format wants, cut at LABEL_VALUE_MAX bytes, and
 * anything but printable UTF-8 (and the newline) as '?'.  A value cut or
 * changed so ends in " #" and a hash of the whole, so that two values
 * never become one label (two series Prometheus would refuse). */
static void add_label(char *out, size_t size, const char *name,
		      const char *value)
{
	const unsigned char *v = (const unsigned char *)value;
	size_t n = strnlen(value, LABEL_VALUE_MAX);
	size_t at = strlen(out);
	bool altered = v[n] != '\0';

	/* Cut between characters, not inside one. */
	while (n > 0 && (v[n] & 0xc0) == 0x80)
		n--;
	at += (size_t)snprintf(out + at, size - at, "%s%s=\"",
			       at ? "," : "", name);
	for (size_t i = 0; i < n && at + 16 < size;) {
		size_t length = utf8_char_length(v + i, n - i);

		if (v[i] == '\\' || v[i] == '"' || v[i] == '\n') {
			out[at++] = '\\';
			out[at++] = v[i] == '\n' ? 'n' : (char)v[i];
		} else if (length == 0 || v[i] < 0x20 || v[i] == 0x7f) {
			out[at++] = '?';
			altered = true;
		} else {
			memcpy(out + at, v + i, length);
			at += length;
		}
		i += length ? length : 1;
	}
	if (altered)
		at += (size_t)snprintf(out + at, size - at, " #%08x",
				       (unsigned)value_hash(value));
	snprintf(out + at, size - at, "\"");
}

/* Now, on the clock of a profile's times: microseconds since the epoch. */
static uint64_t wall_clock_us(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

/* ctl_sites_read() of a stream, or ctl_follow_sites() with a cache, for
 * ctl_as_user(). */
struct sites_reading {
	const struct ctl_process *process;
	struct ctl_follow_cache *follow;
	int stream;
	struct stat st;
	const char *name;
	size_t top;
	uint64_t now_us;
	uint64_t growth_window_us;
	struct frame_namer *namer;
	struct ctl_sites *out;
	char *why;
	size_t size;
};

static int read_sites(void *ctx)
{
	struct sites_reading *r = ctx;

	if (r->follow)
		return ctl_follow_sites(r->follow, r->process, r->stream, &r->st,
					r->top, r->now_us, r->namer, r->out,
					r->why, r->size);
	return ctl_sites_read(r->stream, r->name, r->top, r->now_us,
			      r->growth_window_us, r->namer, r->out, r->why,
			      r->size);
}

/* Reads what process p shows at now_us into m; -1 with why set when its
 * profile cannot be read.  The modules its stream names are read as its
 * user. */
static int gather(const struct ctl_process *p,
		  const struct ctl_metrics_options *opt, uint64_t now_us,
		  struct frame_namer *namer, struct process_metrics *m,
		  char *why, size_t size)
{
	char pid[32], service[4 * LABEL_VALUE_MAX];
	struct sites_reading reading = { .process = p,
					 .follow = opt->follow,
					 .name = p->page.part,
					 .top = opt->top_sites,
					 .now_us = now_us,
					 .growth_window_us =
						 opt->growth_window_us,
					 .namer = namer,
					 .out = &m->sites, .why = why,
					 .size = size };
	int rc;

	if (p->page.state != CONTROL_RECORDING || !p->page.part[0]) {
		snprintf(why, size, "not recording");
		return -1;
	}
	if ((reading.stream = ctl_stream_open(p, &reading.st, why, size)) < 0)
		return -1;
	rc = ctl_as_user(p->uid, p->gid, read_sites, &reading);
	close(reading.stream);
	if (rc < 0)
		return -1;
	m->profile_bytes = (double)reading.st.st_size;
	m->stats = p->page.stats;
	snprintf(pid, sizeof(pid), "%ld", p->pid);
	ctl_service_of(p->pid, opt->service_variable, service,
		       sizeof(service));
	m->labels[0] = '\0';
	add_label(m->labels, sizeof(m->labels), "pid", pid);
	add_label(m->labels, sizeof(m->labels), "command", p->command);
	add_label(m->labels, sizeof(m->labels), "service", service);
	return 0;
}

static double live_heap(const struct process_metrics *m)
{
	return m->sites.summary.live_bytes;
}

/* The 95 % interval's bounds; the heap is never below nothing. */
static double live_heap_lower(const struct process_metrics *m)
{
	double lower = m->sites.summary.live_bytes - m->sites.summary.live_error;

	return lower > 0 ? lower : 0;
}

static double live_heap_upper(const struct process_metrics *m)
{
	return m->sites.summary.live_bytes + m->sites.summary.live_error;
}

static double allocated(const struct process_metrics *m)
{
	return m->sites.summary.allocated_bytes;
}

static double samples(const struct process_metrics *m)
{
	return (double)m->sites.summary.samples;
}

static double dropped_samples(const struct process_metrics *m)
{
	return (double)(m->stats.heap_map_full_drops +
			m->stats.stack_table_drops);
}

static double profile_size(const struct process_metrics *m)
{
	return m->profile_bytes;
}

static const struct ctl_site *largest_sites(const struct process_metrics *m,
					    size_t *count)
{
	*count = m->sites.largest_count;
	return m->sites.largest;
}

static const struct ctl_site *growing_sites(const struct process_metrics *m,
					    size_t *count)
{
	*count = m->sites.growing_count;
	return m->sites.growing;
}

/* The metric families, in order: one series per process (value), or
 * one per site of each process (sites). */
static const struct family {
	const char *name, *type, *help;
	double (*value)(const struct process_metrics *m);
	const struct ctl_site *(*sites)(const struct process_metrics *m,
					size_t *count);
} families[] = {
	{ "memprof_live_heap_bytes", "gauge",
	  "Estimated live heap of the process.", live_heap, NULL },
	{ "memprof_live_heap_lower_bytes", "gauge",
	  "Lower bound of the 95 % interval of the live heap.",
	  live_heap_lower, NULL },
	{ "memprof_live_heap_upper_bytes", "gauge",
	  "Upper bound of the 95 % interval of the live heap.",
	  live_heap_upper, NULL },
	{ "memprof_allocated_bytes_total", "counter",
	  "Estimated bytes allocated since the profile started.", allocated,
	  NULL },
	{ "memprof_samples_total", "counter",
	  "Allocations sampled into the profile so far.", samples, NULL },
	{ "memprof_dropped_samples_total", "counter",
	  "Samples the runtime dropped because its tables were full, as it "
	  "last published them.",
	  dropped_samples, NULL },
	{ "memprof_profile_size_bytes", "gauge",
	  "Size of the streamed profile on disk.", profile_size, NULL },
	{ "memprof_site_live_bytes", "gauge",
	  "Estimated live bytes of the sites that hold the most, by function "
	  "as memprof-report --top names them.", NULL, largest_sites },
	{ "memprof_site_growth_bytes_per_second", "gauge",
	  "Growth of the live bytes of the sites memprof-report --leaks finds "
	  "growing significantly, over the window up to the scrape "
	  "(--growth-window).", NULL, growing_sites },
};

static void write_sites(FILE *out, const struct family *f,
			const struct process_metrics *m)
{
	char site[LABELS_MAX];
	size_t count;
	const struct ctl_site *sites = f->sites(m, &count);

	for (size_t k = 0; k < count; k++) {
		site[0] = '\0';
		add_label(site, sizeof(site), "site", sites[k].name);
		fprintf(out, "%s{%s,%s} %.17g\n", f->name, m->labels, site,
			sites[k].value);
	}
}

static void write_family(FILE *out, const struct family *f,
			 const struct process_metrics *metrics, size_t count)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help,
		f->name, f->type);
	for (size_t i = 0; i < count; i++) {
		if (f->sites)
			write_sites(out, f, &metrics[i]);
		else
			fprintf(out, "%s{%s} %.17g\n", f->name,
				metrics[i].labels, f->value(&metrics[i]));
	}
}

/* The runtime's statistics (memprof-stats.def), a family each. */
#define MEMPROF_STAT(type, field, key, source, kind, unit, description) \
	static double stat_##field(const memprof_stats *s)                  \
	{                                                                   \
		return (double)s->field;                                    \
	}
#include <spprof/memprof-stats.def>
#undef MEMPROF_STAT

static const struct runtime_stat {
	const char *field, *kind, *unit, *description;
	double (*value)(const memprof_stats *s);
} runtime_stats[] = {
#define MEMPROF_STAT(type, field, key, source, kind, unit, description) \
	{ #field, #kind, unit, description, stat_##field },
#include <spprof/memprof-stats.def>
#undef MEMPROF_STAT
};

static bool ends_with(const char *text, const char *end)
{
	size_t n = strlen(text), m = strlen(end);

	return n >= m && strcmp(text + n - m, end) == 0;
}

/* memprof_runtime_FIELD, then its unit unless the field names it, then
 * _total for a counter. */
static void runtime_stat_name(const struct runtime_stat *stat, char *name,
			      size_t size)
{
	bool named = !stat->unit[0] || ends_with(stat->field, stat->unit);

	snprintf(name, size, "memprof_runtime_%s%s%s%s", stat->field,
		 named ? "" : "_", named ? "" : stat->unit,
		 strcmp(stat->kind, "counter") == 0 ? "_total" : "");
}

static void write_runtime_stat(FILE *out, const struct runtime_stat *stat,
			       const struct process_metrics *metrics,
			       size_t count)
{
	char name[128];

	runtime_stat_name(stat, name, sizeof(name));
	fprintf(out, "# HELP %s %s (memprof_stats.%s), as the runtime last "
		"published it.\n# TYPE %s %s\n", name, stat->description,
		stat->field, name, stat->kind);
	for (size_t i = 0; i < count; i++)
		fprintf(out, "%s{%s} %.17g\n", name, metrics[i].labels,
			stat->value(&metrics[i].stats));
}

/* A comment line saying why a process is left out: a line, whatever
 * the reason holds (a file name may hold newlines or escapes). */
static void skip(FILE *out, long pid, const char *problem)
{
	char shown[CTL_ESCAPED_SIZE(512)];

	fprintf(out, "# pid %ld skipped: %s\n", pid,
		ctl_escaped(problem, shown, sizeof(shown)));
}

int ctl_metrics_render(FILE *out, const struct ctl_process *procs,
		       size_t count, const struct ctl_metrics_options *opt,
		       char *why, size_t size)
{
	struct process_metrics *metrics = calloc(count ? count : 1,
						 sizeof(*metrics));
	size_t shown = 0;
	char problem[512];
	struct frame_namer *namer = NULL;
	uid_t namer_uid = 0;
	/* One moment for every process: the processes were alive then. */
	uint64_t now_us = opt->now_us ? opt->now_us : wall_clock_us();

	if (!metrics) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		/* The modules one user could read are named for that user's
		 * processes only. */
		if (opt->follow) {
			namer = ctl_follow_namer(opt->follow, procs[i].uid,
						 procs[i].gid);
		} else if (i == 0 || procs[i].uid != namer_uid) {
			frame_namer_free(namer);
			namer = ctl_sites_namer();
			namer_uid = procs[i].uid;
		}
		if (gather(&procs[i], opt, now_us, namer, &metrics[shown],
			   problem, sizeof(problem)) == 0)
			shown++;
		else
			skip(out, procs[i].pid, problem);
	}
	if (!opt->follow)
		frame_namer_free(namer);
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++)
		write_family(out, &families[f], metrics, shown);
	for (size_t k = 0; k < sizeof(runtime_stats) / sizeof(*runtime_stats);
	     k++)
		write_runtime_stat(out, &runtime_stats[k], metrics, shown);
	for (size_t i = 0; i < shown; i++)
		ctl_sites_free(&metrics[i].sites);
	free(metrics);
	if (fflush(out) != 0 || ferror(out)) {
		snprintf(why, size, "write error: %s", strerror(errno));
		return -1;
	}
	return 0;
}
