"""A real torch training loop on the CPU for test_python_forecast_torch.py: a small MLP, SGD, batches of
varying size (shuffled each epoch), and the loop's own budget check: each step's real tensors (the batch,
the activations and their gradients, measured by their element counts) on top of what lives (parameters,
gradients, what leaked) must fit under --budget, else the loop raises its own out-of-memory error at that
step. --leak BYTES keeps a slice of each step's activations alive (the "tensors kept every step" bug);
--rising makes each batch longer than the last (new shapes). The agent (in code, oomscope_agent.start)
gets the loop's figures through oomscope_agent.memory() and the budget as its capacity. With --guard N the
agent's forecast calls the loop's checkpoint callback when the OOM comes within N steps: it saves the model
with torch.save and drops what leaked, as a restart from the checkpoint would.

Prints the endpoint, waits for --go FILE, then trains; exits 3 on its own OOM, 0 when the steps are done.
"""

import argparse
import os
import random
import sys
import time

import torch

import oomscope_agent as oa


class BudgetOOM(RuntimeError):
    pass


def nbytes(t):
    return t.element_size() * t.nelement()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--budget", type=int, required=True)
    p.add_argument("--leak", type=int, default=0)
    p.add_argument("--steps", type=int, default=100000)
    p.add_argument("--rising", action="store_true")
    p.add_argument("--guard", type=int, default=None)
    p.add_argument("--checkpoint", default=None)
    p.add_argument("--go", required=True)
    p.add_argument("--sleep", type=float, default=0.02)
    o = p.parse_args()
    torch.manual_seed(0)
    rng = random.Random(os.getpid())  # the order of the batches differs from run to run
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 64))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    params = sum(nbytes(q) for q in model.parameters())
    kept = []
    state = {"kept": kept, "restarts": 0}

    def checkpoint(forecast):
        torch.save(model.state_dict(), o.checkpoint)
        print("checkpoint at step %d: %s" % (forecast.at_step, forecast.sentence()), flush=True)
        kept.clear()  # resuming from the checkpoint: what leaked is gone
        state["restarts"] += 1
        return True

    a = oa.start(port=0, hook_torch=False, interval_ms=50, capacity_bytes=o.budget)
    if o.guard is not None:
        oa.on_forecast_oom(checkpoint, within_steps=o.guard)
    print(a.endpoint, flush=True)
    deadline = time.time() + 120
    while not os.path.exists(o.go) and time.time() < deadline:
        time.sleep(0.02)
    sizes = [200, 260, 320, 380, 230, 290, 350, 400]
    order = []
    step = 0
    try:
        for step in range(1, o.steps + 1):
            if o.rising:
                b = 100 + 2 * step
            else:
                if not order:
                    order = sizes[:]
                    rng.shuffle(order)
                b = order.pop()
            x = torch.randn(b, 64)
            oa.observe_batch(x)
            h = model[0](x)
            act = model[1](h)
            out = model[2](act)
            loss = out.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            live = 2 * params + sum(nbytes(k) for k in kept)
            # The step's own tensors: batch, activations, output, and the gradient of each activation.
            step_bytes = nbytes(x) + 2 * (nbytes(h) + nbytes(act) + nbytes(out))
            if live + step_bytes > o.budget:
                raise BudgetOOM(
                    "out of memory at step %d: the step's %d bytes on top of %d live exceed the budget of %d"
                    % (step, step_bytes, live, o.budget)
                )
            opt.step()
            if o.leak:
                rows = max(1, o.leak // (act.shape[1] * act.element_size()))
                kept.append(act.detach()[:rows].clone())
            live = 2 * params + sum(nbytes(k) for k in kept)
            oa.memory(allocated=live, peak_allocated=live + step_bytes)
            oa.step(step)
            time.sleep(o.sleep)
    except BudgetOOM as e:
        oa.event("oom", str(e), step=step)
        print("OOM: %s" % e, flush=True)
        time.sleep(0.5)  # the event goes out
        return 3
    print("done: %d steps, %d restarts before the forecast OOM" % (step, state["restarts"]), flush=True)
    time.sleep(0.3)
    return 0


if __name__ == "__main__":
    sys.exit(main())
