"""Overhead of the Python live agent on a real PyTorch CPU training loop (a figure, not a test).

usage: /usr/bin/python3 tests/bench/python_agent_overhead.py OOMSCOPE_CLI [--steps N]

Runs the same loop (a small MLP, batches from a DataLoader, SGD) without the agent, then with it serving at
10 Hz to an attached `oomscope-cli watch`, alternating three times, and prints:
  - the agent thread's CPU time per step over the step time (what it takes from the trainer's core),
  - the hooks' cost per step (optimizer step, backward, DataLoader wrappers), timed directly,
  - the A/B difference of the mean step time (noisy on a shared machine; shown for honesty).
"""

import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "app", "python-agent"))

import torch  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402


def make_loop():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = torch.nn.Sequential(
        torch.nn.Linear(256, 512),
        torch.nn.ReLU(),
        torch.nn.Linear(512, 256),
        torch.nn.ReLU(),
        torch.nn.Linear(256, 1),
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.001)
    data = TensorDataset(torch.randn(4096, 256), torch.randn(4096, 1))
    loader = DataLoader(data, batch_size=64, shuffle=True)

    def run(steps):
        times = []
        done = 0
        while done < steps:
            for x, y in loader:
                t = time.perf_counter()
                loss = torch.nn.functional.mse_loss(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                times.append(time.perf_counter() - t)
                done += 1
                if done >= steps:
                    break
        return times

    return run


def main():
    cli = sys.argv[1]
    steps = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 600
    run = make_loop()
    run(50)  # warm up
    base = []
    for _ in range(3):
        base += run(steps)

    import oomscope_agent
    from oomscope_agent import hooks

    agent = oomscope_agent.start(port=0)
    watch = subprocess.Popen([cli, "watch", agent.endpoint, "--json"], stdout=subprocess.DEVNULL)
    time.sleep(1.0)
    run2 = make_loop()  # the optimizer and loader classes are wrapped now
    hooks.install_torch_hooks(agent)
    run2(50)
    cpu0, wall0 = agent.thread_cpu, time.perf_counter()
    withagent = []
    for _ in range(3):
        withagent += run2(steps)
    cpu, wall = agent.thread_cpu - cpu0, time.perf_counter() - wall0
    samples = agent.samples
    watch.kill()
    watch.wait()

    # The hooks' own cost per step, timed directly: count a step, count a backward, observe a batch.
    x = torch.randn(64, 256)
    n = 20000
    t = time.perf_counter()
    for _ in range(n):
        hooks._count_step(agent)
        agent.micro_value = (agent.micro_value or 0) + 1
        oomscope_agent.observe_batch((x, x))
    hook_s = (time.perf_counter() - t) / n

    mean_base = statistics.mean(base)
    mean_with = statistics.mean(withagent)
    per_step_cpu = cpu / len(withagent)
    print(
        "steps: %d without, %d with the agent (10 Hz, one client attached, %d samples sent)"
        % (len(base), len(withagent), samples)
    )
    print(
        "mean step: %.3f ms without, %.3f ms with (A/B difference %+.2f%%, noise included)"
        % (mean_base * 1e3, mean_with * 1e3, 100 * (mean_with / mean_base - 1))
    )
    print(
        "agent thread CPU: %.1f ms over %.1f s = %.3f ms per step = %.3f%% of the step time"
        % (cpu * 1e3, wall, per_step_cpu * 1e3, 100 * per_step_cpu / mean_with)
    )
    print(
        "hooks in the trainer's thread: %.2f us per step = %.3f%% of the step time"
        % (hook_s * 1e6, 100 * hook_s / mean_with)
    )
    print(
        "overhead (agent thread + hooks): %.3f%% of the step time"
        % (100 * (per_step_cpu + hook_s) / mean_with)
    )


if __name__ == "__main__":
    main()
