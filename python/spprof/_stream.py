"""Reads this process's own profile while the runtime streams it.

Contract: StreamReader follows the ".part" file that the runtime of this
process writes (mlyze(5), STREAMED FILES) and hands out its events in
order, from where the previous call stopped up to and including the first
MARKER of a given name, which this process wrote just before: every event
before it is complete, whatever other threads write after it.  The tables
the stream defines as it goes (strings, stacks, sampling rate) are kept,
so that ALLOC events can be read as sizes, weights and Python frames.
read_stretch() hands out the events between two markers, with an Excerpt:
a profile of their own that memprof-report reads.
"""

import json
import os
import struct
from typing import Any, Dict, Iterator, List, Optional, Tuple

from . import _memprof
from ._fields import fixed_fields
from ._model import StackFrame

# The event types, their fields and the header's layout, from the C
# definition of the format (mlyze-events.def and the codec), through the
# extension.
_TYPES = _memprof.EVENT_TYPES
ALLOC, FREE, MARKER = (_TYPES[name] for name in ("ALLOC", "FREE", "MARKER"))
STACK, MODULE, STRING, RATE = (_TYPES[name] for name in
                               ("STACK", "MODULE", "STRING", "RATE"))
_FIXED_LAYOUTS = _memprof.FIXED_LAYOUTS
_FILES, _FUNCTIONS = _memprof.STRINGS_FILES, _memprof.STRINGS_FUNCTIONS
_HEADER_SIZE = _memprof.HEADER_SIZE
_OFF_START_US = _memprof.OFF_START_US
_OFF_METADATA_LEN = _memprof.OFF_METADATA_LEN
_CHUNK = 1 << 20


class _NeedMore(Exception):
    """The buffer ends inside the event being read."""


class _Cursor:
    """Reads fields; _NeedMore when the data ends inside one."""

    def __init__(self, data: bytes, offset: int = 0) -> None:
        self.data, self.offset = data, offset

    def byte(self) -> int:
        try:
            value = self.data[self.offset]
        except IndexError:
            raise _NeedMore from None
        self.offset += 1
        return value

    def take(self, n: int) -> bytes:
        if self.offset + n > len(self.data):
            raise _NeedMore
        self.offset += n
        return self.data[self.offset - n:self.offset]

    def varint(self) -> int:
        byte = self.byte()
        value, shift = byte & 0x7F, 7
        while byte & 0x80:
            byte = self.byte()
            value |= (byte & 0x7F) << shift
            shift += 7
        return value


def own_profile(directory: str) -> Optional[str]:
    """The streamed profile this process maps under `directory` (the
    runtime keeps its ".part" file mapped while it writes it), or None
    before the first event."""
    prefix = os.path.join(os.path.realpath(directory), "")
    with open("/proc/self/maps", encoding="utf-8",
              errors="surrogateescape") as maps:
        for line in maps:
            path = line.rstrip("\n").split(None, 5)[-1]
            if path.startswith(prefix) and path.endswith(".part"):
                return path
    return None


def weight(size: int, rate: int) -> Tuple[float, float]:
    """The bytes a sampled block of `size` bytes stands for, and the
    variance it adds to a sum of them (mlyze(5), from the runtime)."""
    return (_memprof.estimate(size, rate)[0],
            _memprof.estimate_variance(size, rate))


class StreamReader:
    def __init__(self, path: str) -> None:
        self.path = path
        with open(path, "rb") as f:
            header = f.read(_HEADER_SIZE)
            if (not header.startswith(_memprof.MAGIC) or
                    len(header) < _HEADER_SIZE):
                raise ValueError(f"{path}: not a .mlyze stream")
            metadata_length = struct.unpack_from("<I", header,
                                                 _OFF_METADATA_LEN)[0]
            metadata = f.read(metadata_length)
        self.prologue = header + metadata
        self.offset = len(self.prologue)
        self.rate = int(json.loads(metadata).get("sampling_rate", 0))
        self.time_us = 0
        self.last: Tuple[int, bytes] = (0, b"")
        # Raw events that a copy of part of the stream needs first.
        self.definitions: List[Tuple[int, bytes]] = []
        self.rate_event: Optional[Tuple[int, bytes]] = None
        self.strings: Dict[int, Dict[int, str]] = {_FILES: {},
                                                   _FUNCTIONS: {}}
        self.stacks: Dict[int, List[StackFrame]] = {}

    def events_until(self, marker: str) -> Iterator[tuple]:
        """("alloc", address, size, stack id, sampling rate), ("free",
        address), ("marker", name) and ("other",) up to the marker named
        `marker`.  While an event is handed out, `time_us` is its time
        since the start of the profile and `last` its type and the bytes
        after its time delta."""
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            cursor = _Cursor(f.read(_CHUNK))
            while True:
                start = cursor.offset
                try:
                    event, delta, body_start = self._event(cursor)
                except _NeedMore:
                    more = f.read(_CHUNK)
                    if not more:
                        raise ValueError(f"{self.path}: marker {marker!r} "
                                         "not found") from None
                    cursor = _Cursor(cursor.data[start:] + more)
                    self.offset += start
                    continue
                self.time_us += delta
                self.last = (cursor.data[start],
                             cursor.data[body_start:cursor.offset])
                if self.last[0] in (STACK, MODULE, STRING):
                    self.definitions.append(self.last)
                elif self.last[0] == RATE:
                    self.rate_event = self.last
                yield event
                if event == ("marker", marker):
                    self.offset += cursor.offset
                    return

    def _event(self, c: _Cursor) -> Tuple[tuple, int, int]:
        """The event at the cursor, its time delta and where its fields
        start."""
        kind = c.byte()
        delta = c.varint()
        body_start = c.offset
        return self._fields(kind, c), delta, body_start

    def _fields(self, kind: int, c: _Cursor) -> tuple:
        if kind in _FIXED_LAYOUTS:
            fields = fixed_fields(c, _FIXED_LAYOUTS[kind])
            if kind == ALLOC:
                address, size, stack_id, _thread = fields
                return ("alloc", address, size, stack_id, self.rate)
            if kind == FREE:
                return ("free", fields[0])
            if kind == MARKER:
                return ("marker", self.strings[_FUNCTIONS].get(fields[0], ""))
            return ("other",)
        payload = _Cursor(c.take(c.varint()))
        if kind == STRING:
            table, string_id = payload.varint(), payload.varint()
            text = payload.take(payload.varint()).decode("utf-8", "replace")
            if table in self.strings:
                self.strings[table][string_id] = text
        elif kind == STACK:
            self._define_stack(payload)
        elif kind == RATE:
            self.rate = payload.varint()
        return ("other",)

    def _define_stack(self, c: _Cursor) -> None:
        stack_id, frames = c.varint(), []
        files, functions = self.strings[_FILES], self.strings[_FUNCTIONS]
        for _ in range(c.varint()):
            if c.varint() == _memprof.FRAME_NATIVE:
                frames.append(StackFrame(c.varint(), "", "", 0, False))
            else:
                file, function, line = c.varint(), c.varint(), c.varint()
                frames.append(StackFrame(0, functions.get(function, "?"),
                                         files.get(file, "?"), line, True))
        self.stacks[stack_id] = frames


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


class Excerpt:
    """A streamed profile of its own holding a stretch of a StreamReader's
    stream: begin() where the stretch starts, add() each event of it, in
    order, then save()."""

    def __init__(self, reader: StreamReader) -> None:
        self.reader = reader
        self.chunks: List[bytes] = []

    def _append(self, event: Tuple[int, bytes], delta: int) -> None:
        self.chunks.append(bytes([event[0]]) + _varint(delta) + event[1])

    def begin(self) -> None:
        """The definitions the stretch may use come first; the excerpt's
        time starts with the event the reader has just handed out."""
        start = self.reader.rate_event
        for event in self.reader.definitions + ([start] if start else []):
            self._append(event, 0)
        self.start_us = self.time_us = self.reader.time_us

    def add(self) -> None:
        """Copies the event the reader has just handed out."""
        self._append(self.reader.last, self.reader.time_us - self.time_us)
        self.time_us = self.reader.time_us

    def save(self, path: str, **metadata: Any) -> None:
        """Writes the excerpt, with `metadata` changed in its metadata."""
        prologue = self.reader.prologue
        changed = json.loads(prologue[_HEADER_SIZE:])
        changed.update(metadata)
        encoded = json.dumps(changed).encode("utf-8")
        header = bytearray(prologue[:_HEADER_SIZE])
        start_us = struct.unpack_from("<Q", header, _OFF_START_US)[0]
        struct.pack_into("<Q", header, _OFF_START_US,
                         start_us + self.start_us)
        struct.pack_into("<I", header, _OFF_METADATA_LEN, len(encoded))
        with open(path, "wb") as out:
            out.write(bytes(header) + encoded)
            out.write(b"".join(self.chunks))


def read_stretch(reader: StreamReader, start: str,
                 end: str) -> Tuple[List[tuple], Excerpt]:
    """The events from the marker `start` to the marker `end`, both
    included, and an Excerpt of them; the events before `start` (what the
    previous reading allocated, say) are read and left out."""
    excerpt = Excerpt(reader)
    events: List[tuple] = []
    for event in reader.events_until(end):
        if event == ("marker", start):
            excerpt.begin()
        if events or event == ("marker", start):
            events.append(event)
            excerpt.add()
    return events, excerpt
