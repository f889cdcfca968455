## Manual pages of the runtime library (other pages belong to their tools).

RUNTIME_MAN_LINKS = \
	man/memprof_init.3 man/memprof_start.3 man/memprof_stop.3 \
	man/memprof_shutdown.3 man/memprof_set_sampling_rate.3 \
	man/memprof_get_snapshot.3 man/memprof_free_snapshot.3 \
	man/memprof_get_stats.3 man/memprof_get_stack.3 \
	man/memprof_resolve_symbols.3 man/memprof_marker.3 \
	man/memprof_gc_event.3 man/memprof_estimate_bytes.3 \
	man/memprof_estimate_variance.3 man/memprof_estimate_interval95.3 \
	man/memprof_set_frame_walker.3
# Reports of pool allocators (<spprof/memprof-pool.h>): one page.
POOL_MAN_LINKS = \
	man/memprof_pool_free.3 man/memprof_pool_chunk.3 \
	man/memprof_report_alloc.3 man/memprof_report_free.3 \
	man/memprof_report_chunk.3 man/memprof_report_gates.3
dist_man_MANS += man/libspprof-alloc.3 $(RUNTIME_MAN_LINKS) \
	man/memprof_pool_alloc.3 $(POOL_MAN_LINKS)
