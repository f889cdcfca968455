"""A small program with a known heap profile, for trying spprof-mem.

At its peak it holds about 88 MiB in three places (about 40 MiB each in
load_records and build_index, 8 MiB in make_buffers) and churns more in a
fourth, so a report should name those three as the sites that hold the
heap.
"""
import json


def load_records(n):
    # ~40 MiB of bytes objects kept alive (10240 x 4 KiB)
    return [bytes(4096) for _ in range(n)]


def build_index(records):
    # ~40 MiB: one 16 KiB bytearray per 4 records
    return {i: bytearray(16384) for i in range(0, len(records), 4)}


def make_buffers():
    # ~8 MiB in a few large blocks
    return [bytearray(2 << 20) for _ in range(4)]


def churn(rounds):
    # allocated and freed again: shows in "allocated", not in "live"
    for i in range(rounds):
        json.loads(json.dumps({"row": i, "payload": "x" * 2000}))


def main():
    records = load_records(10240)
    index = build_index(records)
    buffers = make_buffers()
    churn(20000)
    print(f"holding {len(records)} records, {len(index)} index entries, "
          f"{len(buffers)} buffers")


if __name__ == "__main__":
    main()
