"""A plain PyTorch CPU training loop that knows nothing of oomscope (the tests run it under the agent).

usage: train_tiny.py [--steps N] [--sleep S] [--done FILE]
Variable-length batches padded to the batch maximum, like the dynamic padding of the MPS reference.
"""

import argparse
import random
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Seqs(Dataset):
    def __init__(self, n):
        rng = random.Random(0)
        self.lengths = [rng.randint(4, 40) for _ in range(n)]

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, i):
        return torch.ones(self.lengths[i], 8) * (i % 7)


def collate(items):
    longest = max(x.shape[0] for x in items)
    out = torch.zeros(len(items), longest, 8)
    for k, x in enumerate(items):
        out[k, : x.shape[0]] = x
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--sleep", type=float, default=0.01)
    p.add_argument("--done", default=None)
    a = p.parse_args()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(Seqs(100000), batch_size=4, shuffle=True, collate_fn=collate)
    step = 0
    keep = []
    for batch in loader:
        loss = model(batch).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        keep.append(torch.zeros(256))  # a slow, steady growth of live memory
        step += 1
        if a.sleep:
            time.sleep(a.sleep)
        if step >= a.steps:
            break
    if a.done:
        with open(a.done, "w") as f:
            f.write("%d\n" % step)


if __name__ == "__main__":
    main()
