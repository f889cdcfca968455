"""Python frames in samples: the right lines, from every kind of thread."""

from conftest import comprehension_frames, comprehension_site


WORKLOAD = """
    def load_records(n):
        return [bytes(4096) for _ in range(n)]  # RECORDS

    def build_index(records):
        return {i: bytearray(16384) for i in range(0, len(records), 4)}  # INDEX

    def make_buffers():
        return [bytearray(2 << 20) for _ in range(3)]  # BUFFERS

    records = load_records(10240)  # 40 MiB
    index = build_index(records)  # CALL_INDEX
    buffers = make_buffers()  # 6 MiB
"""


def test_known_lines_are_the_top_sites_of_the_profile(runner):
    # A program that knows nothing of spprof: attribution comes from the
    # walker the runtime loads (SPPROF_PYTHON_WALKER), as under
    # memprof-wrap.
    prog = runner.program(WORKLOAD, prelude=False)
    assert runner.run(prog, record=True, check=False).returncode == 0
    profile, = runner.profiles()
    # Everything allocated: the process frees its objects as it exits.
    by_line = profile.allocated_by_line()
    top = sorted(by_line, key=by_line.get, reverse=True)[:3]
    assert top[2] == prog.line("BUFFERS")
    assert set(top[:2]) == {prog.line("RECORDS"), prog.line("INDEX")}
    assert 4e6 < by_line[top[2]] < 9e6
    frames = profile.python_frames(next(
        stack for _, _, stack in profile.allocs
        if profile.python_frames(stack)[:1] and
        profile.python_frames(stack)[0][2] == prog.line("INDEX")))
    assert frames == [
        *((str(prog.path), name, prog.line("INDEX"))
          for name in comprehension_frames("build_index", "dictcomp")),
        (str(prog.path), "<module>", prog.line("CALL_INDEX")),
    ]


def test_known_lines_in_snapshot(runner):
    prog = runner.program("import spprof.memprof as memprof\n"
                          "memprof.start(sampling_rate_kb=256)\n",
                          WORKLOAD,
                          "report(top=sites(memprof.get_snapshot(), 3))\n")
    top = runner.run(prog).data["top"]
    assert sorted(s[2] for s in top[:2]) == sorted(
        [prog.line("RECORDS"), prog.line("INDEX")])
    assert top[2][2] == prog.line("BUFFERS")
    assert all(30e6 < s[3] < 55e6 for s in top[:2])
    assert 4e6 < top[2][3] < 9e6


def test_small_objects_need_pythonmalloc_malloc(runner):
    # 200,000 small tuples: pymalloc serves them from its arenas, which
    # malloc never sees; with PYTHONMALLOC=malloc they are sampled.
    prog = runner.program("""
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=64)
        small = [(i, i + 1, i + 2) for i in range(200_000)]  # SMALL
        top = sites(memprof.get_snapshot(), 3)
        report(lines=[s[2] for s in top], bytes=[s[3] for s in top])
    """)
    seen = runner.run(prog, small_objects=True).data
    assert seen["lines"][0] == prog.line("SMALL")
    assert seen["bytes"][0] > 10e6
    blind = runner.run(prog).data
    small_bytes = sum(b for line, b in zip(blind["lines"], blind["bytes"])
                      if line == prog.line("SMALL"))
    assert small_bytes < seen["bytes"][0] / 2


def test_non_ascii_names(runner):
    prog = runner.program("""
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=64)
        def größe_λ_名前():
            return bytearray(4 << 20)  # ALLOC
        kept = größe_λ_名前()
        site = memprof.get_snapshot().top_allocators(1)[0]
        report(function=site["function"], file=site["file"], line=site["line"])
    """, name="prøgram_🐍.py")
    r = runner.run(prog, record=True).data
    assert r == {"function": "größe_λ_名前", "file": str(prog.path),
                 "line": prog.line("ALLOC")}
    profile, = runner.profiles()
    names = {f[:2] for _, _, s in profile.allocs
             for f in profile.python_frames(s)}
    assert (str(prog.path), "größe_λ_名前") in names


def test_python_threads(runner):
    prog = runner.program(
        f"WORKER_SITE = {comprehension_site('worker')!r}\n", """
        import threading
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=64)
        held = {}
        def worker(k):
            held[k] = [bytearray(50_000) for _ in range(100)]  # WORKER
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        snapshot = memprof.get_snapshot()
        worker_samples = [s for s in snapshot.samples
                          if s.stack and s.stack[0].function == WORKER_SITE]
        report(top=sites(snapshot, 1),
               threads=len({s.thread_id for s in worker_samples}))
    """)
    r = runner.run(prog).data
    assert r["top"][0][2] == prog.line("WORKER")
    assert 15e6 < r["top"][0][3] < 25e6
    assert r["threads"] == 4


def test_thread_started_from_c_keeps_native_frames(runner):
    # A thread created by pthread_create whose start routine is malloc
    # itself: no Python thread state, no GIL, so no Python frames.
    prog = runner.program("""
        import ctypes
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=64)
        process = ctypes.CDLL(None)
        tid = ctypes.c_ulong()
        start_routine = ctypes.cast(process.malloc, ctypes.c_void_p)
        process.pthread_create(ctypes.byref(tid), None, start_routine,
                               ctypes.c_void_p(16 << 20))
        block = ctypes.c_void_p()
        process.pthread_join(tid, ctypes.byref(block))
        sample = next(s for s in memprof.get_snapshot().samples
                      if s.address == block.value)
        report(frames=[str(f) for f in sample.stack],
               python=[f.is_python for f in sample.stack])
    """)
    r = runner.run(prog).data
    assert r["frames"] and not any(r["python"])


def test_deep_recursion_and_generators(runner):
    prog = runner.program("""
        import sys
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=64)
        def deep(n):
            if n == 0:
                return bytearray(4 << 20)  # DEEP
            return deep(n - 1)
        def produce():
            yield bytearray(4 << 20)  # GENERATOR
        kept = [deep(200), next(produce())]
        snapshot = memprof.get_snapshot()
        stacks = {s.address: s.stack for s in snapshot.samples
                  if s.size == (4 << 20) + 1}
        report(depths=[len(s) for s in stacks.values()],
               lines=sorted(s[2] for s in sites(snapshot, 2)))
    """)
    r = runner.run(prog).data
    assert max(r["depths"]) <= 64
    assert r["lines"] == sorted([prog.line("DEEP"), prog.line("GENERATOR")])
