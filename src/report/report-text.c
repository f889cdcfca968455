/* report-text.c - the report for people: a summary and a table of the top
 * sites, columns aligned, sizes in KiB/MiB/GiB, colour only when asked.
 */
#include "config.h"

#include "estimator.h"
#include "report-util.h"
#include "report-view.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_WIDTH 13

enum column {
	COL_LIVE,
	COL_INTERVAL,
	COL_GROWTH, /* with --growth only */
	COL_GROWTH_INTERVAL,
	COL_SHARE,
	COL_SAMPLES,
	COL_ALLOCS,
	COL_ALLOCATED,
	NUMERIC_COLUMNS
};

/* The live column is named after its moment (live_titles), the growth
 * column after its axis (growth_titles). */
static const char *const column_titles[NUMERIC_COLUMNS] = {
	[COL_INTERVAL] = "±95%",
	[COL_GROWTH_INTERVAL] = "±95%", "SHARE", "SAMPLES", "ALLOCS",
	"ALLOCATED",
};

static const char *const growth_titles[AXES] = {
	[PER_SECOND] = "GROWTH/s",
	[PER_MARKER] = "GROWTH/MARKER",
};

static const char *const live_titles[MOMENTS] = {
	[AT_PEAK] = "AT PEAK",
	[AT_END] = "AT END",
	[AT_TIME] = "AT MOMENT",
};

static const char *const sort_phrases[] = {
	[SORT_BY_LIVE] = "live bytes",
	[SORT_BY_ALLOCATED] = "bytes allocated",
	[SORT_BY_COUNT] = "number of allocations",
};

static const char *const moment_phrases[MOMENTS] = {
	[AT_PEAK] = " at the peak",
	[AT_END] = " at the end",
	[AT_TIME] = " at ",
};

/* " at the peak", " at 12.5 s", " at marker load" (to free). */
static char *moment_phrase(const struct report *r)
{
	return xasprintf("%s%s", moment_phrases[r->at],
			 r->at == AT_TIME ? r->moment : "");
}

/* Lines of markers and garbage collections, at most. */
#define MARKS_SHOWN 50

struct style {
	const char *bold, *warn, *reset;
};

/* Display width of UTF-8 text, counting each code point as one column. */
static int text_width(const char *text)
{
	int width = 0;

	for (; *text; text++)
		width += ((unsigned char)*text & 0xc0) != 0x80;
	return width;
}

static void line(FILE *out, const struct style *st, const char *label,
		 const char *value)
{
	fprintf(out, "%s%-*s%s%s\n", st->bold, LABEL_WIDTH, label, st->reset,
		value);
}

/* Arguments that need no quotes for a shell. */
static bool plain_word(const char *arg)
{
	return *arg && strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
				"tuvwxyz0123456789_@%+=:,./-") == strlen(arg);
}

/* The command line on one line, quoted as for a shell, with control
 * characters written as escapes (a script given with -c has newlines). */
static char *shown_command(char **argv)
{
	struct strbuf sb = { 0 };

	for (size_t i = 0; argv && argv[i]; i++) {
		bool quote = !plain_word(argv[i]);

		sb_add(&sb, i ? (quote ? " '" : " ") : (quote ? "'" : ""));
		for (const unsigned char *c = (const unsigned char *)argv[i]; *c;
		     c++) {
			if (*c == '\n')
				sb_add(&sb, "\\n");
			else if (*c == '\t')
				sb_add(&sb, "\\t");
			else if (*c < 0x20 || *c == 0x7f)
				sb_printf(&sb, "\\x%02x", *c);
			else if (*c == '\'')
				sb_add(&sb, "'\\''");
			else
				sb_printf(&sb, "%c", *c);
		}
		if (quote)
			sb_add(&sb, "'");
	}
	return sb_take(&sb);
}

static char *sampling_text(uint64_t low, uint64_t high, bool changed)
{
	char a[32], b[32];

	if (!low)
		return xstrdup("unknown (every sample counts once)");
	format_size(a, (double)low);
	format_size(b, (double)high);
	if (low != high)
		return xasprintf("one sample per %s to %s allocated on average, "
				 "depending on the profile", a, b);
	return xasprintf("one sample per %s allocated on average%s", a,
			 changed ? " (changed during the run)" : "");
}

#define NOT_FINALISED "not finalised (the process ended early)"
#define RUNNING "recording (the process is running)"
#define CUT_SHORT "cut short; read up to the last whole event"

/* "replaced by exec of /usr/bin/env" */
static char *replaced_text(const struct profile_summary *p)
{
	char *argv[] = { p->exec_program, NULL };
	char *program = shown_command(argv);
	char *text = xasprintf("replaced by exec of %s", program);

	free(program);
	return text;
}

static void profile_block(FILE *out, const struct style *st,
			  const struct profile_summary *p)
{
	char *text;

	line(out, st, "Profile", p->file);
	text = shown_command(p->command_line);
	if (*text)
		line(out, st, "  command", text);
	free(text);
	if (p->title)
		line(out, st, "  title", p->title);
	if (p->window)
		line(out, st, "  window", p->window);
	if (p->pid) {
		text = xasprintf("%" PRIu64, p->pid);
		line(out, st, "  pid", text);
		free(text);
	}
	text = xasprintf("%.1f s", p->duration_s);
	line(out, st, "  duration", text);
	free(text);
	text = sampling_text(p->sampling_rate, p->sampling_rate,
			     p->rate_changed);
	line(out, st, "  sampling", text);
	free(text);
	if (p->has_stack_methods) {
		text = xasprintf("%" PRIu64 " walked by frame pointers, %" PRIu64
				 " read from unwind tables",
				 p->fp_stacks, p->dwarf_stacks);
		line(out, st, "  stacks", text);
		free(text);
	}
	if (p->checkpoints) {
		text = xasprintf("events from %.1f s on (%" PRIu64
				 " checkpoints of its size limit)",
				 p->kept_from_s, p->checkpoints);
		line(out, st, "  kept", text);
		free(text);
	}
	if (p->complete == 0)
		line(out, st, "  state", p->running ? RUNNING : NOT_FINALISED);
	if (p->truncated)
		line(out, st, "  state", CUT_SHORT);
	if (p->exec_program) {
		text = replaced_text(p);
		line(out, st, "  state", text);
		free(text);
	}
}

/* " [title: ...] [not finalised...] [replaced by exec of ...]", or "". */
static char *bracketed_states(const struct profile_summary *p)
{
	struct strbuf sb = { 0 };

	if (p->title)
		sb_printf(&sb, " [title: %s]", p->title);
	if (p->window)
		sb_printf(&sb, " [window %s]", p->window);
	if (p->complete == 0)
		sb_add(&sb, p->running ? " [" RUNNING "]"
				       : " [" NOT_FINALISED "]");
	if (p->truncated)
		sb_add(&sb, " [" CUT_SHORT "]");
	if (p->exec_program) {
		char *replaced = replaced_text(p);

		sb_printf(&sb, " [%s]", replaced);
		free(replaced);
	}
	return sb_take(&sb);
}

/* Several profiles: one aligned line each. */
static void profiles_table(FILE *out, const struct style *st,
			   const struct report *r)
{
	int file_width = 0, pid_width = 0, peak_width = 0;
	uint64_t low = UINT64_MAX, high = 0;
	bool changed = false;
	char (*peaks)[64] = xcalloc(r->profile_count, sizeof(*peaks));
	char *text;

	for (size_t i = 0; i < r->profile_count; i++) {
		const struct profile_summary *p = &r->profiles[i];
		int n = snprintf(NULL, 0, "%" PRIu64, p->pid);
		char size[32];

		format_size(size, p->peak.bytes);
		if (p->peak_level_share < SINGLE_PEAK_MAX_SHARE)
			snprintf(peaks[i], sizeof(peaks[i]), "peak %s at %.1f s",
				 size, p->peak_time_s);
		else
			snprintf(peaks[i], sizeof(peaks[i]),
				 "peak %s, no single one", size);
		if (text_width(p->file) > file_width)
			file_width = text_width(p->file);
		if (n > pid_width)
			pid_width = n;
		if (text_width(peaks[i]) > peak_width)
			peak_width = text_width(peaks[i]);
		low = p->sampling_rate < low ? p->sampling_rate : low;
		high = p->sampling_rate > high ? p->sampling_rate : high;
		changed |= p->rate_changed;
	}
	text = xasprintf("%zu files", r->profile_count);
	line(out, st, "Profiles", text);
	free(text);
	for (size_t i = 0; i < r->profile_count; i++) {
		const struct profile_summary *p = &r->profiles[i];
		char *command = shown_command(p->command_line);
		char *states = bracketed_states(p);

		fprintf(out,
			"  %s%*s  pid %*" PRIu64 "  %6.1f s  %-*s  %s%s\n",
			p->file, file_width - text_width(p->file), "",
			pid_width, p->pid, p->duration_s, peak_width, peaks[i],
			command, states);
		free(states);
		free(command);
	}
	free(peaks);
	text = sampling_text(low, high, changed);
	line(out, st, "Sampling", text);
	free(text);
}

/* "1.5 MiB ± 20.0 KiB" */
static char *estimate_text(const struct estimate *e)
{
	char bytes[32], interval[32];

	format_size(bytes, e->bytes);
	format_size(interval, estimator_interval95(e->bytes_variance));
	return xasprintf("%s ± %s", bytes, interval);
}

/* The processes' resident memory at its peak, when they read it: the
 * reading of most resident memory, after the kernel's count of the peak
 * when that is more (the peak fell between two readings). */
static void resident_line(FILE *out, const struct style *st,
			  const struct report *r)
{
	const struct memory_point *m = &r->resident;
	bool one = r->profile_count == 1;
	char resident[32], anonymous[32], peak[32], *text;

	if (!r->resident_processes)
		return;
	format_size(resident, (double)m->resident);
	format_size(anonymous, (double)m->anonymous);
	format_size(peak, (double)m->resident_peak);
	if (m->resident_peak > m->resident && one)
		text = xasprintf("%s at its peak, as the kernel counts it; at "
				 "most %s when read, at %.1f s, %s of it "
				 "anonymous", peak, resident,
				 report_seconds(r, m->time_us), anonymous);
	else if (m->resident_peak > m->resident)
		text = xasprintf("%s, the sum of the peaks of the profiles as "
				 "the kernel counts them; at most %s when "
				 "read, %s of it anonymous", peak, resident,
				 anonymous);
	else if (one)
		text = xasprintf("%s at its peak at %.1f s, %s of it anonymous",
				 resident, report_seconds(r, m->time_us),
				 anonymous);
	else
		text = xasprintf("%s, the sum of the peaks of the profiles, %s "
				 "of it anonymous", resident, anonymous);
	line(out, st, "Resident", text);
	free(text);
}

/* "11.0 MiB ± 0 B at 1.9 s", or, when no moment stands out, "no single
 * peak: the heap stayed within ±9.6 MiB of 48.0 MiB for 97 % of the run" */
static char *peak_text(const struct profile_summary *p, const char *estimate)
{
	char bytes[32], interval[32];

	if (p->peak_level_share < SINGLE_PEAK_MAX_SHARE)
		return xasprintf("%s at %.1f s", estimate, p->peak_time_s);
	format_size(bytes, p->peak.bytes);
	format_size(interval, estimator_interval95(p->peak.bytes_variance));
	return xasprintf("no single peak: the heap stayed within ±%s of %s "
			 "for %.0f %% of the run", interval, bytes,
			 100 * p->peak_level_share);
}

/* "marker load, 2.300 s: 3.0 MiB ± 120 KiB (95 % interval), 12
 * samples"; a moment in seconds is one of each profile. */
static void moment_line(FILE *out, const struct style *st,
			const struct report *r)
{
	const struct estimate *live = &r->sites->heap.live[AT_TIME];
	char *estimate = estimate_text(live);
	char *when = r->profile_count > 1 ? xasprintf("%s of each profile",
						      r->moment)
		     : r->moment_is_marker ? xasprintf("%s, %.3f s", r->moment,
						       r->profiles[0].at_time_s)
					   : xstrdup(r->moment);
	char *text = xasprintf("%s: %s (95 %% interval), %" PRIu64
			       " sample%s", when, estimate, live->samples,
			       live->samples == 1 ? "" : "s");

	line(out, st, "At moment", text);
	free(when);
	free(estimate);
	free(text);
}

static void totals_block(FILE *out, const struct style *st,
			 const struct report *r)
{
	const struct heap_estimates *heap = &r->sites->heap;
	char *estimate, *text;
	char bytes[32], count[32];

	text = xasprintf("%" PRIu64 ", %" PRIu64 " of them live at the peak, "
			 "%" PRIu64 " at the end", heap->allocated.samples,
			 heap->live[AT_PEAK].samples,
			 heap->live[AT_END].samples);
	line(out, st, "Samples", text);
	free(text);
	estimate = estimate_text(&heap->live[AT_PEAK]);
	if (r->profile_count == 1)
		text = peak_text(&r->profiles[0], estimate);
	else
		text = xasprintf("%s, the sum of the peaks of the profiles",
				 estimate);
	line(out, st, "Peak heap", text);
	free(text);
	free(estimate);
	estimate = estimate_text(&heap->live[AT_END]);
	text = xasprintf("%s (95 %% intervals)", estimate);
	line(out, st, "Live at end", text);
	free(text);
	free(estimate);
	if (r->at == AT_TIME)
		moment_line(out, st, r);
	format_size(bytes, heap->allocated.bytes);
	format_count(count, heap->allocated.count);
	text = xasprintf("%s in an estimated %s allocations", bytes, count);
	line(out, st, "Allocated", text);
	free(text);
	resident_line(out, st, r);
}

/* A table cell: room for any of its numbers. */
#define CELL SIGNED_SIZE

static void row_cells(const struct report *r, const struct site *s,
		      char cells[NUMERIC_COLUMNS][CELL])
{
	const struct estimate *live = &s->heap.live[r->at];
	double total = r->sites->heap.live[r->at].bytes;

	format_size(cells[COL_LIVE], live->bytes);
	format_size(cells[COL_INTERVAL], estimator_interval95(live->bytes_variance));
	if (r->leaks) {
		const struct trend *growth = &s->heap.growth[r->leaks->axis];

		format_signed(cells[COL_GROWTH], growth->slope, false, true);
		format_size(cells[COL_GROWTH_INTERVAL],
			    estimator_interval95(growth->slope_variance));
	}
	if (total > 0)
		snprintf(cells[COL_SHARE], CELL, "%.1f%%",
			 100.0 * live->bytes / total);
	else
		snprintf(cells[COL_SHARE], CELL, "-");
	snprintf(cells[COL_SAMPLES], CELL, "%" PRIu64,
		 site_measure(s, r->sort, r->at)->samples);
	format_count(cells[COL_ALLOCS], s->heap.allocated.count);
	format_size(cells[COL_ALLOCATED], s->heap.allocated.bytes);
}

static const char *column_title(const struct report *r, int column)
{
	if (column == COL_LIVE)
		return live_titles[r->at];
	if (column == COL_GROWTH)
		return growth_titles[r->leaks->axis];
	return column_titles[column];
}

/* The growth columns are there with --growth only. */
static bool column_shown(const struct report *r, int column)
{
	return r->leaks || (column != COL_GROWTH &&
			    column != COL_GROWTH_INTERVAL);
}

static void pad_left(FILE *out, const char *cell, int width)
{
	fprintf(out, "%*s%s", width - text_width(cell), "", cell);
}

/* What a site's line says of the memory it holds, in a profile that has
 * mappings: nothing for heap alone. */
static const char *kind_mark(const struct report *r, const struct site *s)
{
	if (r->mapped_peak <= 0 || !(s->kinds & KIND_MAPPED))
		return "";
	return s->kinds & KIND_HEAP ? " [heap and mapped]" : " [mapped]";
}

static void sites_table(FILE *out, const struct style *st,
			const struct report *r, bool *any_rough)
{
	size_t rows = report_rows(r);
	int widths[NUMERIC_COLUMNS] = { 0 };
	char (*cells)[NUMERIC_COLUMNS][CELL] = xcalloc(rows ? rows : 1,
						       sizeof(*cells));

	for (int c = 0; c < NUMERIC_COLUMNS; c++)
		if (column_shown(r, c))
			widths[c] = text_width(column_title(r, c));
	for (size_t i = 0; i < rows; i++) {
		row_cells(r, &r->sites->sites[i], cells[i]);
		for (int c = 0; c < NUMERIC_COLUMNS; c++)
			if (text_width(cells[i][c]) > widths[c])
				widths[c] = text_width(cells[i][c]);
	}
	fprintf(out, "%s ", st->bold);
	for (int c = 0; c < NUMERIC_COLUMNS; c++) {
		if (!column_shown(r, c))
			continue;
		pad_left(out, column_title(r, c), widths[c]);
		fputs("  ", out);
	}
	fprintf(out, "SITE%s\n", st->reset);
	for (size_t i = 0; i < rows; i++) {
		const struct site *s = &r->sites->sites[i];
		bool rough = site_rough(s, r->sort, r->at);
		int indent = 1;

		*any_rough |= rough;
		fputc(rough ? '~' : ' ', out);
		for (int c = 0; c < NUMERIC_COLUMNS; c++) {
			if (!column_shown(r, c))
				continue;
			pad_left(out, cells[i][c], widths[c]);
			fputs("  ", out);
			indent += widths[c] + 2;
		}
		fprintf(out, "%s%s\n", s->text, kind_mark(r, s));
		for (size_t k = 0; k < s->caller_count; k++)
			fprintf(out, "%*s  < %s\n", indent, "", s->callers[k]);
	}
	free(cells);
}

/* "     1.250 s  live 10.0 MiB ± 1.2 KiB   marker warmup-done" */
static void mark_line(FILE *out, const struct report *r,
		      const struct profile_summary *p,
		      const struct heap_event *mark)
{
	char *live = estimate_text(&(struct estimate){
		.bytes = mark->live.bytes,
		.bytes_variance = mark->live.bytes_variance });
	char *what, collected[32];

	if (mark->kind == HEAP_EVENT_MARKER) {
		what = xasprintf("marker %s", mark->name);
	} else {
		format_size(collected, (double)mark->gc_bytes);
		what = xasprintf("GC collected %" PRIu64 " objects, %s",
				 mark->gc_objects, collected);
	}
	fprintf(out, "  %8.3f s  live %-22s  %s", report_seconds(r,
		mark->live.time_us), live, what);
	if (r->profile_count > 1)
		fprintf(out, "  (%s)", p->file);
	fputc('\n', out);
	free(what);
	free(live);
}

/* An empty report says why and what to do. */
static void nothing_sampled(FILE *out, const struct report *r)
{
	char rate[32];
	uint64_t highest = 0;

	for (size_t i = 0; i < r->profile_count; i++)
		if (r->profiles[i].sampling_rate > highest)
			highest = r->profiles[i].sampling_rate;
	fputs("No allocation was sampled", out);
	if (r->unseen_malloc.profiles == r->profile_count) {
		/* No rate would help: see the note. */
		fprintf(out, ": the program allocates through a malloc of its "
			     "own, which the profiler does not see.\n");
	} else if (highest) {
		format_size(rate, (double)highest);
		fprintf(out, ": with one sample per %s allocated on average, "
			     "the program allocated too little to be seen.\n"
			     "Profile it again at a lower rate, e.g. "
			     "memprof-wrap -r 4K (or SPPROF_SAMPLING_RATE=4096).\n",
			rate);
	} else {
		fputs(".\n", out);
	}
}

/* "1 site with nothing live at the peak is left out (--all shows it)." */
static void left_out_note(FILE *out, const struct style *st,
			  const struct report *r)
{
	size_t n = r->sites->count - r->shown_sites;
	char *moment;

	if (!n)
		return;
	moment = moment_phrase(r);
	fprintf(out, "%s  %zu site%s with nothing live%s %s left out "
		     "(--all lists %s).%s\n",
		st->warn, n, n == 1 ? "" : "s", moment,
		n == 1 ? "is" : "are", n == 1 ? "it" : "them", st->reset);
	free(moment);
}

/* Markers and garbage collections, with the live heap at their moment;
 * the first MARKS_SHOWN (JSON has them all). */
static void marks_block(FILE *out, const struct style *st,
			const struct report *r)
{
	size_t shown = 0, total = 0;

	for (size_t i = 0; i < r->profile_count; i++)
		total += r->profiles[i].mark_count;
	if (total == 0)
		return;
	fprintf(out, "%sMarkers and garbage collections%s\n", st->bold,
		st->reset);
	for (size_t i = 0; i < r->profile_count; i++) {
		const struct profile_summary *p = &r->profiles[i];

		for (size_t k = 0; k < p->mark_count && shown < MARKS_SHOWN;
		     k++, shown++)
			mark_line(out, r, p, &p->marks[k]);
	}
	if (total > shown)
		fprintf(out, "  ... and %zu more (--format=json lists them "
			     "all)\n", total - shown);
	fputc('\n', out);
}

int view_text(FILE *out, const struct report *r)
{
	static const struct style plain = { "", "", "" };
	static const struct style coloured = { "\033[1m", "\033[33m",
					       "\033[0m" };
	const struct style *st = r->colour ? &coloured : &plain;
	size_t rows = report_rows(r);
	bool any_rough = false;

	if (r->profile_count == 1)
		profile_block(out, st, &r->profiles[0]);
	else
		profiles_table(out, st, r);
	totals_block(out, st, r);
	fputc('\n', out);
	marks_block(out, st, r);
	if (r->sites->count == 0) {
		nothing_sampled(out, r);
	} else {
		char *moment = moment_phrase(r);

		fprintf(out,
			"%sTop %zu of %zu sites by %s%s, %sgrouped by %s%s\n",
			st->bold, rows, r->shown_sites, sort_phrases[r->sort],
			r->sort == SORT_BY_LIVE ? moment : "",
			r->sites->cumulative ? "cumulative, " : "",
			grouping_names[r->grouping], st->reset);
		free(moment);
		sites_table(out, st, r, &any_rough);
	}
	if (!any_rough && r->note_count == 0 && !r->leaks &&
	    r->sites->count == r->shown_sites)
		return 0;
	fprintf(out, "\n%sNotes%s\n", st->bold, st->reset);
	if (r->leaks)
		fprintf(out, "  GROWTH is the trend of a site's live bytes "
			     "over the whole run (a least-squares line, as "
			     "--leaks ranks them).\n");
	if (any_rough)
		fprintf(out, "%s  ~ marks rough estimates: their 95 %% interval "
			     "is wider than ±%.0f %% of them.%s\n",
			st->warn, 100 * ROUGH_INTERVAL, st->reset);
	left_out_note(out, st, r);
	for (size_t i = 0; i < r->note_count; i++)
		fprintf(out, "%s  %s%s\n", st->warn, r->notes[i], st->reset);
	return 0;
}
