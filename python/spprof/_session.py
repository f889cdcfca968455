"""A Python process that measures stretches of its own run: the pytest
plugin and the notebook kernel.

Contract: run_again_under_runtime() replaces the process by the same
command (sys.orig_argv) under the runtime this package is linked with:
LD_PRELOAD, small objects served by malloc (PYTHONMALLOC=malloc, so that
the profile sees them), and a recording streamed into a directory of its
own (kept when one is given, else a new private one), sampling almost
never (IDLE_RATE, unless idle_rate says otherwise) until a measurement
asks for more.  The processes it
starts inherit the session.  In the new process, session_directory() names
that directory; finish() finalises the process's profile and, unless the
directory is kept, removes it - the directory itself only in the first
process, after the others have finished.
"""

import os
import shutil
import sys
import tempfile
from typing import NoReturn, Optional

_DIRECTORY_VARIABLE = "SPPROF_SESSION_DIR"
_ROOT_VARIABLE = "SPPROF_SESSION_ROOT"
_KEEP_VARIABLE = "SPPROF_SESSION_KEEP"

#: Sampling between measurements: rare enough to cost nothing.
IDLE_RATE = 1 << 30


def runtime_library() -> str:
    """The libspprof-alloc that the bindings' extension is linked with."""
    from . import _memprof
    del _memprof  # imported for the library it loads
    with open("/proc/self/maps", encoding="utf-8",
              errors="surrogateescape") as maps:
        for line in maps:
            path = line.rstrip("\n").split(None, 5)[-1]
            if os.path.basename(path).startswith("libspprof-alloc.so"):
                return path
    raise RuntimeError("spprof: libspprof-alloc is not loaded with "
                       "spprof._memprof")


def session_directory() -> Optional[str]:
    return os.environ.get(_DIRECTORY_VARIABLE)


def run_again_under_runtime(name: str, keep: Optional[str] = None,
                            idle_rate: int = IDLE_RATE) -> NoReturn:
    """Replaces this process; its profiles are named NAME.<pid>.mlyze."""
    from . import _memprof
    if keep:
        os.makedirs(keep, exist_ok=True)
    directory = os.path.abspath(keep or tempfile.mkdtemp(
        prefix=f"spprof-{name}-"))
    env = {k: v for k, v in os.environ.items()
           if k not in ("SPPROF_MANIFEST", "SPPROF_ROOT_PID")}
    preload = env.get("LD_PRELOAD")
    env.update({
        "LD_PRELOAD": runtime_library() + (":" + preload if preload else ""),
        "SPPROF_OUTPUT": os.path.join(directory, name + ".%p.mlyze"),
        "SPPROF_SAMPLING_RATE": str(idle_rate),
        "SPPROF_PYTHON_WALKER": os.path.realpath(_memprof.__file__),
        "PYTHONMALLOC": "malloc",
        _DIRECTORY_VARIABLE: directory,
        _ROOT_VARIABLE: str(os.getpid()),
        _KEEP_VARIABLE: "1" if keep else "",
    })
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, list(sys.orig_argv), env)


def finish(own_profile: Optional[str]) -> None:
    """Finalises this process's profile (whose streamed file is
    `own_profile`, None when it recorded nothing) and cleans up."""
    from . import _control
    _control.shutdown()
    directory = session_directory()
    if not directory or os.environ.get(_KEEP_VARIABLE):
        return
    if own_profile is not None:
        for path in (own_profile, own_profile[:-len(".part")]):
            if os.path.exists(path):
                os.unlink(path)
    if os.environ.get(_ROOT_VARIABLE) == str(os.getpid()):
        shutil.rmtree(directory, ignore_errors=True)
