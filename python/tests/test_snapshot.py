"""What a HeapSnapshot holds, and the files save() writes."""

import json

import pytest

from conftest import comprehension_frames, comprehension_site

SNAPSHOT = """
    import spprof.memprof as memprof
    memprof.start(sampling_rate_kb=64)
    def outer():
        return inner()
    def inner():
        return [bytearray(100_000) for _ in range(100)]  # INNER
    kept = outer()  # OUTER
    snapshot = memprof.get_snapshot()
"""


def test_samples_and_frames(runner):
    prog = runner.program(SNAPSHOT, """
        s = next(s for s in snapshot.samples if s.size == 100_001)
        report(sample={k: v for k, v in vars(s).items() if k != "stack"},
               stack=[vars(f) for f in s.stack],
               live=snapshot.live_samples, count=len(snapshot.samples),
               health=vars(snapshot.frame_pointer_health),
               confidence=snapshot.frame_pointer_health.confidence)
    """)
    r = runner.run(prog).data
    s = r["sample"]
    # a bytearray allocates one byte more, for its terminating NUL
    assert s["size"] == 100_001 and s["sampling_rate"] == 64 * 1024
    assert s["estimated_bytes"] == pytest.approx(s["size"] * s["weight"])
    assert 1.0 < s["weight"] < 1.5      # p = 1 - exp(-100001/65536)
    assert s["address"] % 4096 == 0     # sampled blocks are page-aligned
    assert s["timestamp_ns"] > 0 and s["thread_id"] > 0
    assert s["lifetime_ns"] is None
    python = [f for f in r["stack"] if f["is_python"]]
    assert [(f["function"], f["line"]) for f in python] == [
        *((name, prog.line("INNER")) for name in comprehension_frames("inner")),
        ("outer", prog.line("INNER") - 2),
        ("<module>", prog.line("OUTER")),
    ]
    assert all(f["file"] == str(prog.path) and f["address"] == 0
               for f in python)
    assert r["live"] == r["count"]
    assert r["health"]["total_native_stacks"] > 0
    assert r["confidence"] in ("high", "medium", "low")


def test_top_allocators(runner):
    prog = runner.program(SNAPSHOT, """
        top = snapshot.top_allocators(3)
        report(top=[{k: (str(v) if k == "stack" else v)
                     for k, v in site.items()} for site in top],
               total=snapshot.estimated_heap_bytes)
    """)
    r = runner.run(prog).data
    first = r["top"][0]
    assert set(first) == {"function", "file", "line", "is_python",
                          "estimated_bytes", "estimated_count", "samples",
                          "ci95_bytes", "stack"}
    assert (first["function"], first["line"]) == (comprehension_site("inner"),
                                                  prog.line("INNER"))
    assert 7e6 < first["estimated_bytes"] < 13e6
    # 100 buffers, 100 bytearray objects and the list: the small blocks'
    # count is a rough estimate (one sample stands for ~1000 of them).
    assert first["estimated_count"] >= 70
    assert first["ci95_bytes"] > 0
    assert "outer" in first["stack"]
    assert [s["estimated_bytes"] for s in r["top"]] == sorted(
        (s["estimated_bytes"] for s in r["top"]), reverse=True)
    assert r["total"] >= first["estimated_bytes"]


def test_save_speedscope(runner):
    prog = runner.program(SNAPSHOT, """
        snapshot.save("heap.json")
        report(total=snapshot.estimated_heap_bytes)
    """)
    total = runner.run(prog).data["total"]
    doc = json.loads((runner.directory / "heap.json").read_text())
    assert doc["$schema"] == \
        "https://www.speedscope.app/file-format-schema.json"
    profile, = doc["profiles"]
    assert profile["type"] == "sampled" and profile["unit"] == "bytes"
    assert len(profile["samples"]) == len(profile["weights"])
    # each merged stack's weight is rounded on its own
    assert abs(sum(profile["weights"]) - total) <= len(profile["weights"])
    assert profile["endValue"] == sum(profile["weights"])
    frames = doc["shared"]["frames"]
    heaviest = profile["samples"][profile["weights"].index(
        max(profile["weights"]))]
    named = [frames[i] for i in heaviest]
    # root first: the module, then outer, inner, the comprehension
    python = [f for f in named if f.get("file") == str(prog.path)]
    assert [f["name"] for f in python] == [
        "<module>", "outer", *reversed(comprehension_frames("inner"))]
    assert python[-1]["line"] == prog.line("INNER")


def test_save_collapsed(runner):
    prog = runner.program(SNAPSHOT, """
        snapshot.save("heap.folded", format="collapsed")
        report(total=snapshot.estimated_heap_bytes)
    """)
    total = runner.run(prog).data["total"]
    lines = (runner.directory / "heap.folded").read_text().splitlines()
    weights = []
    for line in lines:
        stack, weight = line.rsplit(" ", 1)
        weights.append(int(weight))
    assert abs(sum(weights) - total) <= len(weights)
    heaviest = lines[0].rsplit(" ", 1)[0].split(";")
    where = f"({prog.path}:{prog.line('INNER')})"
    assert heaviest[-1] == f"{comprehension_site('inner')} {where}"
    assert heaviest.index(f"outer ({prog.path}:{prog.line('INNER') - 2})") \
        < heaviest.index(f"inner {where}")


def test_save_rejects_unknown_format(runner):
    prog = runner.program(SNAPSHOT, """
        try:
            snapshot.save("heap.x", format="pprof")
            report(error=None)
        except ValueError as e:
            report(error=str(e))
    """)
    assert "unknown format 'pprof'" in runner.run(prog).data["error"]


def test_complete_short_python_stacks_give_high_confidence(runner):
    # Allocated at the top of the script: one Python frame, and under
    # frame-pointer walks few native ones, yet the stack is complete.
    prog = runner.program("""
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=64)
        kept = [bytearray(100_000) for _ in range(100)]
        health = memprof.get_snapshot().frame_pointer_health
        report(rate=health.truncation_rate, confidence=health.confidence,
               broken=health.broken_modules)
    """)
    r = runner.run(prog, extra={"SPPROF_UNWIND": "fp"}).data
    assert r == {"rate": 0.0, "confidence": "high", "broken": []}
