"""A minimal .mlyze reader for the tests (see mlyze(5)).

Reads finalised profiles (tables in the JSON metadata) and streamed ones
(".part" files: tables defined by events), and resolves every sampled
allocation to its frames.  It checks little: memprof-report is the real
reader; this one only lets the tests look at what the runtime recorded.
"""

import json
import math
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Tuple

from spprof._fields import fixed_fields

_SOURCE = Path(__file__).resolve().parents[2]


def _event_types() -> Tuple[Dict[str, int], Dict[int, Tuple[int, ...]]]:
    """The number of every event type of mlyze-events.def, by name, and
    the fields of the fixed-layout ones, by number: (before, varints,
    after) as its FIXED(...) has them.  Read from the source tree, the one
    definition of the format, without loading the runtime into the test
    process."""
    numbers, layouts = {}, {}
    events = (_SOURCE / "include/spprof/mlyze-events.def").read_text()
    for name, number, layout in re.findall(
            r"^MLYZE_EVENT_TYPE\((\w+), \w+, (\d+), (FIXED\([\d, ]+\)|SIZED)",
            events, re.M):
        numbers[name] = int(number)
        if layout != "SIZED":
            layouts[int(number)] = tuple(map(int, re.findall(r"\d+",
                                                             layout)))
    return numbers, layouts


def _codec() -> Dict[str, int]:
    """The header's layout (HEADER_SIZE, OFF_...) and the numbers inside
    payloads (STRINGS_..., FRAME_...) from the codec, without MLYZE_."""
    codec = (_SOURCE / "common/mlyze-codec.h").read_text()
    defines = re.findall(r"^#define MLYZE_(HEADER_SIZE|OFF_\w+) (\d+)u$",
                         codec, re.M)
    enumerators = re.findall(r"^\tMLYZE_(\w+) = (\d+),", codec, re.M)
    return {name: int(number) for name, number in defines + enumerators}


def _magic() -> bytes:
    codec = (_SOURCE / "common/mlyze-codec.h").read_text()
    return re.search(r'^#define MLYZE_MAGIC "(\w+)"$', codec,
                     re.M).group(1).encode()


_EVENT_TYPES, _FIXED_LAYOUTS = _event_types()
ALLOC, FREE, GC, MARKER, STACK, STRING = (
    _EVENT_TYPES[name] for name in ("ALLOC", "FREE", "GC", "MARKER", "STACK",
                                    "STRING"))
_CODEC = _codec()
_HEADER_SIZE = _CODEC["HEADER_SIZE"]
_OFF_METADATA_LEN = _CODEC["OFF_METADATA_LEN"]
_MAGIC = _magic()


@dataclass
class Profile:
    metadata: dict
    files: Dict[int, str] = field(default_factory=dict)
    functions: Dict[int, str] = field(default_factory=dict)
    stacks: Dict[int, list] = field(default_factory=dict)
    allocs: List[Tuple[int, int, int]] = field(default_factory=list)
    frees: List[int] = field(default_factory=list)
    gcs: List[Tuple[int, int]] = field(default_factory=list)
    markers: List[str] = field(default_factory=list)

    def python_frames(self, stack_id: int) -> List[Tuple[str, str, int]]:
        """(file, function, line) of the Python frames, innermost first."""
        return [(self.files[f["file_id"]], self.functions[f["func_id"]],
                 f["line"])
                for f in self.stacks.get(stack_id, []) if "file_id" in f]

    def allocated_by_line(self) -> Dict[int, float]:
        """Estimated bytes allocated (freed or not) per line of innermost
        Python frame, with the unbiased weights of mlyze(5)."""
        rate = self.metadata["sampling_rate"]
        by_line: Dict[int, float] = {}
        for _, size, stack in self.allocs:
            frames = self.python_frames(stack)
            if frames:
                line = frames[0][2]
                by_line[line] = (by_line.get(line, 0.0) +
                                 size / -math.expm1(-size / rate))
        return by_line

    def live(self) -> List[Tuple[int, int, int]]:
        """(address, size, stack_id) of the blocks never freed."""
        live = {}
        for address, size, stack_id in self.allocs:
            live[address] = (address, size, stack_id)
        for address in self.frees:
            live.pop(address, None)
        return list(live.values())


class _Cursor:
    def __init__(self, data: bytes, offset: int) -> None:
        self.data, self.offset = data, offset

    def u8(self) -> int:
        self.offset += 1
        return self.data[self.offset - 1]

    def varint(self) -> int:
        value = shift = 0
        while True:
            byte = self.u8()
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    def take(self, n: int) -> bytes:
        self.offset += n
        return self.data[self.offset - n:self.offset]


def read(path) -> Profile:
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(_MAGIC):
        raise ValueError(f"{path}: not a .mlyze file")
    meta_len = struct.unpack_from("<I", data, _OFF_METADATA_LEN)[0]
    metadata = json.loads(data[_HEADER_SIZE:_HEADER_SIZE + meta_len])
    p = Profile(metadata=metadata)
    p.files = {int(k): v for k, v in metadata.get("files", {}).items()}
    p.functions = {int(k): v for k, v in metadata.get("functions", {}).items()}
    p.stacks = {int(k): v
                for k, v in metadata.get("stack_traces", {}).items()}
    c = _Cursor(data, _HEADER_SIZE + meta_len)
    while c.offset < len(data):
        if not metadata.get("complete") and not any(data[c.offset:]):
            break  # the unwritten tail of a streamed file (mlyze(5))
        kind = c.u8()
        c.varint()  # time delta
        if kind in _FIXED_LAYOUTS:
            _read_fixed_event(p, kind, fixed_fields(c, _FIXED_LAYOUTS[kind]))
        else:
            payload = _Cursor(c.take(c.varint()), 0)
            _read_table_event(p, kind, payload)
    p.markers = [p.functions[i] for i in p.markers]
    return p


def _read_fixed_event(p: Profile, kind: int, fields: List[int]) -> None:
    if kind == ALLOC:
        address, size, stack_id, _thread = fields
        p.allocs.append((address, size, stack_id))
    elif kind == FREE:
        p.frees.append(fields[0])
    elif kind == GC:
        p.gcs.append(tuple(fields))
    elif kind == MARKER:
        p.markers.append(fields[0])


def _read_table_event(p: Profile, kind: int, c: _Cursor) -> None:
    if kind == STACK:
        stack_id, frames = c.varint(), []
        for _ in range(c.varint()):
            if c.varint() == _CODEC["FRAME_NATIVE"]:
                frames.append({"address": c.varint()})
            else:
                frames.append({"file_id": c.varint(), "func_id": c.varint(),
                               "line": c.varint()})
        p.stacks[stack_id] = frames
    elif kind == STRING:
        table, string_id = c.varint(), c.varint()
        name = c.take(c.varint()).decode("utf-8")
        (p.files if table == _CODEC["STRINGS_FILES"]
         else p.functions)[string_id] = name
