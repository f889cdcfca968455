## The runtime library and the profile codec.
##
## lib/ holds the runtime alone, one folder per subsystem:
##   interpose/  the program's calls as it sees them (the malloc family,
##               mmap, dlopen, exec, set*id, sandboxing, the control
##               signal's action) and the C library's allocator behind them
##   sampling/   which bytes are sampled (Poisson sampler, its generator)
##               and the pool of pages sampled blocks sit in
##   live/       the tables of what is sampled and still live: heap map,
##               mappings, interned stacks, and the free filter before them
##   unwind/     native stacks (frame pointers, unwind tables), the loaded
##               objects and modules they lie in, script frames, symbols
##   stream/     the .mlyze profile: the writer, its crash-safe stream, the
##               final file's assembly, metadata, names and run totals
##   control/    the registry entry memprof-ctl reads, its requests, and
##               the signal that brings them to a process that never samples
##   attach/     a runtime loaded late (memprof-ctl attach): the program's
##               allocator slots and its dlopen() rewritten
##   process/    the process the runtime lives in: whether the state is its
##               own, its sandbox, its environment, its memory as the
##               kernel counts it
##   profiler/   the state machine that ties them together: the public API,
##               the record paths, load, fork, exec and exit, requests,
##               settings and statistics
##   base/       what every subsystem uses: the runtime's own memory, its
##               short lock, its clocks
## Each folder is on the include path of the runtime and its unit tests
## (RUNTIME_CPPFLAGS): a header is included by its name alone.

spprofincludedir = $(includedir)/spprof
spprofinclude_HEADERS = include/spprof/memprof.h include/spprof/memprof-stats.def \
	include/spprof/memprof-pool.h

# Everything but the exported allocator entry points, so that unit tests
# can link the components without interposing their own malloc.  The
# order of the files is the order of the link, on which the code that
# link-time optimisation makes depends: another order gives other code
# (grouped by folder, 28 bytes more of it).
noinst_LTLIBRARIES += lib/libspprof-core.la
lib_libspprof_core_la_SOURCES = \
	lib/live/carved_count.c lib/live/carved_count.h \
	lib/unwind/cfi.c lib/unwind/cfi.h \
	lib/base/clock.h \
	lib/unwind/code_map.c lib/unwind/code_map.h \
	common/compiler.h \
	lib/control/control.c lib/control/control.h \
	lib/control/control_notes.c lib/control/control_notes.h \
	lib/control/control_signal.c lib/control/control_signal.h \
	common/control_page.h \
	lib/profiler/counters.c lib/profiler/counters.h \
	lib/process/environ_edit.c lib/process/environ_edit.h \
	common/estimator.h \
	lib/unwind/frames.h \
	lib/unwind/keeps_frame_pointers.c lib/unwind/keeps_frame_pointers.h \
	lib/unwind/loaded_objects.c lib/unwind/loaded_objects.h \
	lib/interpose/malloc_owner.c lib/interpose/malloc_owner.h \
	lib/live/mapping_table.c lib/live/mapping_table.h \
	lib/live/free_filter.c lib/live/free_filter.h \
	lib/live/heap_map.c lib/live/heap_map.h \
	common/mlyze-codec.h \
	lib/unwind/modules.c lib/unwind/modules.h \
	common/outbuf.c common/outbuf.h \
	lib/sampling/prng.c lib/sampling/prng.h \
	lib/process/process_memory.c lib/process/process_memory.h \
	lib/profiler/profiler.c lib/profiler/profiler.h \
	lib/profiler/profiler_state.h \
	lib/profiler/profiler_events.c lib/profiler/profiler_record.c \
	lib/profiler/profiler_mappings.c \
	lib/profiler/profiler_control.c \
	lib/attach/late_binding.c lib/attach/late_binding.h \
	lib/attach/late_dlopen.c lib/attach/late_dlopen.h \
	lib/process/process_owner.c lib/process/process_owner.h \
	common/process_start.c common/process_start.h \
	lib/base/rawmem.c lib/base/rawmem.h \
	lib/stream/run_totals.c lib/stream/run_totals.h \
	lib/process/sandbox.c lib/process/sandbox.h \
	lib/interpose/real_alloc.c lib/interpose/real_alloc.h \
	lib/profiler/reported_blocks.c \
	lib/sampling/sample_pool.c lib/sampling/sample_pool.h \
	lib/sampling/sampler.c lib/sampling/sampler.h \
	lib/unwind/script_stack.c lib/unwind/script_stack.h \
	lib/profiler/settings.c lib/profiler/settings.h \
	lib/base/spinlock.h \
	lib/live/stack_table.c lib/live/stack_table.h \
	lib/stream/names.c lib/stream/names.h \
	lib/unwind/symbols.c lib/unwind/symbols.h \
	lib/stream/thread_names.c lib/stream/thread_names.h \
	lib/unwind/unwind.c lib/unwind/unwind.h \
	lib/interpose/usable_size.c lib/interpose/usable_size.h \
	lib/stream/event_stream.c lib/stream/event_stream.h \
	lib/stream/profile_assembly.c lib/stream/profile_assembly.h \
	common/profile_files.c common/profile_files.h \
	lib/stream/profile_meta.c lib/stream/profile_meta.h \
	lib/unwind/eh_frame_hdr.h \
	lib/unwind/unwind_arch.h \
	lib/unwind/unwind_tables.c lib/unwind/unwind_tables.h \
	lib/unwind/packed_rule.h \
	common/wrap_channel.c common/wrap_channel.h \
	lib/stream/writer.c lib/stream/writer.h
lib_libspprof_core_la_CPPFLAGS = $(RUNTIME_CPPFLAGS)
lib_libspprof_core_la_CFLAGS = $(AM_CFLAGS) $(RUNTIME_CFLAGS)
lib_libspprof_core_la_LIBADD = $(RUNTIME_LIBS)

# Link-time optimisation (where configure found it) lets a sample's path
# through profiler, heap map, stack table and writer be compiled as one
# piece: a fifth fewer instructions.
RUNTIME_CFLAGS = -fvisibility=hidden -fno-omit-frame-pointer \
	-ftls-model=initial-exec $(RUNTIME_LTO_CFLAGS)

lib_LTLIBRARIES += lib/libspprof-alloc.la
lib_libspprof_alloc_la_SOURCES = \
	lib/interpose/interpose.c lib/interpose/interpose.h \
	lib/interpose/interpose_exec.c lib/interpose/interpose_ids.c \
	lib/interpose/interpose_sandbox.c lib/interpose/interpose_dlopen.c \
	lib/interpose/interpose_signal.c lib/interpose/interpose_mmap.c
lib_libspprof_alloc_la_CPPFLAGS = $(RUNTIME_CPPFLAGS)
lib_libspprof_alloc_la_CFLAGS = $(AM_CFLAGS) $(RUNTIME_CFLAGS)
lib_libspprof_alloc_la_LIBADD = lib/libspprof-core.la $(RUNTIME_LIBS)
# nodelete: hooks may be running on other threads when a dlclose() comes.
# -z now: no lazy symbol lookup runs inside an allocation hook, where it
# could wait for the dynamic loader's lock (see interpose_decide() in interpose.c).
lib_libspprof_alloc_la_LDFLAGS = -version-info $(SPPROF_ALLOC_LT_VERSION) \
	-no-undefined -Wl,-z,nodelete -Wl,-z,now $(RUNTIME_LTO_LDFLAGS)
