/* ctl-serve-index.c - the index page of memprof-ctl serve (see
 * ctl-serve-index.h). */
#include "config.h"

#include "ctl-serve-index.h"

#include <jansson.h>

static const char *const profile_kinds[] = { "heap", "allocs" };

static bool recording(const struct ctl_process *p)
{
	return p->page.state == CONTROL_RECORDING && p->page.part[0];
}

static void html_text(FILE *out, const char *text)
{
	for (; *text; text++) {
		switch (*text) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*text, out);
		}
	}
}

static void html_row(FILE *out, const struct ctl_process *p)
{
	fprintf(out, "<tr><td>%ld</td><td>", p->pid);
	html_text(out, p->command);
	fputs("</td><td>", out);
	for (size_t i = 0; recording(p) && i < 2; i++)
		fprintf(out, "<a href=\"/debug/pprof/%s?pid=%ld\">%s</a> ",
			profile_kinds[i], p->pid, profile_kinds[i]);
	fputs(recording(p) ? "</td></tr>\n" : "dormant</td></tr>\n", out);
}

static int html_index(FILE *out, const struct ctl_process *procs,
		      size_t count)
{
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	      "<title>memprof-ctl serve</title></head><body>\n"
	      "<h1>Profiled processes</h1>\n<table>\n"
	      "<tr><th>PID</th><th>COMMAND</th><th>PROFILES</th></tr>\n", out);
	for (size_t i = 0; i < count; i++)
		html_row(out, &procs[i]);
	fputs("</table>\n<p><a href=\"/metrics\">metrics</a></p>\n"
	      "</body></html>\n", out);
	return ferror(out) ? -1 : 0;
}

static json_t *json_link(const struct ctl_process *p, const char *kind)
{
	char link[64];

	if (!recording(p))
		return json_null();
	snprintf(link, sizeof(link), "/debug/pprof/%s?pid=%ld", kind, p->pid);
	return json_string(link);
}

static int json_index(FILE *out, const struct ctl_process *procs,
		      size_t count)
{
	json_t *list = json_array();
	json_t *index = json_pack("{s:o}", "processes", list);
	int rc;

	for (size_t i = 0; i < count; i++) {
		const struct ctl_process *p = &procs[i];

		/* A command line that is not UTF-8 is null. */
		json_array_append_new(list, json_pack(
			"{s:I, s:o?, s:s, s:o, s:o}", "pid", (json_int_t)p->pid,
			"command", json_string(p->command),
			"state", recording(p) ? "recording" : "dormant",
			"heap", json_link(p, "heap"),
			"allocs", json_link(p, "allocs")));
	}
	rc = json_dumpf(index, out, JSON_INDENT(1)) < 0 ? -1 : 0;
	json_decref(index);
	fputc('\n', out);
	return rc || ferror(out) ? -1 : 0;
}

int ctl_serve_index(FILE *out, const struct ctl_process *procs, size_t count,
		    bool json)
{
	return json ? json_index(out, procs, count)
		    : html_index(out, procs, count);
}
