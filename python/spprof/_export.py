"""Writers of heap snapshots in formats other tools read.

Both take weighted stacks: (frames, weight) pairs whose frames are leaf
first, as the runtime records them, and whose weight is an estimate in
bytes.  Identical stacks are merged and weights rounded to whole bytes.
"""

from __future__ import annotations

import json
from typing import Dict, Iterable, List, Sequence, Tuple, TypeVar

Frame = TypeVar("Frame")
WeightedStack = Tuple[Sequence[Frame], float]


def merge_stacks(stacks: Iterable[WeightedStack]) -> Dict[tuple, float]:
    """Sum the weights of identical stacks, keyed root first."""
    merged: Dict[tuple, float] = {}
    for frames, weight in stacks:
        key = tuple(reversed(frames))
        merged[key] = merged.get(key, 0.0) + weight
    return merged


def write_collapsed(stacks: Iterable[WeightedStack], out) -> None:
    """Folded stacks, one "root;...;leaf bytes" line per distinct stack,
    as flamegraph.pl and speedscope read them."""
    for key, weight in sorted(merge_stacks(stacks).items(),
                              key=lambda item: -item[1]):
        labels = [str(frame).replace(";", ":") for frame in key]
        out.write(f"{';'.join(labels) or '[unknown]'} {round(weight)}\n")


def write_speedscope(stacks: Iterable[WeightedStack], out, name: str) -> None:
    """A speedscope "sampled" profile whose unit is bytes
    (https://www.speedscope.app/file-format-schema.json)."""
    frame_index: Dict[object, int] = {}
    shared: List[dict] = []
    samples: List[List[int]] = []
    weights: List[int] = []

    def index_of(frame) -> int:
        if frame not in frame_index:
            frame_index[frame] = len(shared)
            entry = {"name": frame.function or f"0x{frame.address:x}"}
            if frame.file:
                entry["file"] = frame.file
            if frame.line:
                entry["line"] = frame.line
            shared.append(entry)
        return frame_index[frame]

    for key, weight in merge_stacks(stacks).items():
        samples.append([index_of(frame) for frame in key])
        weights.append(round(weight))
    json.dump({
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "exporter": "spprof-mem",
        "name": name,
        "activeProfileIndex": 0,
        "shared": {"frames": shared},
        "profiles": [{
            "type": "sampled",
            "name": name,
            "unit": "bytes",
            "startValue": 0,
            "endValue": sum(weights),
            "samples": samples,
            "weights": weights,
        }],
    }, out)
