"""What a snapshot of the live heap holds (the data types of
spprof.memprof), and where an allocation is attributed."""

from __future__ import annotations

import functools
import os
import site
import sysconfig
from dataclasses import dataclass, field
from os import PathLike
from typing import Any, Dict, List, Optional, Tuple, Union

from . import _export, _memprof


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
