"""The fields of a fixed-layout .mlyze event (mlyze-events.def, mlyze(5)).

Contract: fixed_fields() reads them through any cursor that has take(n),
the next n bytes, and varint().  It imports nothing of the package (no
extension, no runtime), so that the test suite's own reader reads the
format the same way.
"""

from typing import Any, List, Sequence


def fixed_fields(cursor: Any, layout: Sequence[int]) -> List[int]:
    """(before, varints, after) says how many bytes the little-endian
    integer that comes first takes, how many varints follow and the bytes
    of the integer after them; a width of 0 is no field."""
    before, varints, after = layout
    fields = [_little_endian(cursor, before)] if before else []
    fields += [cursor.varint() for _ in range(varints)]
    return fields + ([_little_endian(cursor, after)] if after else [])


def _little_endian(cursor: Any, width: int) -> int:
    return int.from_bytes(cursor.take(width), "little")
