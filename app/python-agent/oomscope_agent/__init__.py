"""oomscope live agent for Python trainers (PyTorch CUDA/MPS/CPU, JAX): standard library only.

Drop-in:   python3 -m oomscope_agent [--port P | --unix PATH] train.py ARGS...
In code:   import oomscope_agent as oa; oa.start(port=7070, metrics_port=9400)
           oa.step(n); oa.observe_batch(batch); oa.event("checkpoint", "saved step 3000")
Act on the OOM forecast (the debugger's model, run in the agent; docs/live.md):
           oa.on_forecast_oom(save_and_free, within_steps=40)   # called at a step boundary
           oa.memory(allocated=..., peak_allocated=..., capacity=BUDGET)   # a CPU loop's own figures

The debugger attaches with `oomscope-cli watch 127.0.0.1:P` or the Live page of `oomscope`.
No call here raises into the trainer, and none blocks it: a slow client loses lines (counted), not time.
"""

import time

from . import hooks
from .server import Agent

__all__ = [
    "start",
    "stop",
    "step",
    "observe_batch",
    "event",
    "agent",
    "memory",
    "on_forecast_oom",
    "forecast",
]

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
    capacity_bytes=None,
    checkpoint_before_oom=None,
    on_oom_forecast=None,
):
    """Starts serving (once; later calls return the running agent). Errors binding are raised here, at
    start, never later. metrics_port: also serve Prometheus /metrics there (0 picks a free port; see
    agent().metrics.endpoint); metrics_host other than loopback needs the token. job: the `job` label
    (default $OOMSCOPE_JOB).
    capacity_bytes: the limit the trainer runs under when the device reports none (a CPU loop's own budget),
    sent as the hello's total_bytes. checkpoint_before_oom: N steps; with on_oom_forecast (a callable or
    "module:function"), see on_forecast_oom()."""
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
        capacity_bytes=capacity_bytes,
    )
    a._shapes = _tracker
    if checkpoint_before_oom is not None:
        from .guard import ForecastGuard

        a.guard = ForecastGuard(checkpoint_before_oom, on_oom_forecast)
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
    check_forecast(a)


def check_forecast(a=None):
    """At a step boundary: calls the forecast callback when the forecast OOM came within its steps."""
    a = a or _agent
    guard = getattr(a, "guard", None)
    if guard is None:
        return
    try:
        f = guard.take_pending(a.step_value)
        if f is not None:
            guard.fire(a, f)
    except Exception:
        pass


def on_forecast_oom(callback, within_steps=None):
    """Calls callback(forecast) on the trainer's thread, at the next step boundary, once the agent's OOM
    forecast (the debugger's model, over the agent's own samples) names an OOM within `within_steps`
    steps (default: --checkpoint-before-oom). `forecast` has oom_at_step, at_step, sentence() and
    to_json(). Return True when the callback freed what the run leaked (it restarted from its checkpoint):
    the agent then sends a `restart` event and the forecast starts its history again. Needs start()."""
    a = _agent
    if a is None:
        raise RuntimeError("oomscope_agent.on_forecast_oom() needs a running agent: call start() first")
    from .guard import ForecastGuard

    if a.guard is None:
        if within_steps is None:
            raise ValueError("on_forecast_oom() needs within_steps (or --checkpoint-before-oom N)")
        a.guard = ForecastGuard(within_steps, callback)
    else:
        a.guard.callback = callback
        if within_steps is not None:
            a.guard.within = int(within_steps)
    return a.guard


def forecast():
    """The agent's latest OOM forecast (a Forecast, derived), or None (no guard, or none made yet)."""
    a = _agent
    guard = getattr(a, "guard", None) if a is not None else None
    return guard.latest if guard is not None else None


def memory(allocated=None, peak_allocated=None, reserved=None, capacity=None):
    """Figures the trainer measures itself, where the framework offers none (torch on the CPU): each
    sample carries the latest ones (a figure the framework reports wins). capacity: the budget the
    trainer checks against, sent as the hello's total_bytes (the forecast's limit)."""
    a = _agent
    if a is None:
        return
    try:
        for k, v in (("allocated", allocated), ("peak_allocated", peak_allocated), ("reserved", reserved)):
            if v is not None:
                a.user_memory[k] = int(v)
        if capacity is not None and int(capacity) > 0:
            a.capacity_bytes = int(capacity)
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
