#!/usr/bin/env python3
"""Writes hand-built PyTorch snapshots of what no real file here has into OUT_DIR (tests/data/hand_snapshots):

- torch_snapshot_expandable_wide_p5.pickle: pickle protocol 5, expandable_segments:True, one expandable
  segment whose trace maps 20 MiB, fills and frees it, unmaps it (torch.cuda.empty_cache()), then maps
  40 MiB for a 30 MiB tensor. Every address is 2^63 + 0x7f0000000200 or above, so each needs 9 bytes in the
  pickle (LONG1: Python writes a sign byte above bit 63); one of them (the last alloc's) is rewritten as
  LONG4 (a 4-byte length, also 9 bytes). The addresses fit 64 bits and must be read exactly.
- torch_snapshot_size_over_2p64.pickle: the same snapshot with the last alloc's size 2^64 + 512, which fits
  no 64-bit field: it must be refused, naming the file.
- torch_snapshot_size_2p63.pickle: the same with the segment's total_size 2^63 (9 bytes, within 64 bits
  unsigned but above any signed byte count): refused too.
- torch_snapshot_pools_a.pickle, torch_snapshot_pools_b.pickle: two runs of a vLLM-style engine with weights
  in private pool (0,1) and, in B only, a KV cache in (0,2), beside the default pool (no trace: history
  recording off), for `oomscope-cli diff`'s figures by pool.
- torch_snapshot_ckpt_off.pickle, torch_snapshot_ckpt_on.pickle: one training step of a 4-layer model
  (1 MiB of parameters a layer, plain SGD) without and with activation checkpointing
  (torch.utils.checkpoint, non-reentrant, on every layer), with `## forward ##`, `## backward ##` and
  `Optimizer.step#SGD.step` annotations. Each layer makes 3 MiB of inner activations, a 1 MiB output and
  three short-lived 1 MiB temporaries; the loss keeps 2 MiB of logits. Without checkpointing the inner
  activations stay for backward and the peak, 23 MiB, falls at the end of the forward pass (parameters 4,
  activations 16, the loss's temporaries 3). With it they are freed in forward and recomputed layer by layer
  in backward (frames of torch/utils/checkpoint.py under the autograd engine's), so the peak is 13 MiB,
  inside backward, at layer 3's recompute (parameters 4, activations 7, gradients 2): the saving came from
  activations and the peak moved. No real checkpointing pair is in the shared data.

Nobody ran PyTorch for these: the layout follows CUDACachingAllocator.cpp (2.1+): an expandable segment maps
pages of 20 MiB (kLargeBuffer) in the large pool, rounding the request up to a whole number of pages, and
empty_cache() unmaps the pages of free blocks; the snapshot lists each mapped range as one segment.
Frames name this script so that no one mistakes the entries for recorded ones. Python's own unpickler reads
each file back to the same object before it is written (the LONG4 rewrite included).

usage: make_hand_snapshots.py OUT_DIR
"""
import os
import pickle
import pickletools
import sys

MiB = 1 << 20
BASE = (1 << 63) + 0x7F0000000200  # 512-aligned, not 2048: a double (53 bits) cannot hold it
FRAMES = [{"filename": "/synthetic/make_hand_snapshots.py", "line": 1, "name": "hand_built"}]
SETTINGS = {
    "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
    "max_split_size": -1,
    "garbage_collection_threshold": 0.0,
    "expandable_segments": True,
    "pinned_num_register_threads": 1,
    "release_lock_on_cudamalloc": False,
    "pinned_use_host_register": False,
    "roundup_power2_divisions": {"1": 0, "2": 0, "4": 0, "8": 0, "16": 0, "32": 0, "64": 0, "128": 0},
}


def entry(action, addr, size, t):
    return {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": 1000 + t, "frames": FRAMES}


def snapshot(last_size=30 * MiB, segment_total=40 * MiB):
    trace = [
        entry("segment_map", BASE, 20 * MiB, 0),
        entry("alloc", BASE, 8 * MiB, 1),
        entry("alloc", BASE + 8 * MiB, 8 * MiB, 2),
        entry("free_requested", BASE, 8 * MiB, 3),
        entry("free_completed", BASE, 8 * MiB, 4),
        entry("free_requested", BASE + 8 * MiB, 8 * MiB, 5),
        entry("free_completed", BASE + 8 * MiB, 8 * MiB, 6),
        entry("segment_unmap", BASE, 20 * MiB, 7),
        entry("segment_map", BASE, 40 * MiB, 8),
        entry("alloc", BASE + 1, last_size, 9),  # + 1 marks the address rewritten as LONG4 (put back below)
    ]
    segment = {
        "device": 0,
        "address": BASE,
        "total_size": segment_total,
        "allocated_size": 30 * MiB,
        "active_size": 30 * MiB,
        "requested_size": 30 * MiB,
        "stream": 0,
        "segment_type": "large",
        "segment_pool_id": (0, 0),
        "is_expandable": True,
        "frames": FRAMES,
        "blocks": [
            {
                "address": BASE,
                "size": 30 * MiB,
                "requested_size": 30 * MiB,
                "state": "active_allocated",
                "frames": FRAMES,
            },
            {
                "address": BASE + 30 * MiB,
                "size": 10 * MiB,
                "requested_size": 0,
                "state": "inactive",
                "frames": [],
            },
        ],
    }
    return {"segments": [segment], "device_traces": [trace], "allocator_settings": SETTINGS}


def long1(v):
    body = v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(body)]) + body


def unframed(data):
    """The stream without its FRAME opcodes (framing is optional), so that bytes can be rewritten."""
    ops = [(op.name, pos) for op, _, pos in pickletools.genops(data)]
    out = bytearray()
    for k, (name, pos) in enumerate(ops):
        end = ops[k + 1][1] if k + 1 < len(ops) else len(data)
        if name != "FRAME":
            out += data[pos:end]
    return bytes(out)


def write(path, obj, expected):
    data = unframed(pickle.dumps(obj, protocol=5))
    # The last alloc's address: LONG1 of BASE + 1 becomes LONG4 of BASE (9 bytes after a 4-byte length).
    marked = long1(BASE + 1)
    assert data.count(marked) == 1, "the marked address is written once"
    data = data.replace(marked, b"\x8b" + (9).to_bytes(4, "little") + BASE.to_bytes(9, "little", signed=True))
    assert pickle.loads(data) == expected, path
    with open(path, "wb") as f:
        f.write(data)


def pool_segment(addr, pool, blocks):
    """A large segment of `pool` made of (MiB, live) blocks from addr."""
    bs, at, allocated = [], addr, 0
    for mib, live in blocks:
        size = mib * MiB
        bs.append(
            {
                "address": at,
                "size": size,
                "requested_size": size if live else 0,
                "state": "active_allocated" if live else "inactive",
                "frames": FRAMES if live else [],
            }
        )
        at += size
        allocated += size if live else 0
    return {
        "device": 0,
        "address": addr,
        "total_size": at - addr,
        "allocated_size": allocated,
        "active_size": allocated,
        "requested_size": allocated,
        "stream": 0,
        "segment_type": "large",
        "segment_pool_id": pool,
        "is_expandable": False,
        "frames": FRAMES,
        "blocks": bs,
    }


def pools_snapshot(b):
    settings = dict(SETTINGS, PYTORCH_CUDA_ALLOC_CONF="", expandable_segments=False)
    segments = [
        pool_segment(
            0x7F0000000000, (0, 0), [(16, True), (24, False), (20, True)] if b else [(40, True), (20, False)]
        ),
        pool_segment(0x7F0040000000, (0, 1), [(96, True), (24, False)] if b else [(100, True), (20, False)]),
    ]
    if b:
        segments.append(pool_segment(0x7F0080000000, (0, 2), [(390, True), (10, False)]))
    return {"segments": segments, "device_traces": [[]], "allocator_settings": settings}


# The checkpointing pair. Frames innermost first, as the snapshot lists them; torch's files where PyTorch has
# them, the model's in this script's name.
TORCH = "/usr/lib/python3/dist-packages/torch/"
SCRIPT = "/synthetic/make_hand_snapshots.py"


def fr(*frames):
    return [{"filename": f, "line": line, "name": n} for f, line, n in frames]


MODULE = (TORCH + "nn/modules/module.py", 1527, "_call_impl")
TRAIN = (SCRIPT, 200, "train_step")
BACKWARD = [
    (TORCH + "autograd/graph.py", 744, "_engine_run_backward"),
    (TORCH + "autograd/__init__.py", 267, "backward"),
    (TORCH + "_tensor.py", 522, "backward"),
    (SCRIPT, 203, "train_step"),
]


def layer_forward(i):
    return (SCRIPT, 110 + i, "forward")


class StepWriter:
    """Writes one device's trace and its end state: a first-fit allocator over one 64 MiB segment."""

    def __init__(self):
        self.base = 0x7F4000000000
        self.size = 64 * MiB
        self.t = 1_000_000
        self.trace = [self.entry("segment_alloc", self.base, self.size, [])]
        self.live = {}  # name -> (addr, size, frames)
        self.annotations = []

    def entry(self, action, addr, size, frames):
        self.t += 10
        return {
            "action": action,
            "addr": addr,
            "size": size,
            "stream": 0,
            "time_us": self.t,
            "frames": frames,
        }

    def mark(self, stage, name):
        self.t += 10
        self.annotations.append({"device": 0, "stage": stage, "name": name, "time_us": self.t})

    def alloc(self, name, mib, frames):
        size = mib * MiB
        at = self.base
        for addr, sz, _ in sorted(self.live.values()):
            if addr - at >= size:
                break
            at = max(at, addr + sz)
        assert at + size <= self.base + self.size, name
        self.live[name] = (at, size, frames)
        self.trace.append(self.entry("alloc", at, size, frames))

    def free(self, name):
        addr, size, frames = self.live.pop(name)
        self.trace.append(self.entry("free_requested", addr, size, frames))
        self.trace.append(self.entry("free_completed", addr, size, frames))

    def snapshot(self):
        blocks, at, allocated = [], self.base, 0
        for addr, size, frames in sorted(self.live.values()):
            if addr > at:
                blocks.append(
                    {"address": at, "size": addr - at, "requested_size": 0, "state": "inactive", "frames": []}
                )
            blocks.append(
                {
                    "address": addr,
                    "size": size,
                    "requested_size": size,
                    "state": "active_allocated",
                    "frames": frames,
                }
            )
            allocated += size
            at = addr + size
        if at < self.base + self.size:
            end = self.base + self.size
            blocks.append(
                {"address": at, "size": end - at, "requested_size": 0, "state": "inactive", "frames": []}
            )
        segment = {
            "device": 0,
            "address": self.base,
            "total_size": self.size,
            "allocated_size": allocated,
            "active_size": allocated,
            "requested_size": allocated,
            "stream": 0,
            "segment_type": "large",
            "segment_pool_id": (0, 0),
            "is_expandable": False,
            "frames": [],
            "blocks": blocks,
        }
        settings = dict(SETTINGS, PYTORCH_CUDA_ALLOC_CONF="", expandable_segments=False)
        return {
            "segments": [segment],
            "device_traces": [self.trace],
            "allocator_settings": settings,
            "external_annotations": self.annotations,
        }


def training_step(checkpointing):
    w = StepWriter()
    for i in range(4):  # the model's parameters, moved to the GPU
        w.alloc(
            f"p{i}", 1, fr((TORCH + "nn/modules/module.py", 1143, "_apply"), (SCRIPT, 190, "build_model"))
        )
    w.mark("START", "## forward ##")
    for i in range(4):
        ckpt = (
            [(TORCH + "utils/checkpoint.py", 488, "checkpoint"), (SCRIPT, 120, "forward")]
            if checkpointing
            else []
        )
        inner = fr((TORCH + "nn/functional.py", 1694, "gelu"), MODULE, layer_forward(i), *ckpt, TRAIN)
        w.alloc(f"a{i}", 3, inner)
        for _ in range(3):  # a layer's short-lived temporaries (freed within 16 allocator events)
            w.alloc(
                "tmp",
                1,
                fr((TORCH + "nn/functional.py", 2515, "layer_norm"), MODULE, layer_forward(i), *ckpt, TRAIN),
            )
            w.free("tmp")
        w.alloc(f"b{i}", 1, fr(MODULE, layer_forward(i), *ckpt, TRAIN))
        if checkpointing:
            w.free(f"a{i}")  # not saved for backward: recomputed there
    w.alloc("logits", 2, fr((SCRIPT, 130, "forward"), TRAIN))
    for _ in range(3):  # the loss's temporaries
        w.alloc(
            "tmp", 1, fr((TORCH + "nn/functional.py", 3053, "cross_entropy"), (SCRIPT, 131, "forward"), TRAIN)
        )
        w.free("tmp")
    w.mark("END", "## forward ##")
    w.mark("START", "## backward ##")
    w.free("logits")
    w.alloc("dlogits", 1, fr(*BACKWARD))
    for i in reversed(range(4)):
        if checkpointing:  # the non-reentrant checkpoint's unpack hook runs the layer's forward again
            recompute = fr(
                (TORCH + "nn/functional.py", 1694, "gelu"),
                MODULE,
                layer_forward(i),
                (TORCH + "utils/checkpoint.py", 1395, "recompute_fn"),
                (TORCH + "utils/checkpoint.py", 1123, "unpack_hook"),
                *BACKWARD,
            )
            w.alloc(f"a{i}", 3, recompute)
        w.alloc(f"g{i}", 1, fr(*BACKWARD))
        w.free(f"a{i}")
        w.free(f"b{i}")
        if i == 3:
            w.free("dlogits")
    w.mark("END", "## backward ##")
    w.mark("START", "Optimizer.step#SGD.step")  # plain SGD: the parameters are updated in place
    w.mark("END", "Optimizer.step#SGD.step")
    for i in range(4):  # zero_grad(set_to_none=True)
        w.free(f"g{i}")
    return w.snapshot()


def main() -> int:
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def fixed(s):
        s["device_traces"][0][-1]["addr"] = BASE
        return s

    write(os.path.join(out, "torch_snapshot_expandable_wide_p5.pickle"), snapshot(), fixed(snapshot()))
    big = (1 << 64) + 512
    write(
        os.path.join(out, "torch_snapshot_size_over_2p64.pickle"),
        snapshot(last_size=big),
        fixed(snapshot(last_size=big)),
    )
    write(
        os.path.join(out, "torch_snapshot_size_2p63.pickle"),
        snapshot(segment_total=1 << 63),
        fixed(snapshot(segment_total=1 << 63)),
    )
    for name, b in (("torch_snapshot_pools_a.pickle", False), ("torch_snapshot_pools_b.pickle", True)):
        data = pickle.dumps(pools_snapshot(b), protocol=4)
        assert pickle.loads(data) == pools_snapshot(b)
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    for name, ckpt in (("torch_snapshot_ckpt_off.pickle", False), ("torch_snapshot_ckpt_on.pickle", True)):
        data = pickle.dumps(training_step(ckpt), protocol=4)
        assert pickle.loads(data) == training_step(ckpt)
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
