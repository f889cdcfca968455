"""Process trees: every Python process of a tree started under the runtime
records its own profile, with its own Python frames."""

import os
import subprocess
import sys

import pytest

from conftest import WRAP, environment


def python_lines(profile):
    """The lines of the innermost Python frames of every allocation."""
    return {f[2] for _, _, stack in profile.allocs
            for f in profile.python_frames(stack)[:1]}


def test_subprocess_tree(runner):
    child = runner.program("""
        kept = bytearray(8 << 20)  # CHILD
    """, name="child.py", prelude=False)
    parent = runner.program(f"""
        import subprocess, sys
        kept = bytearray(8 << 20)  # PARENT
        subprocess.run([sys.executable, {str(child.path)!r}], check=True)
    """, name="parent.py", prelude=False)
    assert runner.run(parent, record=True, check=False).returncode == 0
    profiles = runner.profiles()
    assert len(profiles) == 2
    by_pid = {p.metadata["pid"]: p for p in profiles}
    root = next(p for p in profiles if p.metadata["ppid"] not in by_pid)
    leaf = next(p for p in profiles if p is not root)
    assert leaf.metadata["ppid"] == root.metadata["pid"]
    assert scripts(root) == {str(parent.path)}
    assert scripts(leaf) == {str(child.path)}
    assert parent.line("PARENT") in python_lines(root)
    assert child.line("CHILD") in python_lines(leaf)
    assert all(p.metadata.get("complete") for p in profiles)


def scripts(profile):
    """The programs' files among the outermost Python frames."""
    return {frames[-1][0] for frames in
            (profile.python_frames(stack) for _, _, stack in profile.allocs)
            if frames and frames[-1][0].endswith(".py")}


def test_multiprocessing_fork_children(runner):
    # Forked children inherit the runtime and the walker.  The pool ends
    # them with a signal, so their profiles may stay streamed (.part): they
    # hold every event recorded before the end, with no pause needed.
    prog = runner.program("""
        import multiprocessing as mp
        def work(n):
            kept = bytearray(6 << 20)  # WORKER
            return len(kept) * n
        if __name__ == "__main__":
            ctx = mp.get_context("fork")
            with ctx.Pool(2) as pool:
                print(sum(pool.map(work, range(2), chunksize=1)))
    """, prelude=False)
    assert runner.run(prog, record=True, check=False).returncode == 0
    profiles = runner.profiles()
    assert len(profiles) >= 2
    workers = [p for p in profiles if prog.line("WORKER") in
               {f[2] for _, _, s in p.allocs for f in p.python_frames(s)}]
    assert workers, "no child recorded the worker's line"


def wrap(runner, program, *options):
    """Run program under memprof-wrap; its profile."""
    if not os.access(WRAP, os.X_OK):
        pytest.skip("memprof-wrap is not built")
    output = runner.directory / "profile.%p.mlyze"
    proc = subprocess.run([WRAP, "-q", "-r", "64K", "-o", str(output),
                           *options,
                           sys.executable, str(program.path)],
                          env=environment(runner.directory, preload=False),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "frame walker" not in proc.stderr, proc.stderr
    profile, = runner.profiles()
    for path in runner.directory.glob("profile.*.mlyze*"):
        path.unlink()
    return profile


SMALL = """
    kept = [bytes(4096) for _ in range(5000)]  # LARGE
    small = [None] * 300_000
    for i in range(300_000):
        small[i] = (i, str(i))  # SMALL
"""


def test_memprof_wrap_attaches_the_walker(runner):
    # By default Python keeps pymalloc: the ~40 MB of small objects
    # allocated at SMALL are not seen; the 20 MB at LARGE are.
    prog = runner.program(SMALL, prelude=False)
    by_line = wrap(runner, prog).allocated_by_line()
    assert 15e6 < by_line[prog.line("LARGE")] < 30e6
    assert by_line.get(prog.line("SMALL"), 0) < 3e6


def test_memprof_wrap_python_allocators(runner):
    prog = runner.program(SMALL, prelude=False)
    profile = wrap(runner, prog, "--python-allocators=malloc")
    assert profile.allocated_by_line()[prog.line("SMALL")] > 20e6
