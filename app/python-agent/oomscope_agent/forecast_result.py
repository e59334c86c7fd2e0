"""The result of the agent's OOM forecast (forecast.py): the fields of the debugger's Forecast
(core/live/client/forecast.h), its one-sentence form and its JSON object (docs/live.md). Derived."""

from .robust_fit import duration_text, format_bytes, thousands


class Forecast:
    def __init__(self):
        self.state = "not_enough_history"  # "oom", "no_oom", "not_enough_history", "no_limit"
        self.driver_kind = "none"  # "growth", "step_peak", "shapes", "none"
        self.driver = ""
        self.figure = "allocated"
        self.limit_name = ""
        self.limit_bytes = 0
        self.by_step = True
        self.t = 0
        self.at_step = -1
        self.oom_at_step = self.early_step = self.late_step = None
        self.oom_in_seconds = self.early_seconds = self.late_seconds = None
        self.from_step = self.to_step = 0
        self.bins = 0
        self.samples = 0
        self.since = ""
        self.growth = self.growth_lo = self.growth_hi = self.peak_growth = 0.0
        self.baseline = self.step_peak = self.headroom = 0
        self.seconds_per_step = 0.0

    def steps_ahead(self):
        """Steps from the latest one to the forecast OOM, or None."""
        if self.state != "oom" or self.oom_at_step is None or self.at_step < 0:
            return None
        return self.oom_at_step - self.at_step

    def sentence(self):
        """One sentence, as the debugger's forecast_sentence() says it, "[derived]" at the end."""
        if self.state == "oom":
            s = "OOM forecast"
            if self.oom_at_step is not None:
                s += " at step %s (range %s to %s)" % (
                    thousands(self.oom_at_step),
                    thousands(self.early_step or 0),
                    thousands(self.late_step or 0),
                )
            if self.oom_in_seconds is not None:
                s += ", in about " + duration_text(self.oom_in_seconds)
            s += ": %s reaches the %s %s; driver: %s" % (
                self.figure,
                self.limit_name,
                format_bytes(self.limit_bytes),
                self.driver,
            )
        elif self.state == "no_limit":
            s = "no forecast: " + self.driver
        else:
            s = self.driver
        return s + " [derived]"

    def to_json(self):
        """The fields of the debugger's `forecast` object (docs/live.md) that a trainer acts on."""
        j = {
            "state": self.state,
            "oom_at_step": self.oom_at_step,
            "oom_in_seconds": self.oom_in_seconds,
            "driver": self.driver,
            "driver_kind": self.driver_kind,
            "t": self.t,
            "at_step": self.at_step if self.at_step >= 0 else None,
            "tag": "derived",
        }
        if self.state == "oom":
            j["range"] = {
                "steps": [self.early_step, self.late_step],
                "seconds": [self.early_seconds, self.late_seconds],
            }
        j["limit"] = (
            None
            if self.state == "no_limit"
            else {"figure": self.figure, "name": self.limit_name, "bytes": self.limit_bytes}
        )
        return j
