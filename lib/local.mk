## The runtime library and the profile codec.

spprofincludedir = $(includedir)/spprof
spprofinclude_HEADERS = include/spprof/memprof.h
noinst_HEADERS = lib/mlyze-codec.h
