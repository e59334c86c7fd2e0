"""--checkpoint-before-oom: the agent forecasts over its own samples (forecast.py, the debugger's model)
and, when the forecast OOM comes within N steps, calls the trainer's callback, as the MPS reference
restarted by hand at a driver-memory threshold.

The forecast runs on the agent's thread, at most once a second of sample time (as the debugger's does);
at each step boundary (oomscope_agent.step(), or the optimizer step hook) the trainer's thread compares
the latest forecast's OOM step with the step it is at, and once that is within N steps the callback runs
there, on the trainer's thread, never in the middle of a step. The callback gets the Forecast
(forecast_result.py: oom_at_step, at_step, sentence(), to_json()). When it returns True, the trainer
says it freed what the run had leaked (it restarted from its checkpoint): the agent sends a `restart`
event, and both its own forecast and the debugger's start their history there. Otherwise the callback
is not called again until the forecast has left the N steps (or a restart event came).
"""

import sys
import threading
import time
import traceback

from .forecast import ForecastOptions, RankSeries, forecast_rank

MAX_SAMPLES = 20000  # the series kept: past it, the older half is dropped (the fit uses 1,000 steps)


def _log(msg):
    try:
        sys.stderr.write("oomscope-agent: %s\n" % msg)
        sys.stderr.flush()
    except Exception:
        pass


def _event(agent, kind, message):
    obj = {"type": "event", "t": time.time_ns(), "kind": kind, "message": message}
    if agent.step_value is not None:
        obj["step"] = agent.step_value
    agent.post(obj)  # a restart also reaches the guard's own series (Agent.post)


class ForecastGuard:
    def __init__(self, within_steps, callback=None, options=None, interval_s=1.0):
        if int(within_steps) < 1:
            raise ValueError("--checkpoint-before-oom needs a number of steps of at least 1")
        self.within = int(within_steps)
        self.callback = callback  # a callable, or "module:function" resolved when first needed
        self.options = options or ForecastOptions()
        self.interval_ns = int(interval_s * 1e9)
        self.series = RankSeries()
        self.latest = None  # the last Forecast made
        self.fired = 0
        self._armed = True
        self._generation = 0  # counts restarts, so a forecast computed across one is dropped
        self._lock = threading.Lock()
        self._warned = False

    # -- the agent thread -------------------------------------------------------------------------------
    def on_sample(self, sample, total_bytes):
        """Adds the agent's sample (a dict) and forecasts when a second of sample time has passed."""
        s = {k: v for k, v in sample.items() if k != "type"}
        with self._lock:
            series = self.series
            series.total_bytes = int(total_bytes or 0)
            series.samples.append(s)
            if len(series.samples) > MAX_SAMPLES:
                del series.samples[: MAX_SAMPLES // 2]
            if self.latest is not None and 0 <= s["t"] - self.latest.t < self.interval_ns:
                return
            generation = self._generation
        f = forecast_rank(series, self.options)
        with self._lock:
            if generation != self._generation:
                return  # a restart came while it was computed: that forecast is of the old history
            self.latest = f
            ahead = f.steps_ahead()
            if ahead is None or ahead > self.within:
                self._armed = True  # the forecast left the N steps: a later one may fire again

    def on_restart(self, t):
        with self._lock:
            self.series.events.append((t, "restart"))
            # The forecast made before it is of the old history: none until the next one is made.
            self.latest = None
            self._generation += 1
            self._armed = True

    # -- the trainer's thread ---------------------------------------------------------------------------
    def take_pending(self, step):
        """The latest forecast when its OOM step is now within N steps of `step` (the trainer's step at
        this boundary; forecasts are made once a second, which can be many steps), else None."""
        with self._lock:
            f = self.latest
            if not self._armed or f is None or f.state != "oom" or f.oom_at_step is None or step is None:
                return None
            if f.oom_at_step - int(step) > self.within:
                return None
            self._armed = False
            return f

    def fire(self, agent, f):
        """Calls the callback with forecast `f` and says so in events; never raises into the trainer."""
        self.fired += 1
        callback = self._resolve()
        why = "the OOM forecast came within %d steps (%s)" % (self.within, f.sentence())
        if callback is None:
            if not self._warned:
                _log("%s, but no checkpoint callback is registered (oomscope_agent.on_forecast_oom)" % why)
                self._warned = True
            _event(agent, "checkpoint_before_oom", why + ": no checkpoint callback is registered")
            return
        try:
            restarted = callback(f) is True
        except Exception as e:
            _log(
                "the checkpoint callback raised: %s"
                % "".join(traceback.format_exception_only(type(e), e)).strip()
            )
            agent.event(
                "checkpoint_before_oom", why + ": the checkpoint callback raised %s" % type(e).__name__
            )
            return
        _event(agent, "checkpoint_before_oom", why + ": the checkpoint callback ran")
        if restarted:
            _event(
                agent,
                "restart",
                "the checkpoint callback restarted from its checkpoint before the forecast OOM: "
                "the forecast's history starts again here",
            )

    def _resolve(self):
        cb = self.callback
        if cb is None or callable(cb):
            return cb
        try:  # "module:function", importable from the script's folder
            import importlib

            module, _, name = str(cb).partition(":")
            fn = getattr(importlib.import_module(module), name)
            self.callback = fn
            return fn
        except Exception as e:
            _log("cannot load the checkpoint callback %s: %s" % (cb, e))
            self.callback = None
            return None
