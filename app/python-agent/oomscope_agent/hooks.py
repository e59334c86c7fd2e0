"""Hooks into a framework the trainer imported, so an unchanged script reports its steps and shapes.

- optimizer steps: torch's global optimizer step hook (torch >= 2.0), or a counting wrapper around the
  step() of every torch.optim.Optimizer subclass (older torch);
- micro-batches: torch.Tensor.backward calls;
- input shapes: each batch a torch DataLoader yields;
- OOM: a CUDA out-of-memory error that ends the script, or the allocator's num_ooms counter moving; with
  memory history recording on, a snapshot is written and its path sent with the `oom` event.
Every hook swallows its own errors: the trainer never sees an exception from the agent.
"""

import os
import pickle
import sys
import time

MAX_DISTINCT = 100_000  # shapes remembered; past it, `distinct` stops growing (memory stays bounded)


MAX_NEW_PER_LINE = 256  # shapes listed in one `shapes` line's "new" field


class ShapeTracker:
    def __init__(self):
        self.seen = set()
        self.observed = False  # any batch with a shape seen (before that, the count is unknown, not 0)
        self.distinct = 0
        self.last = []
        self.fresh = []  # first seen since the last `shapes` line (taken by the agent thread)

    def observe(self, batch):
        shape = _shape_of(batch)
        if not shape:
            return
        key = tuple(shape)
        self.observed = True
        self.last = list(shape)
        if key not in self.seen and len(self.seen) < MAX_DISTINCT:
            self.seen.add(key)
            self.distinct = len(self.seen)
            if len(self.fresh) < MAX_NEW_PER_LINE:
                self.fresh.append(list(shape))

    def take_fresh(self):
        fresh, self.fresh = self.fresh, []
        return fresh


def _shape_of(batch, depth=0):
    """The dimensions of the tensors in a batch, flattened (first tensor-like objects, up to 8)."""
    if depth > 3:
        return []
    shape = getattr(batch, "shape", None)
    if shape is not None:
        try:
            return [int(d) for d in shape]
        except Exception:
            return []
    out = []
    if isinstance(batch, dict):
        batch = list(batch.values())
    if isinstance(batch, (list, tuple)):
        for item in batch[:8]:
            out.extend(_shape_of(item, depth + 1))
    return out


_installed = set()


def install_torch_hooks(agent):
    """Installs what the imported torch allows; returns the names of the hooks installed."""
    torch = sys.modules.get("torch")
    if torch is None:
        return _installed
    try:
        _install_step_hook(agent, torch)
        _install_backward_hook(agent, torch)
        _install_loader_hook(agent, torch)
    except Exception:
        pass
    return _installed


def _count_step(agent):
    agent.step_value = (agent.step_value or 0) + 1
    guard = getattr(agent, "guard", None)
    if guard is not None:  # --checkpoint-before-oom: the callback runs at the step boundary
        f = guard.take_pending(agent.step_value)
        if f is not None:
            guard.fire(agent, f)


def _install_step_hook(agent, torch):
    """Global hook on torch >= 2.0. On older torch, wraps step() of the Optimizer subclasses defined so far;
    call again to catch classes defined later (the wrapper's watcher does, every second)."""
    if "step-global" in _installed:
        return
    optim = sys.modules.get("torch.optim")
    if optim is None or not hasattr(optim, "Optimizer"):
        return
    register = getattr(getattr(optim, "optimizer", None), "register_optimizer_step_post_hook", None)
    if register is not None:
        register(lambda *a, **k: _count_step(agent))
        _installed.update(("step", "step-global"))
        return

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    for cls in list(subclasses(optim.Optimizer)):
        step = cls.__dict__.get("step")
        if step is None or getattr(step, "_oomscope_wrapped", False):
            continue

        def make(orig):
            def step(self, *args, **kwargs):
                result = orig(self, *args, **kwargs)
                try:
                    _count_step(agent)
                except Exception:
                    pass
                return result

            step._oomscope_wrapped = True
            step.__wrapped__ = orig
            return step

        setattr(cls, "step", make(step))
    _installed.add("step")


def _install_backward_hook(agent, torch):
    if "backward" in _installed:
        return
    orig = torch.Tensor.backward

    def backward(self, *args, **kwargs):
        try:
            agent.micro_value = (agent.micro_value or 0) + 1
        except Exception:
            pass
        return orig(self, *args, **kwargs)

    torch.Tensor.backward = backward
    _installed.add("backward")


def _install_loader_hook(agent, torch):
    if "loader" in _installed:
        return
    try:
        from torch.utils.data import dataloader
    except Exception:
        return
    base = getattr(dataloader, "_BaseDataLoaderIter", None)
    if base is None:
        return
    orig = base.__next__

    def __next__(self):
        batch = orig(self)
        try:
            agent.observe_batch(batch)
        except Exception:
            pass
        return batch

    base.__next__ = __next__
    _installed.add("loader")


def write_snapshot(directory=None):
    """Writes the allocator snapshot when memory history was recorded; returns the path or None.

    torch.cuda.memory._snapshot() tells whether history was on (a snapshot without traces is not worth a
    file); the file itself is written by torch.cuda.memory._dump_snapshot(path), torch's own writer, where
    the installed torch has it (else the snapshot is pickled here, as _dump_snapshot does)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    try:
        if not torch.cuda.is_available() or not torch.cuda.is_initialized():
            return None
        memory = torch.cuda.memory
        snap = memory._snapshot()
        traces = snap.get("device_traces") if isinstance(snap, dict) else None
        if not traces or not any(traces):
            return None  # history recording was off: nothing worth a file
        path = os.path.join(
            directory or os.getcwd(), "oomscope-oom-%d-%d.pickle" % (os.getpid(), int(time.time()))
        )
        dump = getattr(memory, "_dump_snapshot", None)
        if dump is not None:
            del snap  # one snapshot in memory at a time
            dump(path)
        else:
            with open(path, "wb") as f:
                pickle.dump(snap, f)
        return path if os.path.exists(path) else None
    except Exception:
        return None


def on_oom_counter(agent, ooms):
    """The allocator's num_ooms counter moved (the trainer caught the OOM, or is about to die of it)."""
    path = write_snapshot()
    event = {
        "type": "event",
        "t": time.time_ns(),
        "kind": "oom",
        "message": "CUDA out of memory (allocator OOM count now %d)" % ooms,
    }
    if agent.step_value is not None:
        event["step"] = agent.step_value
    if path:
        event["path"] = path
    agent.post(event)


def on_fatal_oom(agent, exc):
    """The script ended with a CUDA out-of-memory error."""
    path = write_snapshot()
    event = {"type": "event", "t": time.time_ns(), "kind": "oom", "message": str(exc).split("\n")[0][:500]}
    if agent.step_value is not None:
        event["step"] = agent.step_value
    if path:
        event["path"] = path
    agent.post(event)
