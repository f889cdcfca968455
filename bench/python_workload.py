"""A Python service's day in miniature, for bench/python-bench.sh.

JSON requests parsed and answered, records and indexes built and dropped,
byte buffers assembled, and some numpy arithmetic: allocation-heavy, with
small objects (pymalloc's share) and large blocks (malloc's) mixed as in
real programs.  Takes about two seconds; `python3 python_workload.py N`
scales it.
"""

import json
import sys

import numpy as np


def handle_requests(count):
    answered = 0
    for i in range(count):
        request = json.dumps({"id": i, "user": f"user{i % 977}",
                              "items": [{"sku": j, "qty": j % 3 + 1}
                                        for j in range(i % 20)],
                              "note": "x" * (i % 300)})
        order = json.loads(request)
        total = sum(item["qty"] for item in order["items"])
        answered += len(json.dumps({"id": order["id"], "total": total}))
    return answered


def build_index(count):
    records = [{"key": i, "name": str(i) * 3, "tags": [i, i + 1, i + 2]}
               for i in range(count)]
    by_name = {r["name"]: r for r in records}
    by_tag = {}
    for r in records:
        for tag in r["tags"]:
            by_tag.setdefault(tag, []).append(r["key"])
    return len(by_name) + len(by_tag)


def assemble_buffers(count):
    """Response bodies of about 640 KiB, built chunk by chunk."""
    sent = 0
    body = bytearray()
    for i in range(count):
        chunk = bytearray(1024 + (i * 37) % 16384)
        chunk[0] = i % 256
        body += chunk
        if i % 64 == 63:
            sent += len(bytes(body))
            body = bytearray()
    return sent


def crunch_arrays(count):
    rng = np.random.default_rng(1)
    acc = 0.0
    for _ in range(count):
        a = rng.random((256, 256))
        b = np.zeros_like(a)
        b += a * 2.0
        acc += float(np.sort(b, axis=None)[-1])
    return acc


def main(scale):
    for _ in range(scale):
        handle_requests(60000)
        build_index(150000)
        assemble_buffers(60000)
        crunch_arrays(80)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
