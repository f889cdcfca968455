"""Sampling heap profiler for Python programs (spprof-mem).

spprof.memprof tells which code holds heap memory.  It samples the
allocations made through malloc as a Poisson process over bytes (one
sample per ``sampling_rate_kb`` KiB allocated, on average) and keeps the
sampled blocks that are still live, each with its call stack: Python
frames (file, function, line) merged with the native frames of C
extensions.  Estimates are unbiased: a sampled block of s bytes stands for
s / p bytes, p = 1 - exp(-s / rate) being its chance of being sampled, and
every estimate comes with its sample count and a 95 % error bar.

The sampling is done by the runtime library, libspprof-alloc, which must
serve the process's malloc.  Start the program under it:

    memprof-wrap python3 app.py        # also records a .mlyze profile
    LD_PRELOAD=libspprof-alloc.so.0 python3 app.py

and use this module in the program:

    import spprof.memprof as memprof

    memprof.start()
    ...                                 # the code to look at
    snapshot = memprof.get_snapshot()
    for site in snapshot.top_allocators(10):
        print(site["file"], site["line"], site["function"],
              site["estimated_bytes"], "+/-", site["ci95_bytes"])
    snapshot.save("heap.speedscope.json")       # or format="collapsed"
    memprof.stop()

or ``with memprof.MemoryProfiler() as mp: ...`` and ``mp.snapshot``.

Lifecycle (one profiler per process):

    start() -> ACTIVE --stop()--> STOPPED --start()--> ACTIVE ...
    shutdown(), from any state -> TERMINATED, for good

start() while ACTIVE, stop() while not ACTIVE, and any call but
shutdown() after shutdown() raise RuntimeError.  stop() ends the sampling
of new allocations but keeps following the frees of blocks already
sampled, so the live heap stays true; samples accumulate across
start()/stop() cycles.  shutdown() runs at exit when start() brought the
runtime up.

Under memprof-wrap the runtime samples from the first instruction and
records the whole run.  start() then joins that running profiler (it
changes the sampling rate only when given one) and stop() ends only this
module's session: the recording memprof-wrap was asked for goes on until
the process exits.  get_snapshot() and get_stats() need no start() there.
shutdown() ends the recording early (and finalises its profile).

Small objects: CPython serves objects of 512 bytes or less (most of
them) from its own arenas, pymalloc, out of malloc's sight: by default
only larger blocks are sampled (list and dict tables, strings and buffers
over 512 bytes, numpy data, C extensions' memory).  To see every object,
run Python with PYTHONMALLOC=malloc - ``memprof-wrap
--python-allocators=malloc python3 app.py`` - at a price: the C library's
malloc is slower than pymalloc for small objects, which costs programs
that allocate much some 20 to 30 %.

Python frames are reported for the allocations a thread makes while it
holds the GIL (nearly all allocations of Python code), and for all those
of the main thread (numpy, for one, releases the GIL to allocate large
zeroed arrays).  Allocations of other threads while they do not hold the
GIL, such as those of threads started from C, keep native frames only.
"""

from __future__ import annotations

from typing import Any

from ._model import (AllocationSample, FramePointerHealth, HeapSnapshot,
                     MemProfStats, StackFrame)
from ._control import (DEFAULT_SAMPLING_RATE_KB, MemoryProfiler, get_snapshot,
                       get_stats, marker, report_alloc, report_free,
                       shutdown, start, stop)

__all__ = [
    "DEFAULT_SAMPLING_RATE_KB",
    "AllocationSample",
    "FramePointerHealth",
    "HeapSnapshot",
    "MemProfStats",
    "MemoryProfiler",
    "StackFrame",
    "get_snapshot",
    "get_stats",
    "marker",
    "report_alloc",
    "report_free",
    "shutdown",
    "start",
    "stop",
]

# The types are defined apart (spprof._model) so that the package's other
# modules need not import this one; they are this module's to show.
for _public in (AllocationSample, FramePointerHealth, HeapSnapshot,
                MemProfStats, StackFrame, MemoryProfiler):
    _public.__module__ = __name__
del _public


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext spprof.memprof`` in IPython or Jupyter: the %%memprof
    cell magic and %memprof_report (see spprof._magic)."""
    from . import _magic
    _magic.register(ipython)


if __name__ == "__main__":
    # python3 -m spprof.memprof run|report ... (see spprof._cli)
    from spprof._cli import main
    raise SystemExit(main())
