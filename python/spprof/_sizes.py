"""Sizes as people write them ("24 MB") and read them ("24.0 MiB")."""

import re

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
          "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
          "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30}


def parse_size(text: str) -> int:
    """Bytes in "24 MB", "512KiB", "100": units B, K(i)B, M(i)B, G(i)B,
    all powers of 1024 (as memprof-wrap --rate)."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", str(text))
    if not found or found.group(2).lower() not in _UNITS:
        raise ValueError(f"{text!r} is not a size such as '24 MB'")
    return int(float(found.group(1)) * _UNITS[found.group(2).lower()])


def human(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(size) < 1024 or unit == "GiB":
            return (f"{size:.0f} {unit}" if unit == "B"
                    else f"{size:.1f} {unit}")
        size /= 1024
    return ""
