"""Interpreters whose frames the walker cannot read (another CPython
version, a free-threaded build, a version it does not know): the program
runs, its profile has native stacks, and memprof-wrap says why once, at
start."""

import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

import mlyze
from conftest import WRAP, environment, walker_refusal

pytestmark = pytest.mark.any_interpreter

# The interpreters looked for on PATH; SPPROF_TEST_PYTHONS may name more,
# separated by spaces (a pyenv build, say).
CANDIDATES = [f"python3.{minor}{flavour}" for minor in range(11, 16)
              for flavour in ("", "t")]

PROBE = ("import sys, sysconfig; print(sys.version_info[0], "
         "sys.version_info[1], int(bool(sysconfig.get_config_var("
         "'Py_GIL_DISABLED'))))")


def describe(major, minor, free_threaded):
    """An interpreter as the walker names it."""
    if free_threaded:
        return f"free-threaded CPython {major}.{minor}t"
    return f"CPython {major}.{minor}"


def this_interpreter():
    return (*sys.version_info[:2],
            int(bool(sysconfig.get_config_var("Py_GIL_DISABLED"))))


def other_interpreters():
    """{path: (major, minor, free_threaded)} of the interpreters that run
    here and are not of this one's version and build."""
    paths = {shutil.which(name) for name in CANDIDATES}
    paths.update(os.environ.get("SPPROF_TEST_PYTHONS", "").split())
    found = {}
    for path in sorted(p for p in paths if p):
        try:
            probe = subprocess.run([path, "-c", PROBE], capture_output=True,
                                   text=True, timeout=60)
        except OSError:
            continue
        if probe.returncode != 0:
            continue  # a pyenv shim of a version not selected, say
        kind = tuple(int(word) for word in probe.stdout.split())
        if kind != this_interpreter():
            found[path] = kind
    return found


def profile_without_python_frames(output):
    profile = mlyze.read(output)
    assert profile.allocs, output
    assert not any(profile.python_frames(stack)
                   for _, _, stack in profile.allocs), output


def refusal_messages(stderr):
    return [line for line in stderr.splitlines()
            if "Python frames" in line or "walker" in line]


def test_an_interpreter_the_build_does_not_know_is_told_so(tmp_path):
    """A build for a CPython whose frames the walker does not know (3.15,
    a free-threaded one): memprof-wrap and memprof.start() say so."""
    refusal = walker_refusal()
    if refusal is None:
        pytest.skip(f"the walker reads the frames of {sys.executable}")
    if not os.access(WRAP, os.X_OK):
        pytest.skip("memprof-wrap is not built")
    program = tmp_path / "prog.py"
    program.write_text(
        "import warnings\n"
        "import spprof.memprof as memprof\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    memprof.start()\n"
        "print('\\n'.join(str(w.message) for w in caught))\n"
        "kept = [bytearray(1 << 20) for _ in range(8)]\n")
    output = tmp_path / "prog.mlyze"
    proc = subprocess.run(
        [WRAP, "-r", "64K", "-o", str(output), sys.executable, str(program)],
        env=environment(tmp_path, preload=False), cwd=tmp_path,
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    message = f"no Python frames: {refusal}; stacks keep native frames only"
    assert refusal_messages(proc.stderr) == [
        f"libspprof-alloc: {message}"], proc.stderr
    assert proc.stdout.strip() == message, proc.stdout
    profile_without_python_frames(output)


def test_another_interpreter_gets_native_frames_and_one_message(tmp_path):
    if not os.access(WRAP, os.X_OK):
        pytest.skip("memprof-wrap is not built")
    others = other_interpreters()
    if not others:
        pytest.skip("no other CPython here (looked for "
                    f"{CANDIDATES[0]} to {CANDIDATES[-1]} on PATH and in "
                    "SPPROF_TEST_PYTHONS)")
    program = tmp_path / "prog.py"
    program.write_text("def load():\n"
                       "    return [bytearray(1 << 20) for _ in range(8)]\n"
                       "kept = load()\n")
    built = describe(*this_interpreter())
    for path, kind in others.items():
        output = tmp_path / f"{os.path.basename(path)}.mlyze"
        proc = subprocess.run(
            [WRAP, "-r", "64K", "-o", str(output), path, str(program)],
            env=environment(tmp_path, preload=False), cwd=tmp_path,
            capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, (path, proc.stderr)
        expected = ("libspprof-alloc: no Python frames: the frame walker "
                    f"was built for {built} and cannot read the frames of "
                    f"{describe(*kind)}; stacks keep native frames only")
        assert refusal_messages(proc.stderr) == [expected], \
            (path, proc.stderr)
        profile_without_python_frames(output)
