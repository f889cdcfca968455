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

import atexit
import bisect
import errno
import gc
import functools
import os
import site
import sysconfig
import threading
import time
import warnings
from array import array
from collections import Counter
from dataclasses import dataclass, field
from os import PathLike
from typing import Any, Dict, List, Optional, Tuple, Union

from . import _export, _memprof

__all__ = [
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

#: Mean sampling interval of the runtime when nothing else is configured.
DEFAULT_SAMPLING_RATE_KB = _memprof.DEFAULT_SAMPLING_RATE // 1024

HOW_TO_RUN = ("start the program under the runtime: "
              "memprof-wrap python3 app.py "
              "(or LD_PRELOAD=libspprof-alloc.so.0 python3 app.py)")


# ---- what a snapshot holds ---------------------------------------------------


@dataclass(frozen=True)
class StackFrame:
    """One frame of an allocation's call stack.

    A Python frame has the source file, the function's qualified name and
    the line; its address is 0.  A native frame has its return address,
    the symbol dladdr() found ("" when none: memprof-report names such
    frames offline from the profile), the path of its module in ``file``,
    and line 0.
    """

    address: int
    function: str
    file: str
    line: int
    is_python: bool

    def __str__(self) -> str:
        if self.is_python:
            return f"{self.function} ({self.file}:{self.line})"
        name = self.function or f"0x{self.address:x}"
        return f"{name} ({self.file.rsplit('/', 1)[-1]})" if self.file else name


@dataclass
class AllocationSample:
    """A sampled block that was still live when the snapshot was taken.

    ``weight`` is the number of blocks the sample stands for (1 / p) and
    ``estimated_bytes`` the bytes (size / p = size * weight), p being the
    chance that a block of this size was sampled.  ``stack`` is leaf
    first.  ``gc_epoch`` counts the garbage collections completed before
    the block was allocated (0 unless GC tracking is on).  ``lifetime_ns``
    is always None: a snapshot holds live blocks only.
    """

    address: int
    size: int
    weight: float
    estimated_bytes: float
    timestamp_ns: int
    stack: List[StackFrame]
    sampling_rate: int
    thread_id: int
    gc_epoch: int = 0
    lifetime_ns: Optional[int] = None


# Where a complete native stack ends: the program's entry point, the C
# library's functions that call main (a walk by frame pointers stops in
# the one that calls main) and those that start a thread.
_ENTRY_FUNCTIONS = frozenset({
    "_start", "__libc_start_main", "__libc_start_call_main", "start_thread",
    "clone", "clone3", "__clone", "__clone3", "__clone_internal"})
# Stacks this deep were cut by the runtime on purpose, not broken.
_MAX_STACK_DEPTH = 64


@dataclass
class FramePointerHealth:
    """How complete the stacks of the sampled blocks are.

    A stack is complete when it reaches the program's or its thread's entry
    point (_start, __libc_start_main, start_thread, clone...), however
    short it is, or has Python frames (the interpreter gives its whole
    stack).  It is broken when it ends elsewhere in a named native
    function: the runtime found neither frame pointers nor unwind tables
    to step out of that code, and callers are missing.  A stack ending in
    code without a name cannot be judged and counts as neither.
    ``truncation_rate`` is the share of the samples whose stacks are
    broken; ``broken_modules`` names the modules they end in, the most
    frequent first.  The other fields are the runtime's counters: native
    stacks captured, their depths, and those of fewer than three frames.
    """

    shallow_stack_warnings: int
    total_native_stacks: int
    avg_native_depth: float
    min_native_depth: int
    truncation_rate: float
    broken_modules: List[str] = field(default_factory=list)

    @property
    def confidence(self) -> str:
        """'high' below 5 % broken stacks, 'medium' below 20 %, else 'low'."""
        if self.truncation_rate < 0.05:
            return "high"
        if self.truncation_rate < 0.20:
            return "medium"
        return "low"

    @property
    def recommendation(self) -> Optional[str]:
        """What to do about it, or None when confidence is high."""
        if self.confidence == "high":
            return None
        where = ", ".join(os.path.basename(m)
                          for m in self.broken_modules[:3])
        return (f"{self.truncation_rate:.1%} of sampled stacks stop short of "
                "the program's entry point"
                f"{'; they end in ' + where if where else ''}. "
                "Rebuild that code with frame pointers or unwind tables: "
                "CFLAGS='-fno-omit-frame-pointer' "
                "pip install --no-binary :all: <package>")


@dataclass
class MemProfStats:
    """Counters of the runtime (approximate while threads allocate)."""

    total_samples: int
    live_samples: int
    freed_samples: int
    unique_stacks: int
    estimated_heap_bytes: int
    heap_map_load_percent: float
    collisions: int
    sampling_rate_bytes: int
    heap_map_full_drops: int
    stack_table_drops: int
    events_written: int
    events_dropped: int


@functools.lru_cache(maxsize=None)
def _library_dirs() -> Tuple[str, ...]:
    """Where the standard library and installed packages live."""
    paths = sysconfig.get_paths()
    dirs = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    dirs.update(getattr(site, "getsitepackages", list)())
    dirs.add(site.getusersitepackages())
    dirs.update([os.path.realpath(d) for d in dirs])
    return tuple(os.path.join(d, "") for d in dirs)


def _in_library(file: str) -> bool:
    # "<frozen importlib._bootstrap>", "<string>": the interpreter's own
    return file.startswith("<") or file.startswith(_library_dirs())


def _site_frame(stack: List[StackFrame],
                libraries: bool) -> Optional[StackFrame]:
    """Where an allocation is attributed: its innermost Python frame that
    is not in a library (the program's line that called into numpy, json,
    or C code), unless `libraries`; else its innermost Python frame; else
    its leaf frame."""
    innermost = None
    for frame in stack:
        if frame.is_python:
            if libraries or not _in_library(frame.file):
                return frame
            innermost = innermost or frame
    return innermost or (stack[0] if stack else None)


def _site_key(frame: Optional[StackFrame]) -> tuple:
    if frame is None:
        return ("?",)
    if frame.is_python or frame.function:
        return (frame.file, frame.function, frame.line)
    return (frame.file, frame.address)


@dataclass
class HeapSnapshot:
    """The live sampled blocks at one moment, and what they stand for.

    ``total_samples`` counts every allocation sampled so far, freed or
    not; ``live_samples`` those still live (len(samples));
    ``estimated_heap_bytes`` is the unbiased estimate of the live heap
    allocated through malloc; ``timestamp_ns`` is CLOCK_MONOTONIC, like
    the samples' timestamps.
    """

    samples: List[AllocationSample]
    total_samples: int
    live_samples: int
    estimated_heap_bytes: int
    timestamp_ns: int
    frame_pointer_health: FramePointerHealth
    sampling_rate: int
    gc_epochs_during_profile: int = 0

    def top_allocators(self, n: int = 10,
                       libraries: bool = False) -> List[Dict[str, Any]]:
        """The n allocation sites holding the most live memory.

        A site is the innermost line of the program's own Python code in
        the stack, so that what numpy, json or a C extension allocated is
        charged to the line that called them; with libraries=True, the
        innermost Python line even inside the standard library or an
        installed package.  Stacks without such a line are charged to
        their innermost Python frame, or their leaf native frame.  Each
        site is a dict:
        function, file, line, is_python, estimated_bytes, estimated_count,
        samples (how many samples the estimate rests on), ci95_bytes (half
        width of its 95 % confidence interval) and stack (the frames of
        the site's heaviest stack, leaf first).
        """
        sites: Dict[tuple, Dict[str, Any]] = {}
        for sample in self.samples:
            frame = _site_frame(sample.stack, libraries)
            site = sites.setdefault(_site_key(frame), {
                "function": frame.function if frame else "",
                "file": frame.file if frame else "",
                "line": frame.line if frame else 0,
                "is_python": frame.is_python if frame else False,
                "estimated_bytes": 0.0,
                "estimated_count": 0.0,
                "samples": 0,
                "variance": 0.0,
                "stacks": {},
            })
            w = sample.estimated_bytes
            site["estimated_bytes"] += w
            site["estimated_count"] += sample.weight
            site["samples"] += 1
            site["variance"] += _memprof.estimate_variance(
                sample.size, sample.sampling_rate)
            stack = tuple(sample.stack)
            site["stacks"][stack] = site["stacks"].get(stack, 0.0) + w
        ranked = sorted(sites.values(), key=lambda s: -s["estimated_bytes"])
        for site in ranked[:n]:
            stacks = site.pop("stacks")
            site["stack"] = list(max(stacks, key=stacks.get))
            site["ci95_bytes"] = round(
                _memprof.estimate_interval95(site.pop("variance")))
            site["estimated_bytes"] = round(site["estimated_bytes"])
            site["estimated_count"] = round(site["estimated_count"])
        return ranked[:n]

    def allocations_surviving_gc(self, min_epochs: int = 1
                                 ) -> List[AllocationSample]:
        """The live samples allocated before at least min_epochs of the
        garbage collections seen while GC tracking was on."""
        return [s for s in self.samples
                if s.gc_epoch + min_epochs <= self.gc_epochs_during_profile]

    def save(self, path: Union[str, PathLike],
             format: str = "speedscope") -> None:
        """Write the live heap as stacks weighted by estimated bytes:
        format="speedscope" (JSON for https://www.speedscope.app) or
        "collapsed" (folded stacks for flamegraph.pl)."""
        stacks = ((s.stack, s.estimated_bytes) for s in self.samples)
        if format == "speedscope":
            with open(path, "w", encoding="utf-8") as out:
                _export.write_speedscope(stacks, out, "live heap")
        elif format == "collapsed":
            with open(path, "w", encoding="utf-8") as out:
                _export.write_collapsed(stacks, out)
        else:
            raise ValueError(f"unknown format {format!r}: "
                             "use 'speedscope' or 'collapsed'")


# ---- the session ---------------------------------------------------------------

_UNSTARTED, _ACTIVE, _STOPPED, _TERMINATED = range(4)


class _GcEpochs:
    """Completion times of garbage collections, from gc.callbacks (8 bytes
    per collection).  Each is also written to the profile being recorded,
    if any."""

    def __init__(self) -> None:
        self.ends = array("Q")

    def __call__(self, phase: str, info: Dict[str, int]) -> None:
        if phase == "stop":
            self.ends.append(time.monotonic_ns())
            _memprof.gc_event(info.get("collected", 0), 0)

    def epoch_at(self, timestamp_ns: int) -> int:
        return bisect.bisect_left(self.ends, timestamp_ns)

    def track(self, on: bool) -> None:
        if on and self not in gc.callbacks:
            gc.callbacks.append(self)
        elif not on and self in gc.callbacks:
            gc.callbacks.remove(self)


_lock = threading.RLock()
_state = _UNSTARTED
_owns_sampling = False  # whether our start() switched sampling on
_gc_epochs = _GcEpochs()


def _runtime_error(what: str, error: OSError) -> RuntimeError:
    reasons = {
        errno.ESHUTDOWN: "the profiler has been shut down",
        errno.EINVAL: "the profiler is not running; call start() "
                      "(the program must run under the runtime: "
                      + HOW_TO_RUN + ")",
        errno.ENOMEM: "no memory for the profiler's tables",
    }
    reason = reasons.get(error.errno, error.strerror or str(error))
    return RuntimeError(f"spprof.memprof: {what}: {reason}")


def _check_not_terminated(what: str) -> None:
    if _state == _TERMINATED:
        raise RuntimeError(f"spprof.memprof: {what}: the profiler has been "
                           "shut down and cannot be used again")


def start(sampling_rate_kb: Optional[int] = None,
          gc_tracking: bool = False) -> None:
    """Start sampling allocations.

    Args:
        sampling_rate_kb: mean KiB allocated between two samples.  Lower
            is more precise and costs more; the default of the runtime,
            512 KiB, costs well under 1 % in typical programs.  None keeps
            the rate the runtime already uses (512 KiB, or what
            memprof-wrap --rate / SPPROF_SAMPLING_RATE set).
        gc_tracking: count garbage collections (gc.callbacks), so that
            samples carry a gc_epoch and snapshots can tell which blocks
            survived collections; each is also recorded in the profile
            memprof-wrap writes.

    Raises:
        RuntimeError: already running; shut down; or the process is not
            running under the runtime (the message says how to run it).
        ValueError: sampling_rate_kb is not positive.
    """
    global _state, _owns_sampling
    if sampling_rate_kb is not None and sampling_rate_kb <= 0:
        raise ValueError(f"sampling_rate_kb must be positive, "
                         f"not {sampling_rate_kb}")
    with _lock:
        _check_not_terminated("start")
        if _state == _ACTIVE:
            raise RuntimeError("spprof.memprof: start: already running")
        if not _memprof.interposing():
            raise RuntimeError("spprof.memprof: start: the runtime "
                               "(libspprof-alloc) does not serve this "
                               "process's malloc, so nothing can be "
                               "sampled; " + HOW_TO_RUN)
        try:
            rate = (sampling_rate_kb or DEFAULT_SAMPLING_RATE_KB) * 1024
            if _memprof.init(rate):
                atexit.register(shutdown)
            elif sampling_rate_kb is not None:
                _memprof.set_sampling_rate(rate)
            _attach_walker()
            _owns_sampling = _memprof.start()
        except OSError as e:
            raise _runtime_error("start", e) from None
        _gc_epochs.track(gc_tracking)
        _state = _ACTIVE


def _attach_walker() -> None:
    # Already done by the runtime under memprof-wrap; doing it again is
    # harmless.  An interpreter whose frames the walker cannot read keeps
    # native stacks, and is told so.
    refusal = _memprof.walker_refusal()
    if refusal is None:
        _memprof.attach_walker()
    else:
        warnings.warn(f"no Python frames: {refusal}; stacks keep native "
                      "frames only", RuntimeWarning, stacklevel=3)


def stop() -> None:
    """Stop sampling new allocations.

    Frees of the blocks already sampled are still followed (so that a
    later snapshot does not show them as leaks) and the samples are kept:
    get_snapshot() still works, and start() resumes.  When start() joined
    a profiler that memprof-wrap had started, that recording goes on.

    Raises:
        RuntimeError: not running.
    """
    global _state
    with _lock:
        _check_not_terminated("stop")
        if _state != _ACTIVE:
            raise RuntimeError("spprof.memprof: stop: not running")
        if _owns_sampling:
            try:
                _memprof.stop()
            except OSError as e:
                raise _runtime_error("stop", e) from None
        _gc_epochs.track(False)
        _state = _STOPPED


def shutdown() -> None:
    """End profiling for good (one way; later calls of start() raise).

    No more sampling nor free tracking; the runtime's tables are not
    unmapped, since another thread may still be inside an allocation
    hook.  Under memprof-wrap this also finalises the profile being
    recorded.  Runs by itself at exit when start() brought the runtime
    up; calling it again does nothing.
    """
    global _state
    with _lock:
        if _state == _TERMINATED:
            return
        _gc_epochs.track(False)
        _state = _TERMINATED
        try:
            _memprof.shutdown()
        except OSError as e:
            if e.errno != errno.ESHUTDOWN:
                raise _runtime_error("shutdown", e) from None


def _stack_frames(stack_id: int) -> List[StackFrame]:
    try:
        frames = _memprof.stack(stack_id)
    except OSError:
        return []  # the stack table was full when this block was sampled
    return [StackFrame(address, function or "", file or "", line, is_python)
            for address, function, file, line, is_python in frames]


def _stack_end(stack: List[StackFrame]) -> Tuple[str, str]:
    """('complete', ''), ('broken', module it ends in) or ('unknown', '')."""
    if (len(stack) >= _MAX_STACK_DEPTH or any(f.is_python for f in stack)
            or any(f.function in _ENTRY_FUNCTIONS for f in stack[-2:])):
        return "complete", ""
    if not stack[-1].function:
        return "unknown", ""
    return "broken", stack[-1].file


def _frame_pointer_health(stats: Dict[str, Any],
                          samples: List[AllocationSample]) -> FramePointerHealth:
    stacks = stats["native_stacks"]
    ends = [_stack_end(s.stack) for s in samples if s.stack]
    judged = sum(1 for end, _ in ends if end != "unknown")
    broken = Counter(module for end, module in ends if end == "broken")
    return FramePointerHealth(
        shallow_stack_warnings=stats["shallow_stacks"],
        total_native_stacks=stacks,
        avg_native_depth=stats["native_frames"] / stacks if stacks else 0.0,
        min_native_depth=stats["min_native_depth"],
        truncation_rate=sum(broken.values()) / judged if judged else 0.0,
        broken_modules=[module for module, _ in broken.most_common()],
    )


def get_snapshot() -> HeapSnapshot:
    """The sampled blocks that are live now, with their stacks.

    Works while running and after stop() (and under memprof-wrap without
    start()).  Native frames are named here with dladdr(); memprof-report
    names them better from the profile file, with debug information.

    Raises:
        RuntimeError: the profiler was never started, or was shut down.
    """
    with _lock:
        _check_not_terminated("get_snapshot")
        try:
            raw = _memprof.snapshot()
            _memprof.resolve_symbols()
            stats = _memprof.stats()
        except OSError as e:
            raise _runtime_error("get_snapshot", e) from None
        stacks: Dict[int, List[StackFrame]] = {}
        samples = []
        for address, size, rate, timestamp_ns, stack_id, thread_id in raw:
            if stack_id not in stacks:
                stacks[stack_id] = _stack_frames(stack_id)
            estimated_bytes, weight = _memprof.estimate(size, rate)
            samples.append(AllocationSample(
                address=address, size=size, weight=weight,
                estimated_bytes=estimated_bytes, timestamp_ns=timestamp_ns,
                stack=stacks[stack_id], sampling_rate=rate,
                thread_id=thread_id,
                gc_epoch=_gc_epochs.epoch_at(timestamp_ns)))
        return HeapSnapshot(
            samples=samples,
            total_samples=stats["total_samples"],
            live_samples=len(samples),
            estimated_heap_bytes=round(sum(s.estimated_bytes
                                           for s in samples)),
            timestamp_ns=time.monotonic_ns(),
            frame_pointer_health=_frame_pointer_health(stats, samples),
            sampling_rate=stats["sampling_rate"],
            gc_epochs_during_profile=len(_gc_epochs.ends))


def get_stats() -> MemProfStats:
    """The runtime's counters.

    Raises:
        RuntimeError: the profiler was never started, or was shut down.
    """
    with _lock:
        _check_not_terminated("get_stats")
        stats = _memprof.stats()
    if not stats["heap_map_capacity"]:
        raise _runtime_error("get_stats", OSError(errno.EINVAL, "not started"))
    return MemProfStats(
        total_samples=stats["total_samples"],
        live_samples=stats["live_samples"],
        freed_samples=stats["freed_samples"],
        unique_stacks=stats["unique_stacks"],
        estimated_heap_bytes=round(stats["estimated_live_bytes"]),
        heap_map_load_percent=float(stats["heap_map_load_percent"]),
        collisions=stats["heap_map_collisions"],
        sampling_rate_bytes=stats["sampling_rate"],
        heap_map_full_drops=stats["heap_map_full_drops"],
        stack_table_drops=stats["stack_table_drops"],
        events_written=stats["events_written"],
        events_dropped=stats["events_dropped"])


def marker(name: str) -> bool:
    """Write a named marker (a point in time) to the profile being
    recorded under memprof-wrap; memprof-report shows it on the timeline.
    Returns False, doing nothing, when no profile is being recorded.

    Raises:
        RuntimeError: the profiler was shut down.
    """
    _check_not_terminated("marker")
    try:
        return _memprof.marker(name)
    except OSError as e:
        raise _runtime_error("marker", e) from None


#: A pool of the program's own reports the blocks it hands out and takes
#: back, which the runtime samples as it samples malloc's, at the Python
#: line that reports: report_alloc(address, size), report_free(address),
#: the address being any non-zero int that names the block while it is
#: live.  They cost a call and do nothing when the runtime does not
#: sample (memprof_pool_alloc(3)).
report_alloc = _memprof.report_alloc
report_free = _memprof.report_free


class MemoryProfiler:
    """Profile a block of code:

        with MemoryProfiler(sampling_rate_kb=256) as mp:
            run_workload()
        mp.snapshot.save("heap.json")

    The snapshot is taken when the block ends, before stop().
    """

    def __init__(self, sampling_rate_kb: Optional[int] = None,
                 gc_tracking: bool = False) -> None:
        self._sampling_rate_kb = sampling_rate_kb
        self._gc_tracking = gc_tracking
        self._snapshot: Optional[HeapSnapshot] = None

    def __enter__(self) -> "MemoryProfiler":
        start(sampling_rate_kb=self._sampling_rate_kb,
              gc_tracking=self._gc_tracking)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        try:
            self._snapshot = get_snapshot()
        finally:
            stop()

    @property
    def snapshot(self) -> Optional[HeapSnapshot]:
        """The snapshot taken at the end of the block (None before)."""
        return self._snapshot


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext spprof.memprof`` in IPython or Jupyter: the %%memprof
    cell magic and %memprof_report (see spprof._magic)."""
    from . import _magic
    _magic.register(ipython)


if __name__ == "__main__":
    # python3 -m spprof.memprof run|report ... (see spprof._cli)
    from spprof._cli import main
    raise SystemExit(main())
