"""Where the agent's figures come from: torch (CUDA, MPS), JAX, and the process RSS as the fallback.

Every source is best effort: a figure the installed framework does not offer is simply left out of the
sample. Nothing here imports a framework; it looks for one the trainer already imported.
"""

import os
import sys

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss_bytes():
    """Resident set size of this process, or None."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource  # macOS: ru_maxrss is the peak, in bytes

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024
    except Exception:
        return None


def _torch():
    return sys.modules.get("torch")


def _cuda_ready(torch):
    try:
        return torch.cuda.is_available() and torch.cuda.is_initialized()
    except Exception:
        return False


def _mps_ready(torch):
    try:
        return hasattr(torch, "mps") and torch.backends.mps.is_available()
    except Exception:
        return False


def backend_key():
    """Changes when what backend_info() would say changes (cheap: no device calls)."""
    torch = _torch()
    cuda = False
    if torch is not None and hasattr(torch, "cuda"):
        try:
            cuda = torch.cuda.is_initialized()
        except Exception:
            cuda = False
    return (torch is not None and hasattr(torch, "__version__"), cuda, "jax" in sys.modules)


def backend_info():
    """(backend, device name, total bytes, framework) for the hello line."""
    torch = _torch()
    if torch is not None:
        framework = "torch " + str(getattr(torch, "__version__", "?"))
        if _cuda_ready(torch):
            try:
                dev = torch.cuda.current_device()
                props = torch.cuda.get_device_properties(dev)
                return "cuda", props.name, int(props.total_memory), framework
            except Exception:
                return "cuda", "", 0, framework
        if _mps_ready(torch):
            total = 0
            rec = getattr(torch.mps, "recommended_max_memory", None)
            if rec is not None:
                try:
                    total = int(rec())
                except Exception:
                    total = 0
            return "mps", "Apple MPS", total, framework
        return "cpu", "", 0, framework
    jax = sys.modules.get("jax")
    if jax is not None:
        try:
            dev = jax.local_devices()[0]
            stats = dev.memory_stats() or {}
            return (
                "jax-" + dev.platform,
                getattr(dev, "device_kind", ""),
                int(stats.get("bytes_limit", 0)),
                "jax " + str(getattr(jax, "__version__", "?")),
            )
        except Exception:
            return "jax", "", 0, "jax " + str(getattr(jax, "__version__", "?"))
    return "cpu", "", 0, "python " + sys.version.split()[0]


def device_label(backend):
    """The `device` label of /metrics: "cuda:N" for the current CUDA device, else the backend name."""
    if backend == "cuda":
        torch = _torch()
        try:
            return "cuda:%d" % torch.cuda.current_device()
        except Exception:
            return "cuda"
    return backend or "cpu"


def fill_sample(sample):
    """Adds the figures of the framework in use to `sample` (a dict). Never raises."""
    try:
        rss = rss_bytes()
        if rss is not None:
            sample["rss"] = rss
    except Exception:
        pass
    torch = _torch()
    if torch is not None:
        if _cuda_ready(torch):
            _fill_cuda(torch, sample)
        elif _mps_ready(torch):
            _fill_mps(torch, sample)
        return
    jax = sys.modules.get("jax")
    if jax is not None:
        _fill_jax(jax, sample)


def _fill_cuda(torch, sample):
    try:
        s = torch.cuda.memory_stats()
    except Exception:
        return
    for field, key in (
        ("allocated", "allocated_bytes.all.current"),
        ("reserved", "reserved_bytes.all.current"),
        ("active", "active_bytes.all.current"),
        ("peak_allocated", "allocated_bytes.all.peak"),
        ("inactive_split", "inactive_split_bytes.all.current"),
        ("alloc_retries", "num_alloc_retries"),
        ("ooms", "num_ooms"),
    ):
        if key in s:
            sample[field] = int(s[key])
    try:
        free, total = torch.cuda.mem_get_info()
        sample["device_used"] = int(total - free)  # whole device, as the driver reports it
    except Exception:
        pass


def _fill_mps(torch, sample):
    mps = torch.mps
    for field, name in (
        ("allocated", "current_allocated_memory"),
        ("driver", "driver_allocated_memory"),
        ("recommended_max", "recommended_max_memory"),
    ):
        fn = getattr(mps, name, None)
        if fn is None:
            continue
        try:
            sample[field] = int(fn())
        except Exception:
            pass


def _fill_jax(jax, sample):
    try:
        stats = jax.local_devices()[0].memory_stats()
    except Exception:
        return
    if not stats:
        return
    for field, key in (
        ("allocated", "bytes_in_use"),
        ("peak_allocated", "peak_bytes_in_use"),
        ("reserved", "bytes_reserved"),
        ("ooms", "num_ooms"),
    ):
        if key in stats:
            sample[field] = int(stats[key])
    if "pool_bytes" in stats and "reserved" not in sample:
        sample["reserved"] = int(stats["pool_bytes"])
