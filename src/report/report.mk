## memprof-report: estimates per allocation site from .mlyze profiles.

# The report engine: the replay of a profile into estimates, its stacks
# symbolized and grouped into sites, the growth of the sites (--top,
# --leaks), the stacks suppressions leave out, and the pprof view
# (profile.proto, gzip), which memprof-ctl serve writes too; its entry
# point is report_engine_run() (report-engine.h).  Compiled once,
# linked into memprof-report, memprof-ctl and the unit tests, with
# libmlyze.la, libsymbolizer.la and zlib.
noinst_LTLIBRARIES += src/report/libreport.la
src_report_libreport_la_SOURCES = \
	src/report/report-blocks.c src/report/report-blocks.h \
	src/report/report-classes.c src/report/report-classes.h \
	src/report/report-compare.c src/report/report-compare.h \
	src/report/report-engine.c src/report/report-engine.h \
	src/report/report-frames.c src/report/report-frames.h \
	src/report/report-heap.c src/report/report-heap.h \
	src/report/report-index.c src/report/report-index.h \
	src/report/report-leaks.c src/report/report-leaks.h \
	src/report/report-measure.c \
	src/report/report-memory.c src/report/report-memory.h \
	src/report/report-moment.c src/report/report-moment.h \
	src/report/report-pprof.c \
	src/report/report-protobuf.c src/report/report-protobuf.h \
	src/report/report-sites.c src/report/report-sites.h \
	src/report/report-stacks.c src/report/report-stacks.h \
	src/report/report-suppress.c src/report/report-suppress.h \
	src/report/report-trend.c src/report/report-trend.h \
	src/report/report-util.c src/report/report-util.h \
	src/report/report-view.h \
	src/report/report-weights.c src/report/report-weights.h \
	src/report/report-wrappers.c src/report/report-wrappers.h \
	src/mlyze/u64map.c src/mlyze/u64map.h
# u64map.h from libmlyze's folder, symbolizer.h from the symbolizer's.
src_report_libreport_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/src/mlyze -I$(top_srcdir)/src/symbolizer
src_report_libreport_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(ZLIB_CFLAGS)
# What a program that links the engine links with it.
REPORT_ENGINE_LIBS = src/report/libreport.la src/mlyze/libmlyze.la \
	src/symbolizer/libsymbolizer.la

bin_PROGRAMS += src/memprof-report
src_memprof_report_SOURCES = \
	src/report/memprof-report.c \
	src/report/report-blocks-json.c src/report/report-blocks-text.c \
	src/report/report-folded.c \
	src/report/report-compare-json.c src/report/report-compare-text.c \
	src/report/report-html.c \
	src/report/report-jansson.c src/report/report-jansson.h \
	src/report/report-leaks-json.c src/report/report-leaks-text.c \
	src/report/report-json.c \
	src/report/report-progress.c src/report/report-progress.h \
	src/report/report-speedscope.c \
	src/report/report-symbolize.c src/report/report-symbolize.h \
	src/report/report-text.c \
	src/report/report-views.c
# The style and script of the HTML page, compiled in as C strings.
nodist_src_memprof_report_SOURCES = src/report/report-html-assets.c
REPORT_HTML_ASSETS = src/report/report-html.css src/report/report-html.js
EXTRA_DIST += $(REPORT_HTML_ASSETS)
CLEANFILES += src/report/report-html-assets.c
src/report/report-html-assets.c: $(REPORT_HTML_ASSETS:%=$(srcdir)/%) \
		$(srcdir)/src/report/report.mk
	$(AM_V_GEN)$(MKDIR_P) src/report && { \
	  echo '/* Made from $(REPORT_HTML_ASSETS) by report.mk. */'; \
	  for asset in css js; do \
	    echo "const char report_html_$$asset[] ="; \
	    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' \
	      $(srcdir)/src/report/report-html.$$asset; \
	    echo ';'; \
	  done; } >$@.tmp && mv $@.tmp $@

# u64map.h and mlyze-stats.h from libmlyze's folder, symbolizer.h from
# the symbolizer's.
src_memprof_report_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/src/mlyze -I$(top_srcdir)/src/symbolizer
src_memprof_report_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(ZLIB_CFLAGS)
src_memprof_report_LDADD = $(REPORT_ENGINE_LIBS) $(JANSSON_LIBS) \
	$(ZLIB_LIBS) -lm

dist_man_MANS += man/memprof-report.1
EXTRA_DIST += bench/report-bench.sh
