## Tests of libmlyze and memprof-report.

check_PROGRAMS += tests/report/mlyze-gen
tests_report_mlyze_gen_SOURCES = tests/report/mlyze-gen.c \
	tests/report/mlyze-script.c tests/report/mlyze-script.h
tests_report_mlyze_gen_LDADD = -lm

if HAVE_CHECK
check_PROGRAMS += tests/report/check-reader
TESTS += tests/report/check-reader
tests_report_check_reader_SOURCES = tests/report/check-reader.c \
	tests/report/mlyze-script.c tests/report/mlyze-script.h
tests_report_check_reader_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_report_check_reader_LDADD = src/libmlyze.la $(CHECK_LIBS) -lm
endif
