"""A tiny training stand-in without torch: each step allocates a few MiB of Python memory, keeps some of it
for a while and frees it, so the process RSS moves. When run under `python3 -m oomscope_agent` it reports
its steps and batch shapes through the agent's API (without the agent it runs the same and reports nothing).

usage: alloc_tiny.py [--steps N] [--sleep S] [--mib M] [--done FILE]
"""

import argparse
import random
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=1000000)
    p.add_argument("--sleep", type=float, default=0.05)
    p.add_argument("--mib", type=int, default=4, help="at most this many MiB allocated per step (default 4)")
    p.add_argument("--done", default=None)
    a = p.parse_args()
    try:
        import oomscope_agent as oa
    except ImportError:
        oa = None
    rng = random.Random(0)
    held = []
    step = 0
    while step < a.steps:
        # 1 to M MiB, written so that the pages count in RSS
        held.append(b"\x01" * (rng.randint(256, a.mib * 1024) * 1024))
        if len(held) > 8:
            del held[: rng.randint(1, 8)]  # ... and shrinks again
        step += 1
        if oa is not None:
            oa.step(step)
            oa.observe_batch([4, 16 * rng.randint(1, 6)])
        if a.sleep:
            time.sleep(a.sleep)
    if a.done:
        with open(a.done, "w") as f:
            f.write("%d\n" % step)


if __name__ == "__main__":
    main()
