## The runtime library and the profile codec.

spprofincludedir = $(includedir)/spprof
spprofinclude_HEADERS = include/spprof/memprof.h include/spprof/memprof-stats.def \
	include/spprof/memprof-pool.h

# Everything but the exported allocator entry points, so that unit tests
# can link the components without interposing their own malloc.
noinst_LTLIBRARIES += lib/libspprof-core.la
lib_libspprof_core_la_SOURCES = \
	lib/carved_count.c lib/carved_count.h \
	lib/cfi.c lib/cfi.h \
	lib/clock.h \
	lib/code_map.c lib/code_map.h \
	common/compiler.h \
	lib/control.c lib/control.h \
	lib/control_signal.c lib/control_signal.h common/control_page.h \
	lib/counters.c lib/counters.h \
	lib/environ_edit.c lib/environ_edit.h \
	common/estimator.h \
	lib/frames.h \
	lib/keeps_frame_pointers.c lib/keeps_frame_pointers.h \
	lib/loaded_objects.c lib/loaded_objects.h \
	lib/malloc_owner.c lib/malloc_owner.h \
	lib/mapping_table.c lib/mapping_table.h \
	lib/free_filter.c lib/free_filter.h \
	lib/heap_map.c lib/heap_map.h \
	common/mlyze-codec.h \
	lib/modules.c lib/modules.h \
	common/outbuf.c common/outbuf.h \
	lib/prng.c lib/prng.h \
	lib/process_memory.c lib/process_memory.h \
	lib/profiler.c lib/profiler.h lib/profiler_state.h \
	lib/profiler_events.c lib/profiler_record.c \
	lib/profiler_mappings.c \
	lib/profiler_control.c lib/late_binding.c lib/late_binding.h \
	lib/late_dlopen.c lib/late_dlopen.h \
	lib/process_owner.c lib/process_owner.h \
	common/process_start.c common/process_start.h \
	lib/rawmem.c lib/rawmem.h \
	lib/run_totals.c lib/run_totals.h \
	lib/sandbox.c lib/sandbox.h \
	lib/real_alloc.c lib/real_alloc.h \
	lib/reported_blocks.c \
	lib/sample_pool.c lib/sample_pool.h \
	lib/sampler.c lib/sampler.h \
	lib/script_stack.c lib/script_stack.h \
	lib/settings.c lib/settings.h \
	lib/spinlock.h \
	lib/stack_table.c lib/stack_table.h \
	lib/names.c lib/names.h \
	lib/symbols.c lib/symbols.h \
	lib/thread_names.c lib/thread_names.h \
	lib/unwind.c lib/unwind.h \
	lib/usable_size.c lib/usable_size.h \
	lib/event_stream.c lib/event_stream.h \
	lib/profile_assembly.c lib/profile_assembly.h \
	common/profile_files.c common/profile_files.h \
	lib/profile_meta.c lib/profile_meta.h \
	lib/eh_frame_hdr.h \
	lib/unwind_arch.h \
	lib/unwind_tables.c lib/unwind_tables.h lib/packed_rule.h \
	common/wrap_channel.c common/wrap_channel.h \
	lib/writer.c lib/writer.h
lib_libspprof_core_la_CPPFLAGS = $(RUNTIME_CPPFLAGS)
lib_libspprof_core_la_CFLAGS = $(AM_CFLAGS) $(RUNTIME_CFLAGS)
lib_libspprof_core_la_LIBADD = $(RUNTIME_LIBS)

# Link-time optimisation (where configure found it) lets a sample's path
# through profiler, heap map, stack table and writer be compiled as one
# piece: a fifth fewer instructions.
RUNTIME_CFLAGS = -fvisibility=hidden -fno-omit-frame-pointer \
	-ftls-model=initial-exec $(RUNTIME_LTO_CFLAGS)

lib_LTLIBRARIES += lib/libspprof-alloc.la
lib_libspprof_alloc_la_SOURCES = lib/interpose.c lib/interpose.h \
	lib/interpose_exec.c lib/interpose_ids.c lib/interpose_sandbox.c \
	lib/interpose_dlopen.c lib/interpose_signal.c lib/interpose_mmap.c
lib_libspprof_alloc_la_CPPFLAGS = $(RUNTIME_CPPFLAGS)
lib_libspprof_alloc_la_CFLAGS = $(AM_CFLAGS) $(RUNTIME_CFLAGS)
lib_libspprof_alloc_la_LIBADD = lib/libspprof-core.la $(RUNTIME_LIBS)
# nodelete: hooks may be running on other threads when a dlclose() comes.
# -z now: no lazy symbol lookup runs inside an allocation hook, where it
# could wait for the dynamic loader's lock (see interpose_decide() in interpose.c).
lib_libspprof_alloc_la_LDFLAGS = -version-info $(SPPROF_ALLOC_LT_VERSION) \
	-no-undefined -Wl,-z,nodelete -Wl,-z,now $(RUNTIME_LTO_LDFLAGS)
