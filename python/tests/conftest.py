"""Test helpers: run Python programs the way memprof-wrap runs them.

The profiler is one per process and shutdown() is one-way, so every test
runs its program in a fresh interpreter: under LD_PRELOAD of the build
tree's runtime, with Python's own small-object allocator (memprof-wrap's
default) unless small objects are asked for (PYTHONMALLOC=malloc), and,
when it records a profile, with SPPROF_OUTPUT and SPPROF_PYTHON_WALKER set
as memprof-wrap sets them.  A program reports
its findings by printing one JSON object as its last line of output.
"""

import json
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Dict, List, Optional

import pytest

import mlyze

RUNTIME = os.environ.get("SPPROF_TEST_RUNTIME", "")
WALKER = os.environ.get("SPPROF_TEST_WALKER", "")
WRAP = os.environ.get("SPPROF_TEST_WRAP", "")

# Shared by the programs: report(...) prints the JSON result line; sites()
# summarises top_allocators() as [file name, function, line, bytes].
PRELUDE = '''\
import json
def report(**values):
    print(json.dumps(values), flush=True)
def sites(snapshot, n=5, **options):
    return [[s["file"].rsplit("/", 1)[-1], s["function"], s["line"],
             s["estimated_bytes"]] for s in snapshot.top_allocators(n, **options)]
'''


def pytest_sessionstart(session):
    if not os.path.exists(RUNTIME) or not os.path.exists(WALKER):
        raise pytest.UsageError(
            "run through make check (python/tests/pytest-suite), which "
            "points SPPROF_TEST_RUNTIME and SPPROF_TEST_WALKER at the build")


def walker_refusal() -> Optional[str]:
    """Why the build's frame walker cannot read this interpreter's frames
    (a CPython it does not know), or None; asked of a process of its own,
    as the tests load the bindings only in the programs they start."""
    probe = subprocess.run(
        [sys.executable, "-c", "from spprof import _memprof; "
         "print(_memprof.walker_refusal() or '')"],
        env=environment(Path.cwd(), preload=False), capture_output=True,
        text=True, timeout=300)
    if probe.returncode != 0:
        raise pytest.UsageError(f"the bindings do not load:\n{probe.stderr}")
    return probe.stdout.strip() or None


# The tests that need no Python frames: they run on every interpreter.
ANY_INTERPRETER = "any_interpreter"


def pytest_configure(config):
    config.addinivalue_line(
        "markers", f"{ANY_INTERPRETER}: needs no Python frames")


def pytest_collection_modifyitems(config, items):
    refusal = walker_refusal()
    if refusal is None:
        return
    skip = pytest.mark.skip(reason=f"no Python frames here: {refusal}")
    for item in items:
        if ANY_INTERPRETER not in item.keywords:
            item.add_marker(skip)


class Program:
    """A Python program written to a file, with its marked lines."""

    def __init__(self, directory: Path, parts, name: str = "prog.py",
                 prelude: bool = True) -> None:
        # Each part of the source is dedented on its own.
        self.source = (PRELUDE if prelude else "") + "".join(
            textwrap.dedent(part) for part in parts)
        self.path = directory / name
        self.path.write_text(self.source, encoding="utf-8")

    def line(self, marker: str) -> int:
        """The line number of the line ending in "# <marker>"."""
        for number, text in enumerate(self.source.splitlines(), 1):
            if text.rstrip().endswith("# " + marker):
                return number
        raise KeyError(marker)


class Result:
    def __init__(self, proc: subprocess.CompletedProcess) -> None:
        self.proc = proc
        self.returncode = proc.returncode
        self.stdout, self.stderr = proc.stdout, proc.stderr
        lines = proc.stdout.strip().splitlines()
        self.data = json.loads(lines[-1]) if lines and \
            lines[-1].startswith("{") else None


def environment(directory: Path, preload: bool = True, record: bool = False,
                small_objects: bool = False,
                extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SPPROF_") and k not in
           ("LD_PRELOAD", "PYTHONMALLOC")}
    if preload:
        env["LD_PRELOAD"] = RUNTIME
    if record:
        env["SPPROF_OUTPUT"] = str(directory / "profile.%p.mlyze")
        env["SPPROF_PYTHON_WALKER"] = WALKER
    if small_objects:
        env["PYTHONMALLOC"] = "malloc"
    env.update(extra or {})
    return env


# Until Python 3.11 a list, dict or set comprehension runs in a function
# of its own, a frame named "f.<locals>.<listcomp>" above its function f;
# since 3.12 (PEP 709) it is inlined into f, and its allocations are f's
# own.  The tests expect what this interpreter does, seen from whether it
# compiles a comprehension into a code object of its own.
COMPREHENSIONS_HAVE_FRAMES = any(
    isinstance(constant, types.CodeType)
    for constant in compile("[x for x in ()]", "<probe>", "eval").co_consts)


def comprehension_frames(function: str, kind: str = "listcomp") -> List[str]:
    """The Python frames of a comprehension of this kind ("listcomp",
    "dictcomp") written in function, innermost first."""
    if COMPREHENSIONS_HAVE_FRAMES:
        return [f"{function}.<locals>.<{kind}>", function]
    return [function]


def comprehension_site(function: str, kind: str = "listcomp") -> str:
    """The innermost frame of what that comprehension allocates."""
    return comprehension_frames(function, kind)[0]


class Runner:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def program(self, *parts: str, **options) -> Program:
        return Program(self.directory, parts, **options)

    def run(self, program: Program, check: bool = True, args=(),
            **env_options) -> Result:
        result = Result(subprocess.run(
            [sys.executable, str(program.path), *args],
            env=environment(self.directory, **env_options),
            cwd=self.directory, capture_output=True, text=True, timeout=300))
        if check and (result.returncode != 0 or result.data is None):
            pytest.fail(f"{program.path.name} exited {result.returncode}:\n"
                        f"--- stdout\n{result.stdout}\n"
                        f"--- stderr\n{result.stderr}")
        return result

    def profiles(self) -> List[mlyze.Profile]:
        """Every profile the programs left, finalised or streamed."""
        paths = sorted(self.directory.glob("profile.*.mlyze*"))
        return [mlyze.read(p) for p in paths]


@pytest.fixture
def runner(tmp_path: Path) -> Runner:
    return Runner(tmp_path)
