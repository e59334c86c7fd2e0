"""`oomscope-cli alerts --prometheus-rules`: the written file passes `promtool check rules`; the driver
threshold rule passes a `promtool test rules` unit test (fires after its `for`, names the rank); a rule
PromQL cannot express is listed in a comment and on stderr; bad input is an error naming the file; and a
real `prometheus` loading a generated file fires a rule over a live Python agent's /metrics.

usage: test_prometheus_rules.py OOMSCOPE_CLI
"""

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from live_util import SKIP, check  # noqa: E402
import prom_util as pu  # noqa: E402

UNIT_TEST = """rule_files:
  - %s
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'oomscope_driver_bytes{rank="3",host="node7",device="mps",job="train"}'
        values: '1e10 2.3e10 2.3e10 2.3e10 2.3e10'
      - series: 'oomscope_driver_bytes{rank="4",host="node7",device="mps",job="train"}'
        values: '1e10 1e10 1e10 1e10 1e10'
    alert_rule_test:
      - eval_time: 1m
        alertname: OomscopeDriverHigh
        exp_alerts: []
      - eval_time: 3m
        alertname: OomscopeDriverHigh
        exp_alerts:
          - exp_labels:
              severity: warning
              oomscope_rule: "driver>22000MB"
              rank: "3"
              host: node7
              device: mps
              job: train
            exp_annotations:
              summary: "rank 3 on node7: driver over 22000MB"
              description: "driver is 23GB (job train, rank 3, host node7, device mps); the limit is 22000MB."
"""


def run(cli, *args):
    r = subprocess.run([cli, "alerts", *args], capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def main():
    cli = sys.argv[1]
    if not pu.have_prometheus():
        print("SKIP: prometheus/promtool not installed (packaging/install-deps.sh installs them)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="oomscope-promrules-")

    # 1. The Live page's default rules.
    out = os.path.join(tmp, "default.yml")
    rc, _, err = run(cli, "--prometheus-rules", out)
    check(rc == 0 and "wrote 4 alerting rules" in err, "defaults written: " + err.strip())
    rc, text = pu.promtool("check", "rules", out)
    check(rc == 0 and "4 rules found" in text, "promtool check rules: " + text.strip().replace("\n", " "))
    unit = os.path.join(tmp, "unit.yml")
    with open(unit, "w") as f:
        f.write(UNIT_TEST % os.path.basename(out))
    rc, text = pu.promtool("test", "rules", unit)
    check(
        rc == 0 and "SUCCESS" in text,
        "promtool test rules: driver>22000MB fires after 1m for rank 3 only:\n" + text.strip(),
    )

    # 2. A rules file as the Live page's Alerts field takes it, with one rule PromQL cannot express.
    rules = os.path.join(tmp, "rules.txt")
    with open(rules, "w") as f:
        f.write(
            "# team rules\ndriver>22000MB, moves:ooms; gap>4GB\n  growth:driver>500MB/1000steps\n"
            "shapes-rising:20 event:oom  # the agent's own oom events\nmicro>8\nmoves:alloc_retries\n"
        )
    out2 = os.path.join(tmp, "team.yml")
    rc, _, err = run(
        cli, "--prometheus-rules", out2, "--rules", rules, "--selector", 'job="train"', "--for", "30s"
    )
    check(rc == 0 and "wrote 7 alerting rules" in err, "7 of 8 rules written: " + err.strip())
    check("'micro>8' is not expressible in PromQL" in err, "the micro rule is named on stderr")
    yml = open(out2).read()
    check("#   micro>8: the agents do not export 'micro'" in yml, "and in a comment in the file")
    check('job=\\"train\\"' in yml and "for: 30s" in yml, "the selector and --for are used")
    rc, text = pu.promtool("check", "rules", out2)
    check(rc == 0 and "7 rules found" in text, "promtool check rules on all seven kinds: " + text.strip())

    # 3. Bad input: an error naming the file or the rule, exit 2; nothing written.
    bad = os.path.join(tmp, "bad.txt")
    with open(bad, "w") as f:
        f.write("driver>22000MB\ndriver>lots\n")
    out3 = os.path.join(tmp, "never.yml")
    rc, _, err = run(cli, "--prometheus-rules", out3, "--rules", bad)
    check(
        rc == 2 and bad in err and "driver>lots" in err and not os.path.exists(out3),
        "a bad rule names the file and the rule: " + err.strip().splitlines()[0],
    )
    rc, _, err = run(cli, "--prometheus-rules", out3, "--rules", os.path.join(tmp, "missing.txt"))
    check(
        rc != 0 and "missing.txt" in err and not os.path.exists(out3),
        "a missing rules file is named: " + err.strip().splitlines()[0],
    )
    rc, _, err = run(cli, "--prometheus-rules", out3, "--for", "soon")
    check(rc == 2 and "'soon' is not a Prometheus duration" in err, "a bad duration is refused")
    rc, _, err = run(cli, "--prometheus-rules", out3, "--selector", "{job='x'}")
    check(rc == 2 and "without braces" in err, "a selector with braces is refused")

    # 4. A real prometheus evaluating a generated rule over a live agent.
    out4 = os.path.join(tmp, "live.yml")
    rc, _, err = run(
        cli,
        "--prometheus-rules",
        out4,
        "--alert",
        "rss>1MB",
        "--alert",
        "moves:ooms",
        "--for",
        "0s",
        "--selector",
        'job="ruletest"',
    )
    check(rc == 0, "rules for the live check written")
    agents = pu.start_python_agents(1, tmp, job="ruletest")
    prom = None
    try:
        prom = pu.start_prometheus(tmp, [agents[0].metrics], rule_files=[out4])
        pu.wait_targets_up(prom, 1)
        firing = []
        deadline = time.time() + 30
        while time.time() < deadline and not firing:
            time.sleep(0.5)
            firing = [a for a in pu.api(prom, "alerts")["alerts"] if a["state"] == "firing"]
        names = sorted(a["labels"]["alertname"] for a in firing)
        check(
            names == ["OomscopeRssHigh"],
            "prometheus fires rss>1MB over the agent, and not moves:ooms: %s" % names,
        )
        summary = firing[0]["annotations"]["summary"]
        check(summary.startswith("rank 0 on "), "the alert names the rank: " + summary)
    finally:
        if prom:
            prom.stop()
        pu.stop_all(agents)
    return 0


if __name__ == "__main__":
    sys.exit(main())
