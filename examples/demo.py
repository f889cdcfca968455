"""A small program with a known heap profile, for trying spprof-mem.

It keeps about 64 MiB alive in three places and churns more in a fourth,
so a report should name load_records, build_index and make_buffers as the
sites that hold the heap, in that order.
"""
import json


def load_records(n):
    # ~40 MiB of bytes objects kept alive
    return [bytes(4096) for _ in range(n)]


def build_index(records):
    # ~16 MiB: one bytearray per 4 records
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
