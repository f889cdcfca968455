"""Stress and safety (spec sections 14.3 and 14.4)."""


def test_high_allocation_rate(runner):
    # One million lists of 200 slots (1656 bytes each, 828 on 32-bit
    # systems, so they go through malloc even with pymalloc): ~1.5 GiB
    # allocated, ~3100 samples (~1600 on 32-bit systems).
    prog = runner.program("""
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=512)
        for _ in range(1_000_000):
            x = [0] * 200
            del x
        stats = memprof.get_stats()
        memprof.stop()
        report(total=stats.total_samples, live=stats.live_samples)
    """)
    r = runner.run(prog).data
    assert 100 < r["total"] < 10000
    assert r["live"] < 100


def test_concurrent_allocation(runner):
    prog = runner.program("""
        import threading
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=256)
        def allocator():
            for _ in range(10000):
                x = bytearray(1000)
        threads = [threading.Thread(target=allocator) for _ in range(10)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        snapshot = memprof.get_snapshot()
        stats = memprof.get_stats()
        memprof.stop()
        report(total=stats.total_samples, freed=stats.freed_samples,
               threads=len({s.thread_id for s in snapshot.samples}))
    """)
    r = runner.run(prog).data
    # 10 threads x 10000 x ~1 KiB = ~100 MiB: ~400 samples, nearly all freed
    assert 200 < r["total"] < 800
    assert r["freed"] > r["total"] * 0.9


def test_start_stop_cycles_do_not_leak(runner):
    # The spec's version shuts down in the loop; shutdown is one-way, so
    # the cycles here are start/stop, with snapshots, and one shutdown.
    prog = runner.program("""
        import tracemalloc
        import spprof.memprof as memprof
        def rss_kib():
            return int(open("/proc/self/statm").read().split()[1]) * 4
        tracemalloc.start()
        rss = []
        for cycle in range(30):
            memprof.start(sampling_rate_kb=512)
            data = bytearray(1024 * 1024)
            snapshot = memprof.get_snapshot()
            memprof.stop()
            del data, snapshot
            rss.append(rss_kib())
        memprof.shutdown()
        current, peak = tracemalloc.get_traced_memory()
        report(current=current, growth_kib=rss[-1] - rss[5])
    """)
    r = runner.run(prog).data
    assert r["current"] < 10_000_000
    assert r["growth_kib"] < 4096


def test_stack_table_limit_degrades_gracefully(runner):
    # With room for 4096 stacks only, 20000 distinct call sites overflow
    # the stack table: samples lose their stack, nothing crashes.
    prog = runner.program("""
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=1)
        namespace = {}
        source = "\\n".join(f"def f{i}():\\n    return bytearray(2048)"
                            for i in range(20000))
        exec(source, namespace)
        kept = [namespace[f"f{i}"]() for i in range(20000)]
        snapshot = memprof.get_snapshot()
        stats = memprof.get_stats()
        report(drops=stats.stack_table_drops, stacks=stats.unique_stacks,
               stackless=sum(1 for s in snapshot.samples if not s.stack))
    """)
    r = runner.run(prog, extra={"SPPROF_STACK_TABLE_MAX": "4096"}).data
    assert r["stacks"] <= 4096
    assert r["drops"] > 0 and r["stackless"] > 0


def test_full_heap_map_drops_samples_and_goes_on(runner):
    # A heap map of 1024 slots and ~4000 live samples: the excess is
    # dropped and counted, the program runs on, the kept samples stay true.
    prog = runner.program("""
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=4)
        kept = [bytearray(4096) for _ in range(4000)]  # KEPT
        snapshot = memprof.get_snapshot()
        stats = memprof.get_stats()
        report(drops=stats.heap_map_full_drops, live=stats.live_samples,
               snapshot=snapshot.live_samples, site=sites(snapshot, 1)[0][2])
    """)
    r = runner.run(prog, extra={"SPPROF_HEAP_MAP_CAPACITY": "1024"}).data
    assert r["drops"] > 0
    assert 0 < r["live"] <= 1024 and r["snapshot"] <= 1024
    assert r["site"] == prog.line("KEPT")
