"""The public API of spprof.memprof (spec section 14.2 and section 9)."""

import json
import pydoc
import re
import subprocess
import sys
from pathlib import Path

import pytest

import spprof.memprof as memprof
from spprof import _control
from conftest import WRAP


def test_basic_profiling(runner):
    prog = runner.program("""
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=64)
        data = bytearray(10 * 1024 * 1024)
        snapshot = memprof.get_snapshot()
        memprof.stop()
        report(live=snapshot.live_samples, total=snapshot.total_samples,
               estimate=snapshot.estimated_heap_bytes,
               rate=snapshot.sampling_rate)
    """)
    r = runner.run(prog).data
    assert r["live"] > 0 and r["total"] >= r["live"]
    assert 5_000_000 < r["estimate"] < 50_000_000
    assert r["rate"] == 64 * 1024


def test_unbiased_estimate_of_many_blocks(runner):
    # 40 MiB in 10240 blocks of 4 KiB, sampled about once per 128 KiB:
    # the estimate must fall within its own error bar (plus a margin).
    prog = runner.program("""
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=128)
        blocks = [bytes(4096) for _ in range(10240)]  # BLOCKS
        site = memprof.get_snapshot().top_allocators(1)[0]
        report(line=site["line"], bytes=site["estimated_bytes"],
               ci95=site["ci95_bytes"], samples=site["samples"],
               count=site["estimated_count"])
    """)
    r = runner.run(prog).data
    truth = 10240 * 4096
    assert r["line"] == prog.line("BLOCKS")
    assert r["samples"] > 100
    assert 0 < r["ci95"] < truth * 0.25
    assert abs(r["bytes"] - truth) < 1.5 * r["ci95"] + 0.05 * truth
    assert abs(r["count"] - 10240) < 0.3 * 10240


def test_numpy_allocations_charged_to_calling_line(runner):
    pytest.importorskip("numpy")
    prog = runner.program("""
        import numpy as np
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=128)
        def build():
            zeros = np.zeros((1000, 1000))  # ZEROS
            ones = [np.ones(20000) for _ in range(100)]  # ONES
            return zeros, ones
        kept = build()
        snapshot = memprof.get_snapshot()
        top = snapshot.top_allocators(2)
        report(sites=sites(snapshot, 2),
               numpy_in_stack=["_multiarray_umath" in str(s["stack"])
                               for s in top],
               inner=sites(snapshot, 2, libraries=True))
    """)
    r = runner.run(prog).data
    # np.zeros is C (and allocates without the GIL): the program's line is
    # the innermost Python frame.  np.ones is Python inside numpy: still
    # charged to the program's line.
    estimates = {s[2]: s[3] for s in r["sites"]}
    assert set(estimates) == {prog.line("ZEROS"), prog.line("ONES")}
    assert 7e6 < estimates[prog.line("ZEROS")] < 9e6
    assert 12e6 < estimates[prog.line("ONES")] < 20e6
    assert all(r["numpy_in_stack"])
    # libraries=True charges np.ones to numpy's own Python code.
    assert "numeric.py" in [s[0] for s in r["inner"]]


def test_stats(runner):
    prog = runner.program("""
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=32)
        kept = [bytearray(50000) for _ in range(100)]
        freed = [bytearray(50000) for _ in range(100)]
        del freed
        s = memprof.get_stats()
        report(**vars(s))
    """)
    r = runner.run(prog).data
    assert r["total_samples"] == r["live_samples"] + r["freed_samples"]
    assert r["freed_samples"] > 0 and r["live_samples"] > 0
    assert r["unique_stacks"] > 0
    assert r["sampling_rate_bytes"] == 32 * 1024
    assert 3_000_000 < r["estimated_heap_bytes"] < 8_000_000
    assert r["heap_map_full_drops"] == 0 and r["events_dropped"] == 0


def test_not_under_the_runtime_says_how_to_run(runner):
    prog = runner.program("""
        import spprof.memprof as memprof
        errors = []
        for call in (memprof.start, memprof.get_snapshot, memprof.get_stats):
            try:
                call()
            except RuntimeError as e:
                errors.append(str(e))
        report(errors=errors)
    """)
    r = runner.run(prog, preload=False).data
    assert len(r["errors"]) == 3
    assert "memprof-wrap python3 app.py" in r["errors"][0]


def test_marker_and_gc_events_go_to_the_profile(runner):
    prog = runner.program("""
        import gc
        import spprof.memprof as memprof
        memprof.start(gc_tracking=True)
        old = bytearray(4 << 20)  # OLD
        for _ in range(3):
            gc.collect()
        new = bytearray(5 << 20)  # NEW
        written = memprof.marker("phase two")
        snapshot = memprof.get_snapshot()
        epochs = {s.stack[0].line: s.gc_epoch for s in snapshot.samples
                  if s.stack and s.stack[0].is_python}
        report(written=written, collections=snapshot.gc_epochs_during_profile,
               epochs=epochs,
               survivors=[s.size for s in snapshot.allocations_surviving_gc(3)])
    """)
    r = runner.run(prog, record=True).data
    assert r["written"] is True
    assert r["collections"] >= 3
    old, new = (r["epochs"][str(prog.line(m))] for m in ("OLD", "NEW"))
    assert old + 3 <= new <= r["collections"]
    assert (4 << 20) + 1 in r["survivors"]  # bytearray: one byte more
    profile, = runner.profiles()
    assert "phase two" in profile.markers
    assert len(profile.gcs) >= 3


def test_marker_without_a_profile_does_nothing(runner):
    prog = runner.program("""
        import spprof.memprof as memprof
        memprof.start()
        report(written=memprof.marker("nobody listens"))
    """)
    assert runner.run(prog).data["written"] is False


@pytest.mark.skipif(sys.maxsize < 2**32, reason="keys of reported blocks "
                    "need 64-bit addresses (memprof_pool_alloc(3))")
def test_a_python_pool_reports_its_blocks_at_its_lines(runner):
    # A pool of slots in one bytearray: malloc sees the bytearray once;
    # the slots are reported, sampled at the line that reports them, and
    # leave the snapshot when given back.
    prog = runner.program("""
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=64)
        SLOT = 4096
        arena = bytearray(2000 * SLOT)  # ARENA
        base = id(arena)  # any ints that name the slots while they live
        def take(i):
            memprof.report_alloc(base + i * SLOT, SLOT)  # TAKE
        def give_back(i):
            memprof.report_free(base + i * SLOT)
        for i in range(2000):
            take(i)
        held = sites(memprof.get_snapshot(), 2)
        for i in range(2000):
            give_back(i)
        left = sites(memprof.get_snapshot(), 2)
        try:
            memprof.report_alloc(-1, SLOT)
        except OverflowError:
            refused = True
        report(held=held, left=left, refused=refused)
    """)
    r = runner.run(prog, record=True).data
    by_line = {line: size for _, _, line, size in r["held"]}
    # 8 MB in about 125 samples: within 4.5 standard errors of 9 %.
    assert 5e6 < by_line[prog.line("TAKE")] < 11.5e6
    assert 5e6 < by_line[prog.line("ARENA")] < 11.5e6
    assert prog.line("TAKE") not in [line for _, _, line, _ in r["left"]]
    assert r["refused"]
    # memprof-report charges them to the same line, not to the binding.
    profile, = runner.directory.glob("profile.*.mlyze*")
    report = json.loads(subprocess.run(
        [str(Path(WRAP).parent / "memprof-report"), "--format=json",
         str(profile)], capture_output=True, text=True, check=True).stdout)
    sites = [s["site"] for s in report["sites"]]
    assert "take (%s:%d)" % (prog.path, prog.line("TAKE")) in sites, sites
    assert not [s for s in sites if "report_alloc" in s], sites


def test_help_documents_the_module():
    text = pydoc.render_doc(memprof, renderer=pydoc.plaintext)
    for needed in ("memprof-wrap python3 app.py", "PYTHONMALLOC=malloc",
                   "start(", "stop(", "get_snapshot(", "get_stats(",
                   "shutdown(", "MemoryProfiler", "top_allocators(",
                   "save(", "confidence", "Lifecycle"):
        assert needed in text, needed


def test_frame_pointer_health_thresholds():
    def health(rate):
        return memprof.FramePointerHealth(int(rate * 100), 100, 5.0, 1, rate)
    assert health(0.01).confidence == "high"
    assert health(0.01).recommendation is None
    assert health(0.10).confidence == "medium"
    assert health(0.50).confidence == "low"
    assert "-fno-omit-frame-pointer" in health(0.50).recommendation


def test_stack_health_judges_where_stacks_end():
    def frame(function, module="/usr/lib/libfoo.so", is_python=False):
        return memprof.StackFrame(0x1000, function, module, 0, is_python)
    main = frame("main", "/usr/bin/app")
    libc = [frame("__libc_start_main", "/lib/libc.so.6"),
            frame("_start", "/usr/bin/app")]
    stacks = [
        [main, frame("__libc_start_call_main", "/lib/libc.so.6")],
        [frame("f"), main, *libc],
        [frame("<module>", "app.py", is_python=True)],
        [frame("decode"), frame("parse")],          # broken in libfoo.so
        [frame(""), frame("", "/usr/lib/libbar.so")],  # cannot be judged
    ]
    samples = [memprof.AllocationSample(0, 1, 1.0, 1, 0, s, 1, 1)
               for s in stacks]
    stats = {"native_stacks": 5, "shallow_stacks": 3, "native_frames": 9,
             "min_native_depth": 1}
    health = _control._frame_pointer_health(stats, samples)
    assert health.truncation_rate == pytest.approx(1 / 4)
    assert health.broken_modules == ["/usr/lib/libfoo.so"]
    assert health.confidence == "low"
    assert "they end in libfoo.so" in health.recommendation


def test_raw_stats_hold_every_statistic_of_the_table(runner):
    table = Path(__file__).resolve().parents[2] / \
        "include" / "spprof" / "memprof-stats.def"
    fields = re.findall(r"^MEMPROF_STAT\(\w+, (\w+),", table.read_text(),
                        re.MULTILINE)
    prog = runner.program("""
        import spprof.memprof as memprof
        from spprof import _memprof
        memprof.start(sampling_rate_kb=32)
        report(stats=_memprof.stats())
    """)
    stats = runner.run(prog).data["stats"]
    assert sorted(stats) == sorted(fields)
    assert isinstance(stats["estimated_live_bytes"], float)
    assert stats["sampling_rate"] == 32 * 1024


def test_the_stream_reader_takes_the_format_from_its_one_table():
    import mlyze
    from spprof import _memprof, _stream
    events = mlyze._EVENT_TYPES
    assert _memprof.EVENT_TYPES == events
    assert len(events) > 8 and events["THREAD"] == 12
    assert (_stream.ALLOC, _stream.MARKER, _stream.RATE) == (0, 3, 7)
    assert _memprof.FIXED_LAYOUTS == mlyze._FIXED_LAYOUTS
    assert _memprof.FIXED_LAYOUTS[events["ALLOC"]] == (8, 2, 2)
    assert sorted(_memprof.FIXED_LAYOUTS) == [0, 1, 2, 3]
    assert ((_memprof.STRINGS_FILES, _memprof.STRINGS_FUNCTIONS,
             _memprof.FRAME_NATIVE) ==
            tuple(mlyze._CODEC[name] for name in
                  ("STRINGS_FILES", "STRINGS_FUNCTIONS", "FRAME_NATIVE")) ==
            (0, 1, 0))
    assert _memprof.MAGIC == mlyze._MAGIC == b"MTRC"
    assert (_memprof.HEADER_SIZE, _memprof.OFF_START_US,
            _memprof.OFF_METADATA_LEN) == (256, 8, 16)


def test_a_late_load_leaves_the_allocator_hooks_python_set(runner):
    """libmpdec's allocation hooks, variables the loader set to malloc,
    realloc and free, hold PyMem_Malloc and the like once decimal is
    imported: the runtime, loaded late with the bindings, leaves them so
    and takes the program's malloc calls all the same."""
    prog = runner.program("""
        import decimal
        decimal.getcontext().prec = 2000
        before = [decimal.Decimal(i) ** 300 for i in range(2, 200)]
        from spprof import _memprof
        after = [decimal.Decimal(i) ** 300 for i in range(2, 200)]
        del before, after
        report(done=True)
    """)
    r = runner.run(prog, preload=False)
    assert "loaded late" not in r.stderr, r.stderr
