#!/usr/bin/env python3
"""Writes an oomscope live recording (docs/live-protocol.md, "Recording file") of a made-up job, for tests.

usage: recording_writer.py OUT.oomlive

The job: four CUDA ranks on one host, 16 GiB each (the hello's total_bytes), sampled at 10 Hz for 20
optimizer steps. Ranks 0 to 2 hold 4 GiB + rank x 256 MiB allocated and 1 GiB more reserved; rank 3 leaks
500 MiB a step and sends an `oom` event ("Tried to allocate 2.50 GiB") 100 ms after its last sample; rank 1
sends one 500 ms after its last sample ("Tried to allocate 512.00 MiB", step 19). So rank 3 ran out first.
The file is written with gzip mtime 0, so the same script writes the same bytes.
"""
import gzip
import json
import sys

GIB = 1 << 30
MIB = 1 << 20
T0 = 1_700_000_000_000_000_000
TICK = 100_000_000
STEPS = 20
LEAKER = 3
FIELDS = ["step", "micro", "allocated", "reserved"]  # the first four of the sample table, in wire order


def varint(v: int) -> bytes:
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def zigzag(v: int) -> int:
    return (v << 1) ^ (v >> 63) if v >= 0 else ((-v) << 1) - 1


def allocated(rank: int, step: int) -> int:
    return 4 * GIB + rank * 256 * MIB + (step * 500 * MIB if rank == LEAKER else 0)


def when(rank: int, step: int) -> int:
    return T0 + step * TICK + rank * 1000


def line_record(rank: int, obj: dict) -> bytes:
    text = json.dumps(obj, separators=(",", ":")).encode()
    return bytes([2]) + varint(rank) + varint(len(text)) + text


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = bytearray(b"OOMSCOPE-LIVE-RECORDING 1\n")
    for r in range(4):
        endpoint = f"127.0.0.1:{7070 + r}".encode()
        out += bytes([1]) + varint(r) + varint(0) + varint(len(endpoint)) + endpoint
        hello = {
            "type": "hello",
            "protocol": 1,
            "pid": 1000 + r,
            "host": "node0",
            "rank": r,
            "world_size": 4,
            "backend": "cuda",
            "device": f"cuda:{r}",
            "total_bytes": 16 * GIB,
        }
        out += line_record(r, hello)
    prev = {r: [0, 0, 0, 0, 0] for r in range(4)}  # t, then the four fields
    mask = 0b1101  # step, allocated, reserved
    for i in range(STEPS):
        for r in range(4):
            values = [when(r, i), i, 0, allocated(r, i), allocated(r, i) + GIB]
            body = varint(zigzag(values[0] - prev[r][0])) + varint(mask)
            for f in range(len(FIELDS)):
                if mask >> f & 1:
                    body += varint(zigzag(values[f + 1] - prev[r][f + 1]))
            prev[r] = values
            out += bytes([3]) + varint(r) + body
    out += line_record(
        1,
        {
            "type": "event",
            "t": when(1, STEPS - 1) + 5 * TICK,
            "kind": "oom",
            "step": STEPS - 1,
            "message": "CUDA out of memory. Tried to allocate 512.00 MiB.",
        },
    )
    out += line_record(
        LEAKER,
        {
            "type": "event",
            "t": when(LEAKER, STEPS - 1) + TICK,
            "kind": "oom",
            "message": "CUDA out of memory. Tried to allocate 2.50 GiB.",
            "path": "/tmp/oomscope-oom-1003.pickle",
        },
    )
    with open(sys.argv[1], "wb") as f:
        f.write(gzip.compress(bytes(out), mtime=0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
