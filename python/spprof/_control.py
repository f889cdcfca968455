"""The profiler session of spprof.memprof: start, stop, shutdown,
snapshots and statistics over the runtime's tables (one per process)."""

from __future__ import annotations

import atexit
import bisect
import errno
import gc
import threading
import time
import warnings
from array import array
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

from . import _memprof
from ._model import (AllocationSample, FramePointerHealth, HeapSnapshot,
                     MemProfStats, StackFrame, _ENTRY_FUNCTIONS,
                     _MAX_STACK_DEPTH)

#: Mean sampling interval of the runtime when nothing else is configured.
DEFAULT_SAMPLING_RATE_KB = _memprof.DEFAULT_SAMPLING_RATE // 1024

HOW_TO_RUN = ("start the program under the runtime: "
              "memprof-wrap python3 app.py "
              "(or LD_PRELOAD=libspprof-alloc.so.0 python3 app.py)")


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
