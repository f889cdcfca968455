## The offline symbolizer of memprof-report: function names from ELF symbol
## tables and separate debug files, file:line from DWARF.

noinst_LTLIBRARIES += src/symbolizer/libsymbolizer.la
src_symbolizer_libsymbolizer_la_SOURCES = \
	src/symbolizer/symbolizer.h \
	src/symbolizer/symbolizer-internal.h \
	src/symbolizer/symbolizer.c \
	src/symbolizer/symbolizer-elf.c \
	src/symbolizer/symbolizer-debugfile.c \
	src/symbolizer/symbolizer-debuginfod.c \
	src/symbolizer/symbolizer-symtab.c \
	src/symbolizer/symbolizer-lines.c
src_symbolizer_libsymbolizer_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden \
	$(LIBELF_CFLAGS) $(LIBDW_CFLAGS) $(DEBUGINFOD_CFLAGS) $(ZLIB_CFLAGS)
# -lstdc++ for __cxa_demangle (see src/symbolizer/symbolizer-symtab.c).
src_symbolizer_libsymbolizer_la_LIBADD = $(DEBUGINFOD_LIBS) $(LIBDW_LIBS) $(LIBELF_LIBS) \
	$(ZLIB_LIBS) -lstdc++
