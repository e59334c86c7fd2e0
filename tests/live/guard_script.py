"""A loop without a framework for test_python_forecast_guard.py: its own figures through oa.memory() (a base,
a leak of --leak bytes a step, a step peak), its own OOM past the capacity, and guard_callback.on_oom (given
to the agent as --checkpoint-callback) dropping what leaked. Exits 3 on its OOM, 0 after --steps."""

import argparse
import sys
import time

import guard_callback
import oomscope_agent as oa

MIB = 1 << 20

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=900)
p.add_argument("--leak", type=int, default=100 << 10)
p.add_argument("--capacity", type=int, default=64 * MIB)
o = p.parse_args()
leaked = 0
for step in range(1, o.steps + 1):
    if guard_callback.restarts:
        guard_callback.restarts = 0
        leaked = 0  # resumed from the checkpoint: what leaked is gone
    leaked += o.leak
    live = 8 * MIB + leaked
    peak = live + 4 * MIB + (step * 7919 % 5) * 64 * 1024
    if peak > o.capacity:
        oa.event("oom", "out of memory at step %d" % step, step=step)
        print("OOM at step %d" % step, flush=True)
        time.sleep(0.3)
        sys.exit(3)
    oa.memory(allocated=live, peak_allocated=peak)
    oa.step(step)
    time.sleep(0.008)
print("done: %d steps" % o.steps, flush=True)
time.sleep(0.3)
