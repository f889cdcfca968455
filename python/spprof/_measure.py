"""What a stretch of a profile's events says: bytes allocated, held at the
peak and left live, each as an estimate with its variance and the sites
that make it up.

Contract: measure() takes the events of spprof._stream between two
markers and returns a Measurement.  Allocations whose site lies in the
measuring code itself (`own_file`: the pytest plugin, the notebook magic)
are left out.
"""

import json
import os
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

from . import _memprof
from ._cli import report_output
from ._model import StackFrame, _site_frame as site_frame
from ._sizes import human
from ._stream import weight


@dataclass
class Figure:
    """An estimate in bytes, its variance and the allocation sites that
    make it up (label, bytes), largest first."""

    bytes: float = 0.0
    variance: float = 0.0
    sites: List[Tuple[str, float]] = field(default_factory=list)

    @property
    def margin(self) -> float:
        return _memprof.estimate_interval95(self.variance)


@dataclass
class Measurement:
    """What a test (`nodeid`) or a cell allocated, sampled at `rate`."""

    nodeid: str
    rate: int
    samples: int = 0
    allocated: Figure = field(default_factory=Figure)
    peak: Figure = field(default_factory=Figure)
    leaked: Figure = field(default_factory=Figure)

    def how(self) -> str:
        if self.rate == 1:
            return (f"measured exactly: {allocations(self.samples)} "
                    "recorded, one sample per byte (every block of 32 "
                    "bytes or more)")
        return (f"estimated from {allocations(self.samples, 'sampled ')}, "
                f"one per {human(self.rate)} allocated on average; the "
                "95 % interval is shown")

    def figure(self, name: str) -> str:
        figure = getattr(self, name)
        if self.rate == 1:
            return human(figure.bytes)
        return f"{human(figure.bytes)} \u00b1 {human(figure.margin)}"


def allocations(count: int, kind: str = "") -> str:
    """"1 allocation", "2 sampled allocations"."""
    return f"{count} {kind}allocation{'s' * (count != 1)}"


def _site_frame(stack, own_file: str) -> Optional[StackFrame]:
    """The frame an allocation is charged to (as in spprof.memprof), or
    None for the measuring code's own allocations."""
    frame = site_frame(stack, libraries=False)
    if frame is not None and frame.file == own_file:
        return None
    return frame or StackFrame(0, "[no stack]", "", 0, False)


def _site_label(frame: StackFrame, rootdir: str) -> str:
    if not frame.is_python:
        return str(frame)
    file = frame.file
    if file.startswith(os.path.join(rootdir, "")):
        file = os.path.relpath(file, rootdir)
    return f"{file}:{frame.line} ({frame.function})"


# A sampled block: (bytes it stands for, their variance, its site's label).
Block = Tuple[float, float, str]


def _by_site(blocks: Iterable[Block], top: int = 5) -> Figure:
    figure = Figure()
    totals: Dict[str, float] = {}
    for bytes_, variance, label in blocks:
        figure.bytes += bytes_
        figure.variance += variance
        totals[label] = totals.get(label, 0.0) + bytes_
    figure.sites = sorted(totals.items(), key=lambda s: -s[1])[:top]
    return figure


def measure(events, stacks: Dict[int, list], nodeid: str, rate: int,
            rootdir: str, own_file: str) -> Measurement:
    """What the test whose events these are allocated, held at its peak
    and left behind (the blocks it allocated that were still live)."""
    m = Measurement(nodeid, rate)
    sites: Dict[int, Optional[str]] = {}  # stack id: label
    live: Dict[int, Block] = {}
    allocated: List[Block] = []
    history: List[Tuple[int, Optional[Block]]] = []
    held = peak_at = 0
    for event in events:
        if event[0] == "alloc":
            _, address, size, stack_id, event_rate = event
            if stack_id not in sites:
                frame = _site_frame(stacks.get(stack_id, []), own_file)
                sites[stack_id] = frame and _site_label(frame, rootdir)
            if sites[stack_id] is None:
                continue
            w, variance = weight(size, event_rate)
            block = (w, variance, sites[stack_id])
            held -= live.get(address, (0.0,))[0]
            live[address] = block
            allocated.append(block)
            held += w
            history.append((address, block))
        elif event[0] == "free" and event[1] in live:
            held -= live.pop(event[1])[0]
            history.append((event[1], None))
        if held > m.peak.bytes:
            m.peak.bytes, peak_at = held, len(history)
    m.samples = len(allocated)
    m.allocated = _by_site(allocated)
    m.leaked = _by_site(live.values())
    m.peak = _by_site(_live_after(history[:peak_at]))
    return m


def _live_after(history: List[Tuple[int, Optional[Block]]]) -> List[Block]:
    live: Dict[int, Block] = {}
    for address, block in history:
        if block is None:
            live.pop(address, None)
        else:
            live[address] = block
    return list(live.values())


def cross_fitted_peak(m: Measurement, profile: str) -> None:
    """Gives m memprof-report's estimate of the peak of `profile`, the
    stretch m measured saved on its own: cross-fitted from two halves of
    the samples (estimator.h), where the largest estimate that measure()
    follows overstates the peak by up to two standard deviations when the
    heap holds a level while its blocks are replaced.  The sites stay
    those of the largest estimate."""
    peak = json.loads(report_output(["--format=json", "--top=1",
                                     profile]))["peak"]
    m.peak.bytes = float(peak["bytes"])
    # the interval is so many standard deviations either side
    m.peak.variance = (peak["bytes_ci95"] /
                       _memprof.estimate_interval95(1.0)) ** 2
