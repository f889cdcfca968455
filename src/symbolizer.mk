## The offline symbolizer of memprof-report: function names from ELF symbol
## tables and separate debug files, file:line from DWARF.

noinst_LTLIBRARIES += src/libsymbolizer.la
src_libsymbolizer_la_SOURCES = \
	src/symbolizer.h \
	src/symbolizer-internal.h \
	src/symbolizer.c \
	src/symbolizer-elf.c \
	src/symbolizer-debugfile.c \
	src/symbolizer-symtab.c \
	src/symbolizer-lines.c
src_libsymbolizer_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden \
	$(LIBELF_CFLAGS) $(LIBDW_CFLAGS) $(ZLIB_CFLAGS)
# -lstdc++ for __cxa_demangle (see src/symbolizer-symtab.c).
src_libsymbolizer_la_LIBADD = $(LIBDW_LIBS) $(LIBELF_LIBS) $(ZLIB_LIBS) \
	-lstdc++
