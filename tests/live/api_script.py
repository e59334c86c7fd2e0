"""A script using the agent's API directly (no torch): steps, batches by shape, events, and hostile
arguments that must not raise. Prints the endpoint, then runs until killed."""

import sys
import time

import oomscope_agent as oa

a = oa.start(port=0)
print(a.endpoint, flush=True)
oa.observe_batch(object())  # nothing shaped: ignored
oa.observe_batch([1, "x"])  # not a shape: ignored
oa.event("note", object(), bad=object())  # unserialisable fields: sent as text, never raised
for step in range(1, 100000):
    oa.step(step, micro=step * 4)
    oa.observe_batch([16, 128 + (step % 7) * 64])
    if step == 3:
        oa.event("checkpoint", "saved", path="/tmp/ckpt-3.pt")
    time.sleep(0.05)
sys.exit(0)
