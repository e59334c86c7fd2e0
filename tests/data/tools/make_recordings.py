#!/usr/bin/env python3
"""Writes the made-up live recordings in tests/data/live/ (docs/live-protocol.md, "Recording file") with
recording_writer.py. Nothing here was recorded from a real run; the figures are the formulas below.

usage: make_recordings.py OUT_DIR      (tests/data/live)

four_ranks_rank3_leaks.oomlive: four CUDA ranks on one host, 16 GiB each (the hello's total_bytes), sampled
  at 10 Hz for 20 optimizer steps. Ranks 0 to 2 hold 4 GiB + rank x 256 MiB allocated and 1 GiB more
  reserved; rank 3 leaks 500 MiB a step and sends an `oom` event ("Tried to allocate 2.50 GiB") 100 ms after
  its last sample; rank 1 sends one 500 ms after its last sample ("Tried to allocate 512.00 MiB", step 19).
  So rank 3 ran out first.
two_runs_a_rank1_leaks.oomlive and two_runs_b_fixed.oomlive: one job of two CUDA ranks (16 GiB each) run
  twice, for `diff`. Two samples a step, 100 ms apart: after the optimizer (the base) and at the forward's
  peak (the base + the activations). Run A: 13 steps (0-12); base 4 GiB + rank x 256 MiB, rank 1 leaks
  768 MiB a step; activations 1 GiB; reserved = allocated + 1 GiB; rank 1 sends an `oom` event
  ("Tried to allocate 2.00 GiB", step 12) after its last sample. Run B (the leak fixed, activations grown
  to 1.5 GiB): 20 steps (0-19), no OOM; its endpoints are in the other order (recording index 0 is the
  agent whose hello says rank 1), so the two runs' ranks match by the hello's rank, not by index.
Every file is written with gzip mtime 0 and no name, so the script writes the same bytes every time.
"""
import os
import sys

from recording_writer import RecordingWriter

GIB = 1 << 30
MIB = 1 << 20
T0 = 1_700_000_000_000_000_000
TICK = 100_000_000


def hello(rank, world, host, pid):
    return {
        "type": "hello",
        "protocol": 1,
        "pid": pid,
        "host": host,
        "rank": rank,
        "world_size": world,
        "backend": "cuda",
        "device": f"cuda:{rank}",
        "total_bytes": 16 * GIB,
    }


def four_ranks(path):
    steps, leaker = 20, 3

    def allocated(rank, step):
        return 4 * GIB + rank * 256 * MIB + (step * 500 * MIB if rank == leaker else 0)

    def when(rank, step):
        return T0 + step * TICK + rank * 1000

    with RecordingWriter(path) as w:
        for r in range(4):
            w.endpoint(r, f"127.0.0.1:{7070 + r}")
            w.line(r, hello(r, 4, "node0", 1000 + r))
        for i in range(steps):
            for r in range(4):
                w.sample(
                    r,
                    {
                        "t": when(r, i),
                        "step": i,
                        "allocated": allocated(r, i),
                        "reserved": allocated(r, i) + GIB,
                    },
                )
        w.line(
            1,
            {
                "type": "event",
                "t": when(1, steps - 1) + 5 * TICK,
                "kind": "oom",
                "step": steps - 1,
                "message": "CUDA out of memory. Tried to allocate 512.00 MiB.",
            },
        )
        w.line(
            leaker,
            {
                "type": "event",
                "t": when(leaker, steps - 1) + TICK,
                "kind": "oom",
                "message": "CUDA out of memory. Tried to allocate 2.50 GiB.",
                "path": "/tmp/oomscope-oom-1003.pickle",
            },
        )


def two_runs_job(path, t0, steps, leak, activations, hello_order, oom):
    """One run of the two-rank job; hello_order[i] is the hello rank of recording index i."""
    with RecordingWriter(path) as w:
        for index, rank in enumerate(hello_order):
            w.endpoint(index, f"node0:{7070 + rank}")
            w.line(index, hello(rank, 2, "node0", 2000 + rank))
        for step in range(steps):
            for index, rank in enumerate(hello_order):
                base = 4 * GIB + rank * 256 * MIB + (step * leak if rank == 1 else 0)
                for k, alloc in enumerate((base, base + activations)):
                    t = t0 + (2 * step + k) * TICK + index * 1000
                    w.sample(index, {"t": t, "step": step, "allocated": alloc, "reserved": alloc + GIB})
        if oom:
            index = hello_order.index(1)
            w.line(
                index,
                {
                    "type": "event",
                    "t": t0 + 2 * steps * TICK,
                    "kind": "oom",
                    "step": steps - 1,
                    "message": "CUDA out of memory. Tried to allocate 2.00 GiB.",
                },
            )


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    four_ranks(os.path.join(out, "four_ranks_rank3_leaks.oomlive"))
    two_runs_job(os.path.join(out, "two_runs_a_rank1_leaks.oomlive"), T0, 13, 768 * MIB, GIB, [0, 1], True)
    two_runs_job(
        os.path.join(out, "two_runs_b_fixed.oomlive"), T0 + 3600 * 10**9, 20, 0, 1536 * MIB, [1, 0], False
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
