"""oomscope live agent for Python trainers (PyTorch CUDA/MPS/CPU, JAX): standard library only.

Drop-in:   python3 -m oomscope_agent [--port P | --unix PATH] train.py ARGS...
In code:   import oomscope_agent as oa; oa.start(port=7070, metrics_port=9400)
           oa.step(n); oa.observe_batch(batch); oa.event("checkpoint", "saved step 3000")

The debugger attaches with `oomscope-cli watch 127.0.0.1:P` or the Live page of `oomscope`.
No call here raises into the trainer, and none blocks it: a slow client loses lines (counted), not time.
"""

import time

from . import hooks
from .server import Agent

__all__ = ["start", "stop", "step", "observe_batch", "event", "agent"]

_agent = None
_tracker = hooks.ShapeTracker()


def start(
    port=None,
    unix=None,
    host="127.0.0.1",
    token=None,
    interval_ms=100,
    command=None,
    hook_torch=True,
    metrics_port=None,
    metrics_host="127.0.0.1",
    job=None,
    local_rank=None,
):
    """Starts serving (once; later calls return the running agent). Errors binding are raised here, at
    start, never later. metrics_port: also serve Prometheus /metrics there (0 picks a free port; see
    agent().metrics.endpoint); metrics_host other than loopback needs the token. job: the `job` label
    (default $OOMSCOPE_JOB)."""
    global _agent
    if _agent is not None:
        return _agent
    a = Agent(
        port=port,
        unix=unix,
        host=host,
        token=token,
        interval_ms=interval_ms,
        command=command,
        metrics_port=metrics_port,
        metrics_host=metrics_host,
        job=job,
        local_rank=local_rank,
    )
    a._shapes = _tracker
    a.observe_batch = observe_batch
    a.start()
    _agent = a
    if hook_torch:
        hooks.install_torch_hooks(a)
    return a


def agent():
    return _agent


def stop():
    global _agent
    if _agent is not None:
        _agent.stop()
        _agent = None


def step(n=None, micro=None):
    """Reports the optimizer step (n), or counts one more when n is None; micro: the micro-batch index."""
    a = _agent
    if a is None:
        return
    try:
        a.step_value = int(n) if n is not None else (a.step_value or 0) + 1
        if micro is not None:
            a.micro_value = int(micro)
    except Exception:
        pass


def observe_batch(batch):
    """Counts the batch's padded shape (a tensor, an array, or a list/tuple/dict of them, or a shape)."""
    try:
        if isinstance(batch, (list, tuple)) and batch and all(isinstance(d, int) for d in batch):
            batch = _Shape(batch)
        _tracker.observe(batch)
    except Exception:
        pass


def event(kind, message="", **fields):
    """Sends an event line: kind is "oom", "split", "checkpoint", "restart", "note" or your own."""
    a = _agent
    if a is None:
        return
    try:
        obj = {"type": "event", "t": time.time_ns(), "kind": str(kind), "message": str(message)}
        if a.step_value is not None and "step" not in fields:
            obj["step"] = a.step_value
        obj.update(fields)
        a.post(obj)
    except Exception:
        pass


class _Shape:
    __slots__ = ("shape",)

    def __init__(self, dims):
        self.shape = tuple(dims)
