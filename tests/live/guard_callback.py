"""The checkpoint callback of guard_script.py (--checkpoint-callback guard_callback:on_oom)."""

import os

restarts = 0
calls = []


def on_oom(forecast):
    global restarts
    calls.append(forecast.oom_at_step)
    path = os.environ.get("GUARD_CHECKPOINT")
    if path:
        with open(path, "a") as f:
            f.write("step %d: %s\n" % (forecast.at_step, forecast.sentence()))
    restarts += 1
    return True
