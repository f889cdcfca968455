/* report-json.c - the report for programs (schema in memprof-report(1)).
 *
 * Bytes and counts are rounded to whole numbers (at most 2^63 - 1); shares
 * and durations are printed with six significant digits, so the output is
 * stable.
 */
#include "config.h"

#include "estimator.h"
#include "report-jansson.h"
#include "report-util.h"
#include "report-view.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static json_t *strings(char *const *items, size_t count)
{
	json_t *array = json_array();

	for (size_t i = 0; array && i < count; i++)
		if (json_array_append_new(array, text(items[i])) < 0)
			out_of_memory();
	return array;
}

static size_t count_strings(char *const *items)
{
	size_t n = 0;

	while (items && items[n])
		n++;
	return n;
}

/* Live bytes and blocks at one moment, and the samples behind them. */
static json_t *moment_json(const struct estimate *e)
{
	json_t *o = json_object();

	estimate_members(o, "bytes", "blocks", e);
	set(o, "samples", json_integer((json_int_t)e->samples));
	return o;
}

/* The "peak" and "end" members of a site or of the whole report, and
 * "moment" with --at TIME or MARKER. */
static void moment_members(json_t *o, const struct report *r,
			   const struct heap_estimates *heap)
{
	for (int m = 0; m < MOMENTS; m++)
		if (m != AT_TIME || r->at == AT_TIME)
			set(o, moment_names[m], moment_json(&heap->live[m]));
}

/* A marker or garbage collection and the live heap at its moment. */
static json_t *mark_json(const struct report *r, const struct heap_event *m)
{
	json_t *o = json_object();

	set(o, "time_s", json_real(report_seconds(r, m->live.time_us)));
	if (m->kind == HEAP_EVENT_MARKER) {
		set(o, "kind", json_string("marker"));
		set(o, "name", text(m->name));
	} else {
		set(o, "kind", json_string("gc"));
		set(o, "gc_objects", json_integer((json_int_t)m->gc_objects));
		set(o, "gc_bytes", json_integer((json_int_t)m->gc_bytes));
	}
	set(o, "live_bytes", whole(m->live.bytes));
	set(o, "live_bytes_ci95", whole(estimator_interval95(m->live.bytes_variance)));
	set(o, "live_samples", json_integer((json_int_t)m->live.samples));
	return o;
}

static json_t *marks_json(const struct report *r,
			  const struct profile_summary *p)
{
	json_t *array = json_array();

	for (size_t i = 0; array && i < p->mark_count; i++)
		if (json_array_append_new(array,
					  mark_json(r, &p->marks[i])) < 0)
			out_of_memory();
	return array;
}

/* The share of the resident memory of reading m that `bytes` make, of
 * a heap (and mappings) that fit in it; else null. */
static json_t *share_of(const struct memory_point *m, double bytes)
{
	double counted = m->malloc_bytes + m->mapped_bytes;

	return counted <= (double)m->resident && m->resident
		       ? json_real(bytes / (double)m->resident)
		       : json_null();
}

/* The members of a reading of the process's memory. */
static json_t *memory_point_json(const struct report *r,
				 const struct memory_point *m)
{
	json_t *o = json_object();

	set(o, "time_s", json_real(report_seconds(r, m->time_us)));
	set(o, "resident_bytes", json_integer((json_int_t)m->resident));
	set(o, "anonymous_bytes", json_integer((json_int_t)m->anonymous));
	set(o, "resident_peak_bytes",
	    m->resident_peak ? json_integer((json_int_t)m->resident_peak)
			     : json_null());
	set(o, "malloc_bytes", whole(m->malloc_bytes));
	/* null when the heap is more than resident memory: blocks never
	 * touched take no RAM, and no share can be given. */
	set(o, "malloc_share", share_of(m, m->malloc_bytes));
	if (r->mapped_peak > 0) {
		set(o, "mapped_bytes", whole(m->mapped_bytes));
		set(o, "mapped_share", share_of(m, m->mapped_bytes));
	}
	return o;
}

/* A reading of most resident memory with `peaks` (memory_peak_add()):
 * the most resident memory, and the share of it the heap's peak
 * (`heap_peak` bytes) makes, null when none can be given. */
static json_t *resident_peak_json(const struct report *r,
				  const struct memory_point *peaks,
				  double heap_peak, double mapped_peak)
{
	json_t *o = memory_point_json(r, peaks);
	double share = memory_heap_share(peaks, heap_peak);
	double malloc_peak = heap_peak - mapped_peak;

	set(o, "malloc_peak_bytes", whole(malloc_peak));
	set(o, "malloc_peak_share",
	    share < 0 ? json_null()
		      : json_real(memory_heap_share(peaks, malloc_peak)));
	if (r->mapped_peak > 0) {
		set(o, "mapped_peak_bytes", whole(mapped_peak));
		set(o, "mapped_peak_share",
		    share < 0 ? json_null()
			      : json_real(memory_heap_share(peaks,
							    mapped_peak)));
	}
	return o;
}

/* The peak of resident memory and the readings, or null without any. */
static json_t *resident_json(const struct report *r,
			     const struct profile_summary *p)
{
	const struct memory_series *series = &p->memory;
	struct memory_point peaks = { 0 };
	json_t *o, *readings;

	if (!memory_peak_add(&peaks, series))
		return json_null();
	readings = json_array();
	o = resident_peak_json(r, &peaks, p->peak.bytes, p->mapped_peak);
	for (size_t i = 0; i < series->count; i++)
		append(readings, memory_point_json(r, &series->points[i]));
	set(o, "readings", readings);
	return o;
}

/* The sum of the peaks of the profiles, or null without readings. */
static json_t *resident_total_json(const struct report *r)
{
	json_t *o;

	if (!r->resident_processes)
		return json_null();
	o = resident_peak_json(r, &r->resident,
			       r->stacks->heap.live[AT_PEAK].bytes,
			       r->mapped_peak);
	set(o, "processes", json_integer((json_int_t)r->resident_processes));
	return o;
}

/* The runtime's statistics, by name: all the profile keeps. */
static json_t *stats_json(const struct profile_summary *p)
{
	json_t *o = json_object();

	for (size_t i = 0; i < p->stat_count; i++)
		set(o, p->stats[i].key,
		    json_integer((json_int_t)p->stats[i].value));
	return o;
}

static json_t *profile_json(const struct report *r,
			    const struct profile_summary *p)
{
	json_t *o = json_object(), *peak;

	set(o, "file", text(p->file));
	set(o, "pid", p->pid ? json_integer((json_int_t)p->pid) : json_null());
	set(o, "command_line",
	    strings(p->command_line, count_strings(p->command_line)));
	set(o, "title", p->title ? text(p->title) : json_null());
	set(o, "duration_s", json_real(p->duration_s));
	set(o, "sampling_rate", p->sampling_rate
					? json_integer((json_int_t)p->sampling_rate)
					: json_null());
	set(o, "sampling_rate_changed", json_boolean(p->rate_changed));
	set(o, "complete", p->complete < 0 ? json_null()
					   : json_boolean(p->complete));
	set(o, "truncated", json_boolean(p->truncated));
	set(o, "exec_program",
	    p->exec_program ? text(p->exec_program) : json_null());
	set(o, "malloc_defined_by",
	    p->malloc_defined_by ? text(p->malloc_defined_by) : json_null());
	set(o, "damaged_stacks", json_integer((json_int_t)p->damaged_stacks));
	set(o, "fp_stacks", p->has_stack_methods
				    ? json_integer((json_int_t)p->fp_stacks)
				    : json_null());
	set(o, "dwarf_stacks", p->has_stack_methods
				       ? json_integer((json_int_t)p->dwarf_stacks)
				       : json_null());
	set(o, "stats", stats_json(p));
	set(o, "events", json_integer((json_int_t)p->events));
	if (p->checkpoints) { /* a profile with a size limit */
		set(o, "checkpoints", json_integer((json_int_t)p->checkpoints));
		set(o, "kept_from_s", json_real(p->kept_from_s));
	}
	peak = moment_json(&p->peak);
	set(peak, "time_s", json_real(p->peak_time_s));
	set(peak, "single", json_boolean(p->peak_level_share <
					 SINGLE_PEAK_MAX_SHARE));
	set(peak, "level_share", json_real(p->peak_level_share));
	set(o, moment_names[AT_PEAK], peak);
	set(o, moment_names[AT_END], moment_json(&p->end));
	if (r->at == AT_TIME)
		set(o, "moment_time_s", json_real(p->at_time_s));
	set(o, "marks", marks_json(r, p));
	set(o, "resident", resident_json(r, p));
	return o;
}

/* A frame of a stack: what it is, and whether the compiler inlined it
 * into the next. */
static json_t *frame_json(const struct report *r, size_t index)
{
	const struct report_frame *f = &r->stacks->frames[index];
	json_t *o = json_object();

	set(o, "function", f->function ? text(f->function) : json_null());
	set(o, "file", f->file ? text(f->file) : json_null());
	set(o, "line", f->line ? json_integer((json_int_t)f->line)
			       : json_null());
	set(o, "inlined", json_boolean(f->inlined));
	return o;
}

/* By stack: the site's frame and its callers. */
static json_t *frames_json(const struct report *r, const struct site *s)
{
	json_t *array = json_array();

	for (size_t i = 0; array && s->frames && i <= s->caller_count; i++)
		if (json_array_append_new(array, frame_json(r, s->frames[i])) <
		    0)
			out_of_memory();
	return array;
}

static json_t *site_json(const struct report *r, const struct site *s)
{
	json_t *o = json_object();
	const struct estimate *live = &s->heap.live[r->at];
	double total = r->sites->heap.live[r->at].bytes;

	set(o, "site", text(s->text));
	/* Only in a report that counts mappings: the same output as ever
	 * for the profiles without. */
	if (r->mapped_peak > 0)
		set(o, "kind", text(site_kind_name(s->kinds)));
	if (r->grouping == GROUP_BY_STACK) {
		set(o, "callers", strings(s->callers, s->caller_count));
		set(o, "frames", frames_json(r, s));
	}
	estimate_members(o, "live_bytes", "live_blocks", live);
	set(o, "live_samples", json_integer((json_int_t)live->samples));
	set(o, "share", json_real(total > 0 ? live->bytes / total : 0));
	estimate_members(o, "allocated_bytes", "allocations",
			 &s->heap.allocated);
	set(o, "samples", json_integer((json_int_t)s->heap.allocated.samples));
	set(o, "low_samples",
	    json_boolean(site_measure(s, r->sort, r->at)->samples <
			 FEW_SAMPLES));
	set(o, "rough", json_boolean(site_rough(s, r->sort, r->at)));
	moment_members(o, r, &s->heap);
	return o;
}

/* --from and --to: {"from": "marker load", "to": null (the end),
 * "sampled_blocks_left_out": 12}. */
static json_t *stretch_json(const struct report *r)
{
	json_t *o = json_object();

	set(o, "from", r->from ? text(r->from) : json_null());
	set(o, "to", r->to ? text(r->to) : json_null());
	set(o, "sampled_blocks_left_out",
	    json_integer((json_int_t)r->born_outside));
	return o;
}

int view_json(FILE *out, const struct report *r)
{
	json_t *root = json_object(), *profiles = json_array(),
	       *sites = json_array();
	const struct heap_estimates *heap = &r->sites->heap;
	size_t rows = report_rows(r);

	if (!root || !profiles || !sites)
		out_of_memory();
	for (size_t i = 0; i < r->profile_count; i++)
		if (json_array_append_new(profiles,
					  profile_json(r, &r->profiles[i])) < 0)
			out_of_memory();
	for (size_t i = 0; i < rows; i++)
		if (json_array_append_new(sites,
					  site_json(r, &r->sites->sites[i])) < 0)
			out_of_memory();
	set(root, "profiles", profiles);
	set(root, "group_by", json_string(grouping_names[r->grouping]));
	set(root, "cumulative", json_boolean(r->sites->cumulative));
	set(root, "sort", json_string(sort_names[r->sort]));
	set(root, "at", json_string(moment_names[r->at]));
	set(root, "samples", json_integer((json_int_t)heap->allocated.samples));
	set(root, "live_samples",
	    json_integer((json_int_t)heap->live[r->at].samples));
	estimate_members(root, "live_bytes", "live_blocks", &heap->live[r->at]);
	estimate_members(root, "allocated_bytes", "allocations",
			 &heap->allocated);
	moment_members(root, r, heap);
	if (r->at == AT_TIME)
		set(json_object_get(root, "moment"), "name", text(r->moment));
	if (r->from || r->to)
		set(root, "stretch", stretch_json(r));
	set(root, "resident", resident_total_json(r));
	set(root, "site_count", json_integer((json_int_t)r->sites->count));
	set(root, "sites", sites);
	set(root, "notes", strings(r->notes, r->note_count));
	set(root, "warnings", strings(r->warnings, r->warning_count));
	return write_json(out, root);
}
