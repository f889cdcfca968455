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

_SOURCE = Path(__file__).resolve().parents[2]


def _format_table() -> Dict[str, int]:
    """The event types of mlyze-events.def and the header's layout from
    the codec, read from the source tree: the one definition of the
    format, without loading the runtime into the test process."""
    table = {}
    events = (_SOURCE / "include/spprof/mlyze-events.def").read_text()
    for name, number in re.findall(r"^MLYZE_EVENT_TYPE\((\w+), \w+, (\d+),",
                                   events, re.M):
        table[name] = int(number)
    codec = (_SOURCE / "common/mlyze-codec.h").read_text()
    for name, number in re.findall(r"^#define MLYZE_(HEADER_SIZE|OFF_\w+) "
                                   r"(\d+)u$", codec, re.M):
        table[name] = int(number)
    return table


def _magic() -> bytes:
    codec = (_SOURCE / "common/mlyze-codec.h").read_text()
    return re.search(r'^#define MLYZE_MAGIC "(\w+)"$', codec,
                     re.M).group(1).encode()


_FORMAT = _format_table()
ALLOC, FREE, GC, MARKER, STACK, MODULE, STRING, RATE = (
    _FORMAT[name] for name in ("ALLOC", "FREE", "GC", "MARKER", "STACK",
                               "MODULE", "STRING", "RATE"))
_HEADER_SIZE = _FORMAT["HEADER_SIZE"]
_OFF_METADATA_LEN = _FORMAT["OFF_METADATA_LEN"]
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

    def u64(self) -> int:
        self.offset += 8
        return struct.unpack_from("<Q", self.data, self.offset - 8)[0]

    def u16(self) -> int:
        self.offset += 2
        return struct.unpack_from("<H", self.data, self.offset - 2)[0]

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
        if kind == ALLOC:
            address, size, stack_id = c.u64(), c.varint(), c.varint()
            c.u16()
            p.allocs.append((address, size, stack_id))
        elif kind == FREE:
            p.frees.append(c.u64())
        elif kind == GC:
            p.gcs.append((c.varint(), c.varint()))
        elif kind == MARKER:
            name_id = c.varint()
            p.markers.append(name_id)
        else:
            payload = _Cursor(c.take(c.varint()), 0)
            _read_table_event(p, kind, payload)
    p.markers = [p.functions[i] for i in p.markers]
    return p


def _read_table_event(p: Profile, kind: int, c: _Cursor) -> None:
    if kind == STACK:
        stack_id, frames = c.varint(), []
        for _ in range(c.varint()):
            if c.varint() == 0:
                frames.append({"address": c.varint()})
            else:
                frames.append({"file_id": c.varint(), "func_id": c.varint(),
                               "line": c.varint()})
        p.stacks[stack_id] = frames
    elif kind == STRING:
        table, string_id = c.varint(), c.varint()
        name = c.take(c.varint()).decode("utf-8")
        (p.files if table == 0 else p.functions)[string_id] = name
