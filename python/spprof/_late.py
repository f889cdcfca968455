"""Recording in a Python process started without the runtime (a plain
Jupyter kernel): memprof-ctl attach on the process itself.

Contract: attach_here(name) has memprof-ctl attach start a recording
window of this process into a private directory (NAME.<pid>.mlyze there),
with Python frames, sampling almost never (_session.IDLE_RATE) until a
measurement asks for more, and returns the directory; at exit the profile
is finished and the directory removed.  It raises AttachError saying what
stands in the way (memprof-ctl's own message: gdb missing, ptrace refused).

Importing spprof._memprof has loaded the runtime already (the extension is
linked with it), and the runtime, finding itself loaded after the C
library, has pointed every loaded object's malloc calls at its own
functions, as it does when memprof-ctl attach loads it: memprof-ctl finds
the process in its registry and only starts a window, without gdb.
Should it turn to gdb all the same, Yama's ptrace_scope 1 lets no process
trace its parent: so this process names memprof-ctl as its tracer first
(prctl PR_SET_PTRACER) and revokes that afterwards, and memprof-ctl's
message (gdb missing: the package to install) is passed on.

The runtime answers memprof-ctl on its next sampled allocation; this
thread allocates while it waits, since the kernel's others may not.

What changes from a kernel started under the runtime: Python keeps its
own small-object allocator (pymalloc), which takes its arenas from the
system with mmap, not malloc, so objects of 512 bytes or less would go
unseen; a measurement routes them through malloc while it runs
(_memprof.route_small_objects), which pymalloc allows, except under its
debug hooks (python3 -X dev, PYTHONMALLOC=debug), where they stay unseen.
C extensions imported later are seen: as after any memprof-ctl attach,
the runtime binds the objects the program loads to itself.
"""

import atexit
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time

from . import _memprof, _session
from ._cli import tool_path
from ._control import _attach_walker, shutdown

PR_SET_PTRACER = 0x59616d61
#: How long memprof-ctl may take (gdb stops the process for a few seconds).
ATTACH_TIMEOUT = 120
#: What this thread allocates while it waits: a sample in a few rounds at
#: the runtime's default rate.
_PROMPT_BYTES = 256 * 1024


def small_objects_routable() -> bool:
    """Whether Python's own small-object allocator serves this process
    without debug hooks, which _memprof.route_small_objects() needs."""
    return (os.environ.get("PYTHONMALLOC", "pymalloc") == "pymalloc"
            and not sys.flags.dev_mode
            and not hasattr(sys, "gettotalrefcount"))


def unseen(short: bool = False) -> str:
    """What a process that loaded the runtime late does not see, or ""."""
    if small_objects_routable():
        return ""
    if short:
        return "objects of 512 bytes or less are not counted in this kernel"
    return ("Python objects of 512 bytes or less (pymalloc's, under its "
            "debug hooks) are not counted; the kernel \"Python 3 "
            "(spprof-mem)\" counts them")


class AttachError(Exception):
    pass


def _allow_tracer(pid: int) -> None:
    """PR_SET_PTRACER: without Yama the call fails, and nothing needs it."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PTRACER, ctypes.c_ulong(pid), 0, 0, 0)


def _run_attach(ctl: str, pattern: str) -> subprocess.CompletedProcess:
    # The child waits for a line, so that it is named the tracer before
    # it runs memprof-ctl (and gdb, its child, with it).
    wait, go = os.pipe()
    child = subprocess.Popen(
        ["/bin/sh", "-c", 'read go && exec "$0" "$@"', ctl, "attach",
         str(os.getpid()), "-o", pattern],
        stdin=wait, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    os.close(wait)
    _allow_tracer(child.pid)
    try:
        os.write(go, b"go\n")
        os.close(go)
        deadline = time.monotonic() + ATTACH_TIMEOUT
        while child.poll() is None and time.monotonic() < deadline:
            bytearray(_PROMPT_BYTES)
            time.sleep(0.01)
        if child.poll() is None:
            child.kill()
        out, err = child.communicate()
    finally:
        _allow_tracer(0)
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


def attach_here(name: str) -> str:
    ctl = tool_path("memprof-ctl")
    if ctl is None:
        raise AttachError("memprof-ctl not found on PATH: install "
                          "spprof-mem (Debian: apt install spprof-mem)")
    _attach_walker()
    directory = tempfile.mkdtemp(prefix=f"spprof-{name}-")
    try:
        done = _run_attach(ctl, os.path.join(directory, name + ".%p.mlyze"))
    except OSError as e:
        shutil.rmtree(directory, ignore_errors=True)
        raise AttachError(f"memprof-ctl: {e.strerror}") from None
    if done.returncode != 0:
        shutil.rmtree(directory, ignore_errors=True)
        raise AttachError((done.stderr or done.stdout).strip() or
                          f"memprof-ctl attach failed ({done.returncode})")
    _memprof.set_sampling_rate(_session.IDLE_RATE)
    atexit.register(_finish, directory)
    return directory


def _finish(directory: str) -> None:
    shutdown()
    shutil.rmtree(directory, ignore_errors=True)
