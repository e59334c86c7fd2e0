"""python3 -m oomscope_agent [--port P | --unix PATH] [options] train.py ARGS...

Starts the agent, then runs the training script unchanged as __main__ (sys.argv is what the script
expects). Torch hooks (steps, micro-batches, DataLoader shapes) are installed as soon as the script has
imported torch.
"""

import argparse
import os
import runpy
import sys
import threading
import time


def _size(text):
    units = {
        "": 1,
        "b": 1,
        "k": 1 << 10,
        "kib": 1 << 10,
        "m": 1 << 20,
        "mib": 1 << 20,
        "g": 1 << 30,
        "gib": 1 << 30,
    }
    t = text.strip().lower()
    num = t.rstrip("abcdefghijklmnopqrstuvwxyz").strip()
    unit = t[len(num) :].strip()
    try:
        value = float(num) * units[unit]
    except (ValueError, KeyError):
        raise argparse.ArgumentTypeError("%r is not a size (bytes, or a number with KiB, MiB or GiB)" % text)
    if value <= 0:
        raise argparse.ArgumentTypeError("the capacity must be more than 0 bytes (%r)" % text)
    return int(value)


def _parse(argv):
    p = argparse.ArgumentParser(
        prog="python3 -m oomscope_agent",
        description="Run a training script with the oomscope live agent serving.",
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument("--port", type=int, default=None, help="TCP port (default 7070; 0 picks a free one)")
    where.add_argument("--unix", default=None, help="serve on a Unix socket (mode 0600) instead")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (not loopback: needs --token)")
    p.add_argument("--token", default=None, help="shared token clients must send (default $OOMSCOPE_TOKEN)")
    p.add_argument("--interval", type=int, default=100, help="sample interval in ms (default 100)")
    p.add_argument(
        "--metrics-port",
        type=int,
        default=None,
        help="also serve Prometheus /metrics on this port (0 picks a free one)",
    )
    p.add_argument(
        "--metrics-host",
        default="127.0.0.1",
        help="address for /metrics (not loopback: needs --token, sent as a Bearer token)",
    )
    p.add_argument("--job", default=None, help="the `job` label on /metrics (default $OOMSCOPE_JOB)")
    p.add_argument(
        "--endpoint-file",
        default=None,
        help="write the endpoint served (host:port) to this file; with --metrics-port, "
        "a second line is the /metrics endpoint",
    )
    p.add_argument(
        "--history",
        action="store_true",
        help="turn on torch CUDA memory history recording, so an OOM writes a snapshot",
    )
    p.add_argument(
        "--checkpoint-before-oom",
        type=int,
        default=None,
        metavar="N",
        help="forecast OOM over the agent's own samples (the debugger's model) and call the checkpoint "
        "callback when the forecast OOM comes within N steps",
    )
    p.add_argument(
        "--checkpoint-callback",
        default=None,
        metavar="MODULE:FUNCTION",
        help="the callback for --checkpoint-before-oom (importable from the script's folder; or the script "
        "registers one with oomscope_agent.on_forecast_oom)",
    )
    p.add_argument(
        "--capacity",
        type=_size,
        default=None,
        metavar="SIZE",
        help="the limit the run works under when the device reports none (a CPU loop's own budget; "
        "bytes, or with KiB, MiB, GiB): the hello's total_bytes",
    )
    p.add_argument("script", help="the training script")
    p.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    return p.parse_args(argv)


def _watch_for_torch(agent, hooks, history):
    """Installs the torch hooks once the script imported torch, and keeps wrapping optimizer classes
    defined later on torch < 2.0 (polls sys.modules once a second; cheap)."""
    history_on = False
    while True:
        if "torch" in sys.modules:
            hooks.install_torch_hooks(agent)
            if history and not history_on:
                try:
                    torch = sys.modules["torch"]
                    if torch.cuda.is_available():
                        torch.cuda.memory._record_memory_history(True)
                        history_on = True
                except Exception:
                    pass
            if {"step-global", "backward", "loader"} <= hooks._installed:
                return
        time.sleep(0.2 if "step" not in hooks._installed else 1.0)


def main(argv=None):
    opts = _parse(sys.argv[1:] if argv is None else argv)
    import oomscope_agent
    from oomscope_agent import hooks

    port = opts.port if opts.port is not None else (None if opts.unix else 7070)
    try:
        agent = oomscope_agent.start(
            port=port,
            unix=opts.unix,
            host=opts.host,
            token=opts.token,
            interval_ms=opts.interval,
            command=[opts.script] + opts.args,
            hook_torch=True,
            metrics_port=opts.metrics_port,
            metrics_host=opts.metrics_host,
            job=opts.job,
            capacity_bytes=opts.capacity,
            checkpoint_before_oom=opts.checkpoint_before_oom,
            on_oom_forecast=opts.checkpoint_callback,
        )
    except (OSError, ValueError) as e:
        sys.stderr.write("oomscope-agent: cannot serve: %s\n" % e)
        return 2
    sys.stderr.write("oomscope-agent: serving %s (pid %d)\n" % (agent.endpoint, os.getpid()))
    if opts.checkpoint_before_oom is not None:
        sys.stderr.write(
            "oomscope-agent: the checkpoint callback runs when the OOM forecast comes within %d steps (%s)\n"
            % (
                opts.checkpoint_before_oom,
                opts.checkpoint_callback
                or "the one the script registers with oomscope_agent.on_forecast_oom",
            )
        )
    if agent.metrics is not None:
        sys.stderr.write(
            "oomscope-agent: Prometheus metrics at http://%s/metrics (%s renderer)\n"
            % (agent.metrics.endpoint, agent.metrics.renderer)
        )
    if opts.endpoint_file:
        with open(opts.endpoint_file + ".tmp", "w") as f:
            f.write(agent.endpoint + "\n")
            if agent.metrics is not None:
                f.write(agent.metrics.endpoint + "\n")
        os.replace(opts.endpoint_file + ".tmp", opts.endpoint_file)
    threading.Thread(target=_watch_for_torch, args=(agent, hooks, opts.history), daemon=True).start()

    sys.argv = [opts.script] + opts.args
    script_dir = os.path.dirname(os.path.abspath(opts.script))
    if script_dir not in sys.path:
        sys.path.insert(0, script_dir)
    try:
        runpy.run_path(opts.script, run_name="__main__")
    except BaseException as e:
        torch = sys.modules.get("torch")
        oom = getattr(getattr(torch, "cuda", None), "OutOfMemoryError", None) if torch else None
        if oom is not None and isinstance(e, oom):
            hooks.on_fatal_oom(agent, e)
            time.sleep(0.3)  # let the event go out
        raise
    finally:
        time.sleep(max(0.0, opts.interval / 1000.0) * 2)  # a last sample for attached clients
    return 0


if __name__ == "__main__":
    sys.exit(main())
