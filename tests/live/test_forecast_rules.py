"""`oomscope-cli alerts --prometheus-rules` with `forecast:STEPS`: the written rule passes `promtool check
rules`, and a `promtool test rules` unit test on synthetic series fires it for a rank whose allocated bytes
grow 1 MB per optimizer step towards its 4 GB capacity (once the projection 500 steps ahead crosses it, and
only after `for`), never for a flat rank, never for a rank whose step counter stands still, and picks
driver vs the MPS recommended maximum over allocated vs capacity.

usage: test_forecast_rules.py OOMSCOPE_CLI
"""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from live_util import SKIP, check  # noqa: E402
import prom_util as pu  # noqa: E402

LABELS = 'job="train",host="node1",device="cpu"'

# One sample a minute. Rank 0: allocated 1e9 + 1e8 a minute, 100 steps a minute (1e6 bytes a step); 500
# steps ahead it is projected 5e8 higher, so it crosses 4e9 once allocated passes 3.5e9 (minute 26; firing
# after the 1m `for`). Rank 1: flat. Rank 2: grows but its step stands still (paused: no per-step growth).
# Rank 3 (MPS): allocated flat, driver +1e8 a minute towards a recommended maximum of 3e9 (allocated vs the
# large capacity would never fire): crosses once driver passes 2.5e9 (minute 15).
UNIT_TEST = """rule_files:
  - %(rules)s
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'oomscope_allocated_bytes{rank="0",%(l)s}'
        values: '1e9+1e8x40'
      - series: 'oomscope_optimizer_step{rank="0",%(l)s}'
        values: '0+100x40'
      - series: 'oomscope_device_capacity_bytes{rank="0",%(l)s}'
        values: '4e9x40'
      - series: 'oomscope_allocated_bytes{rank="1",%(l)s}'
        values: '2e9x40'
      - series: 'oomscope_optimizer_step{rank="1",%(l)s}'
        values: '0+100x40'
      - series: 'oomscope_device_capacity_bytes{rank="1",%(l)s}'
        values: '4e9x40'
      - series: 'oomscope_allocated_bytes{rank="2",%(l)s}'
        values: '1e9+1e8x40'
      - series: 'oomscope_optimizer_step{rank="2",%(l)s}'
        values: '700x40'
      - series: 'oomscope_device_capacity_bytes{rank="2",%(l)s}'
        values: '4e9x40'
      - series: 'oomscope_allocated_bytes{rank="3",%(l)s}'
        values: '1e9x40'
      - series: 'oomscope_driver_bytes{rank="3",%(l)s}'
        values: '1e9+1e8x40'
      - series: 'oomscope_recommended_max_bytes{rank="3",%(l)s}'
        values: '3e9x40'
      - series: 'oomscope_optimizer_step{rank="3",%(l)s}'
        values: '0+100x40'
      - series: 'oomscope_device_capacity_bytes{rank="3",%(l)s}'
        values: '64e9x40'
    alert_rule_test:
      - eval_time: 10m
        alertname: OomscopeForecastOom
        exp_alerts: []
      - eval_time: 17m
        alertname: OomscopeForecastOom
        exp_alerts:
%(rank3)s
      - eval_time: 30m
        alertname: OomscopeForecastOom
        exp_alerts:
%(rank0)s
%(rank3)s
"""

ALERT = """          - exp_labels:
              severity: critical
              oomscope_rule: "forecast:500"
              rank: "%(rank)s"
              job: train
              host: node1
              device: cpu
            exp_annotations:
              summary: "rank %(rank)s on node1: forecast to run out of memory within 500 steps"
              description: "%(description)s\""""


def description(template, value):
    return (
        template.replace("{{ $value | humanize }}", value)
        .replace("{{ $labels.job }}", "train")
        .replace("{{ $labels.rank }}", "%s")
        .replace("{{ $labels.host }}", "node1")
        .replace("{{ $labels.device }}", "cpu")
    )


def main():
    cli = sys.argv[1]
    if not pu.have_prometheus():
        print("SKIP: prometheus/promtool not installed (packaging/install-deps.sh installs them)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="oomscope-forecast-rules-")
    out = os.path.join(tmp, "forecast.yml")
    r = subprocess.run(
        [cli, "alerts", "--prometheus-rules", out, "--alert", "forecast:500", "--window", "10m"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    check(
        r.returncode == 0 and "wrote 1 alerting rule" in r.stderr, "forecast:500 written: " + r.stderr.strip()
    )
    yml = open(out).read()
    check("deriv(" in yml and "oomscope_optimizer_step[10m]" in yml, "the rule uses deriv over the step")
    rc, text = pu.promtool("check", "rules", out)
    check(rc == 0 and "1 rules found" in text, "promtool check rules: " + text.strip().replace("\n", " "))
    # The description as written, with the values promtool will put in (humanize of the projected bytes).
    template = [line for line in yml.splitlines() if line.strip().startswith("description:")][0]
    template = template.split("description: ", 1)[1].strip()[1:-1]
    # Rank 0 at 30m: max allocated over 2m = 1e9 + 30e8 = 4e9, + 1e6 per step x 500 = 4.5e9.
    # Rank 3 at 17m: driver 2.7e9 + 5e8 = 3.2e9; at 30m: 4e9 + 5e8 = 4.5e9.
    rank0 = ALERT % {"rank": "0", "description": description(template, "4.5G") % "0"}
    rank3_17 = ALERT % {"rank": "3", "description": description(template, "3.2G") % "3"}
    rank3_30 = ALERT % {"rank": "3", "description": description(template, "4.5G") % "3"}
    unit = os.path.join(tmp, "unit.yml")
    text_unit = UNIT_TEST % {"rules": os.path.basename(out), "l": LABELS, "rank0": rank0, "rank3": rank3_17}
    # The 30m case lists rank 3 with its own value.
    text_unit = text_unit[::-1].replace(rank3_17[::-1], rank3_30[::-1], 1)[::-1]
    with open(unit, "w") as f:
        f.write(text_unit)
    rc, text = pu.promtool("test", "rules", unit)
    check(
        rc == 0 and "SUCCESS" in text,
        "promtool test rules: forecast:500 fires for the leaking rank 0 (at 30m) and the MPS rank 3 (from "
        "17m), never for the flat rank 1 or the paused rank 2:\n" + text.strip(),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
