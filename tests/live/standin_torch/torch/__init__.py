"""A stand-in `torch` for the Python agent's tests (tests/live/test_python_standin_torch.py): put this
folder first on PYTHONPATH and `import torch` gives these modules, so the agent's CUDA and MPS sources and
its OOM hook run without a GPU, a Mac or torch itself.

It returns what the real calls return, in their real shapes:
- torch.cuda.memory_stats(): a flat dict with the keys of PyTorch 2.2's torch/cuda/memory.py (the
  docstring of memory_stats lists them): "{allocated,allocated_bytes,segment,reserved_bytes,active,
  active_bytes,inactive_split,inactive_split_bytes,requested_bytes}.{all,large_pool,small_pool}.
  {current,peak,allocated,freed}", "num_alloc_retries", "num_ooms", "max_split_size",
  "oversize_allocations.*", "oversize_segments.*";
- torch.cuda.mem_get_info(): a tuple (free, total) in bytes;
- torch.cuda.get_device_properties(d): an object with .name and .total_memory;
- torch.cuda.memory._snapshot(): a dict with "segments" and "device_traces" (one list per device), and
  torch.cuda.memory._dump_snapshot(filename): that dict pickled to the file;
- torch.mps.current_allocated_memory(), driver_allocated_memory(), recommended_max_memory(): ints.

The figures are the stand-in's state (`torch._standin`), which the test's trainer script moves:
backend ("cuda", "mps" or "cpu"), allocated, reserved, peak, driver, recommended_max, total, retries,
ooms, history (whether _record_memory_history was turned on), and the calls made (`calls`).
"""

import pickle
import sys
import types

__version__ = "2.2.0+standin"


class _State:
    def __init__(self):
        self.backend = "cuda"
        self.allocated = 0
        self.reserved = 0
        self.peak = 0
        self.driver = 0
        self.recommended_max = 0
        self.total = 16 << 30
        self.retries = 0
        self.ooms = 0
        self.history = False
        self.initialized = True
        self.calls = []


_standin = _State()


class Tensor:
    def backward(self, *args, **kwargs):
        return None


class _OutOfMemoryError(RuntimeError):
    pass


def _stats():
    s = _standin
    s.calls.append("memory_stats")
    out = {}
    figures = {
        "allocated_bytes": s.allocated,
        "reserved_bytes": s.reserved,
        "active_bytes": s.allocated,
        "inactive_split_bytes": max(0, s.reserved - s.allocated) // 4,
        "requested_bytes": s.allocated,
        "allocated": s.allocated // (1 << 20),
        "segment": s.reserved // (2 << 20),
        "active": s.allocated // (1 << 20),
        "inactive_split": 3,
    }
    for name, current in figures.items():
        for pool in ("all", "large_pool", "small_pool"):
            share = current if pool == "all" else (current * 3 // 4 if pool == "large_pool" else current // 4)
            peak = max(share, s.peak if name == "allocated_bytes" and pool == "all" else share)
            out["%s.%s.current" % (name, pool)] = share
            out["%s.%s.peak" % (name, pool)] = peak
            out["%s.%s.allocated" % (name, pool)] = peak * 2
            out["%s.%s.freed" % (name, pool)] = peak * 2 - share
    out["num_alloc_retries"] = s.retries
    out["num_ooms"] = s.ooms
    out["max_split_size"] = -1
    for name in ("oversize_allocations", "oversize_segments"):
        for kind in ("current", "peak", "allocated", "freed"):
            out["%s.%s" % (name, kind)] = 0
    return out


def _mem_get_info(device=None):
    _standin.calls.append("mem_get_info")
    used = _standin.reserved + (300 << 20)  # the context and libraries, as the driver counts them
    return (_standin.total - used, _standin.total)


class _Props:
    def __init__(self):
        self.name = "Stand-in CUDA device"
        self.total_memory = _standin.total


def _snapshot():
    _standin.calls.append("_snapshot")
    traces = [[{"action": "alloc", "addr": 1 << 30, "size": _standin.allocated, "stream": 0}]]
    return {
        "segments": [{"device": 0, "address": 1 << 30, "total_size": _standin.reserved, "blocks": []}],
        "device_traces": traces if _standin.history else [[]],
    }


def _dump_snapshot(filename="dump_snapshot.pickle"):
    _standin.calls.append("_dump_snapshot")
    snap = _snapshot()
    snap["standin_writer"] = "_dump_snapshot"  # so a test can tell this writer from a pickle.dump elsewhere
    with open(filename, "wb") as f:
        pickle.dump(snap, f)


def _record_memory_history(enabled="all", *args, **kwargs):
    _standin.calls.append("_record_memory_history")
    _standin.history = bool(enabled)


cuda = types.ModuleType("torch.cuda")
cuda.is_available = lambda: _standin.backend == "cuda"
cuda.is_initialized = lambda: _standin.backend == "cuda" and _standin.initialized
cuda.current_device = lambda: 0
cuda.get_device_properties = lambda device=None: _Props()
cuda.memory_stats = lambda device=None: _stats()
cuda.mem_get_info = _mem_get_info
cuda.OutOfMemoryError = _OutOfMemoryError
cuda.memory = types.ModuleType("torch.cuda.memory")
cuda.memory._snapshot = _snapshot
cuda.memory._dump_snapshot = _dump_snapshot
cuda.memory._record_memory_history = _record_memory_history


def _mps_call(name, value):
    def call():
        _standin.calls.append(name)
        return value()

    return call


mps = types.ModuleType("torch.mps")
mps.current_allocated_memory = _mps_call("current_allocated_memory", lambda: _standin.allocated)
mps.driver_allocated_memory = _mps_call("driver_allocated_memory", lambda: _standin.driver)
mps.recommended_max_memory = _mps_call("recommended_max_memory", lambda: _standin.recommended_max)

backends = types.ModuleType("torch.backends")
backends.mps = types.ModuleType("torch.backends.mps")
backends.mps.is_available = lambda: _standin.backend == "mps"

# torch.optim with torch >= 2.0's global step hook, as the agent looks for it.
optim = types.ModuleType("torch.optim")
optim.optimizer = types.ModuleType("torch.optim.optimizer")
_step_hooks = []
optim.optimizer.register_optimizer_step_post_hook = _step_hooks.append
optim.optimizer._hooks = _step_hooks  # the test's loop waits for the agent's hook before its first step


class Optimizer:
    def step(self):
        for hook in list(_step_hooks):
            hook(self, (), {})


optim.Optimizer = Optimizer

for _name, _module in (
    ("torch.cuda", cuda),
    ("torch.cuda.memory", cuda.memory),
    ("torch.mps", mps),
    ("torch.backends", backends),
    ("torch.backends.mps", backends.mps),
    ("torch.optim", optim),
    ("torch.optim.optimizer", optim.optimizer),
):
    sys.modules[_name] = _module
