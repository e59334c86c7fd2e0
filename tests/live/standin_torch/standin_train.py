"""A trainer loop over the stand-in torch (tests/live/standin_torch/torch): each step moves the stand-in's
figures as a leak would (allocated and reserved grow by --leak bytes a step, the MPS driver figure by twice
that), counts the step through torch.optim's global step hook, and at --caught-oom-at bumps the
allocator's OOM counter (an OOM the script caught), at --oom-at dies of torch.cuda.OutOfMemoryError.

    python3 -m oomscope_agent ... standin_train.py --backend cuda|mps --steps N --leak BYTES
"""

import argparse
import time

import torch

MiB = 1 << 20


def figures(step, leak):
    """The stand-in's figures at `step`; the test computes the same to check the samples."""
    allocated = 100 * MiB + step * leak
    return {"allocated": allocated, "reserved": allocated + 20 * MiB, "peak": allocated + 8 * MiB}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--backend", default="cuda")
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--leak", type=int, default=MiB)
    p.add_argument("--sleep", type=float, default=0.05)
    p.add_argument("--caught-oom-at", type=int, default=-1)
    p.add_argument("--oom-at", type=int, default=-1)
    a = p.parse_args()
    s = torch._standin
    s.backend = a.backend
    s.recommended_max = 8 << 30
    opt = torch.optim.Optimizer()
    deadline = time.time() + 30  # the agent installs its step hook from its own thread, soon after import
    while not torch.optim.optimizer._hooks and time.time() < deadline:
        time.sleep(0.01)
    for step in range(1, a.steps + 1):
        for k, v in figures(step, a.leak).items():
            setattr(s, k, v)
        s.driver = s.reserved + 2 * step * a.leak
        s.retries = step // 10
        if step == a.caught_oom_at:
            s.ooms += 1
        if step == a.oom_at:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (stand-in)")
        opt.step()
        time.sleep(a.sleep)


if __name__ == "__main__":
    main()
