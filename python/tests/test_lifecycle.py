"""Lifecycle rules of spec section 9: what is allowed in which state, and
how the module behaves when memprof-wrap already runs the profiler."""

MISUSE = """
    import spprof.memprof as memprof
    def outcome(call, *args):
        try:
            call(*args)
            return "ok"
        except RuntimeError as e:
            return "RuntimeError: " + str(e)
        except ValueError as e:
            return "ValueError: " + str(e)
"""


def test_misuse_raises(runner):
    prog = runner.program(MISUSE, """
        steps = [
            outcome(memprof.stop),               # never started
            outcome(memprof.get_snapshot),       # never started
            outcome(memprof.start, 0),           # bad rate
            outcome(memprof.start),
            outcome(memprof.start),              # already running
            outcome(memprof.stop),
            outcome(memprof.stop),               # not running
            outcome(memprof.start),              # restart is allowed
            outcome(memprof.shutdown),
            outcome(memprof.shutdown),           # idempotent
            outcome(memprof.start),              # one way
            outcome(memprof.stop),
            outcome(memprof.get_snapshot),
            outcome(memprof.get_stats),
            outcome(memprof.marker, "late"),
        ]
        report(steps=steps)
    """)
    steps = runner.run(prog).data["steps"]
    kinds = [s.split(":")[0] for s in steps]
    assert kinds == ["RuntimeError", "RuntimeError", "ValueError", "ok",
                     "RuntimeError", "ok", "RuntimeError", "ok", "ok", "ok",
                     "RuntimeError", "RuntimeError", "RuntimeError",
                     "RuntimeError", "RuntimeError"]
    assert "already running" in steps[4]
    assert "not running" in steps[6]
    assert all("shut down" in s for s in steps[10:])


def test_stop_keeps_following_frees_and_data_accumulates(runner):
    prog = runner.program("""
        import spprof.memprof as memprof
        memprof.start(sampling_rate_kb=64)
        first = [bytearray(100_000) for _ in range(50)]  # FIRST
        doomed = [bytearray(100_000) for _ in range(50)]  # DOOMED
        memprof.stop()
        del doomed                        # freed while stopped
        unseen = [bytearray(100_000) for _ in range(50)]  # UNSEEN
        memprof.start()
        second = [bytearray(100_000) for _ in range(50)]  # SECOND
        lines = sorted({s[2] for s in sites(memprof.get_snapshot(), 10)})
        memprof.stop()
        report(lines=lines)
    """)
    lines = runner.run(prog).data["lines"]
    assert prog.line("FIRST") in lines and prog.line("SECOND") in lines
    assert prog.line("DOOMED") not in lines
    assert prog.line("UNSEEN") not in lines


def test_context_manager(runner):
    prog = runner.program("""
        import spprof.memprof as memprof
        with memprof.MemoryProfiler(sampling_rate_kb=64) as mp:
            kept = bytearray(8 << 20)  # KEPT
        still_stopped = True
        try:
            memprof.stop()
            still_stopped = False
        except RuntimeError:
            pass
        report(sites=sites(mp.snapshot, 1), stopped=still_stopped)
    """)
    r = runner.run(prog).data
    assert r["stopped"]
    assert r["sites"][0][2] == prog.line("KEPT")


def test_start_joins_the_profiler_memprof_wrap_started(runner):
    # SPPROF_OUTPUT: the runtime samples from the start and records the
    # whole run.  Snapshots need no start(); start() joins; stop() ends
    # only the session, the recording goes on.
    prog = runner.program(MISUSE, """
        early = bytearray(6 << 20)  # EARLY
        before = sites(memprof.get_snapshot(), 3)
        steps = [outcome(memprof.start), outcome(memprof.start),
                 outcome(memprof.stop)]
        samples_at_stop = memprof.get_stats().total_samples
        late = [bytearray(100_000) for _ in range(200)]  # LATE
        report(before=before, steps=steps,
               after_stop=memprof.get_stats().total_samples - samples_at_stop)
    """)
    r = runner.run(prog, record=True).data
    assert prog.line("EARLY") in [s[2] for s in r["before"]]
    assert [s.split(":")[0] for s in r["steps"]] == ["ok", "RuntimeError",
                                                      "ok"]
    assert r["after_stop"] > 0
    profile, = runner.profiles()
    assert profile.metadata.get("complete") is True
    lines = {f[2] for _, _, stack in profile.allocs
             for f in profile.python_frames(stack)}
    assert {prog.line("EARLY"), prog.line("LATE")} <= lines


def test_rate_is_kept_unless_given(runner):
    prog = runner.program("""
        import spprof.memprof as memprof
        memprof.start()
        kept = memprof.get_stats().sampling_rate_bytes
        memprof.stop()
        memprof.start(sampling_rate_kb=100)
        report(kept=kept, changed=memprof.get_stats().sampling_rate_bytes)
    """)
    r = runner.run(prog, record=True,
                   extra={"SPPROF_SAMPLING_RATE": "200000"}).data
    assert r == {"kept": 200000, "changed": 100 * 1024}
