#!/usr/bin/python3
"""Writes the hand-built captures of tests/data/hand/ (issue 8's cases, each a few KB).

Each is a JAX-on-GPU capture made from scratch with Python's protobuf (Debian's python3-protobuf) and
classes compiled from core/proto/*.proto: the modules' HloProtos in /host:metadata, execution spans,
BFC allocator events, AllocatorRetry waits and driver-API launches on /host:CPU, kernels tagged with
their program on /device:GPU:<n>. The output is deterministic, so `--check` can tell whether the
committed files are what this script writes.

    /usr/bin/python3 tests/data/tools/make_hand_captures.py OUT_DIR          # write all
    /usr/bin/python3 tests/data/tools/make_hand_captures.py --check DIR      # compare with DIR
"""

import argparse
import importlib
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compile_protos import compile_protos  # noqa: E402
from hand_capture import HandCapture  # noqa: E402
from xspace_writer import BF16, F32, MiB, ModuleWriter  # noqa: E402

GiB = 1 << 30
PUT = "PjRtStreamExecutorClient::BufferFromHostBuffer"


def put(c, line, t, allocator, size):
    """A host-to-device transfer (jax.device_put) allocating one array."""
    c.host.event(line, PUT, t, 4)
    return c.malloc(line, t + 1, allocator, size)


def elementwise(hlo, name, pid, dims, op, element_type=F32, line=10, param_type=F32):
    """x -> op(x) with one temp: parameter (param_type), fusion temp, output (element_type)."""
    m = ModuleWriter(hlo, name, pid)
    m.instruction(1, "x", "parameter", param_type, dims, parameter_number=0)
    m.instruction(2, "%s_fusion" % op, "fusion", element_type, dims, "jit(%s)/%s" % (op, op), line, [1])
    m.instruction(3, "out", "copy", element_type, dims, "jit(%s)/%s" % (op, op), line, [2])
    m.allocation(["x"], parameter=0)
    m.allocation(["out"], live_out=True)
    m.allocation(["%s_fusion" % op])
    m.alloc("%s_fusion" % op)
    m.free("%s_fusion" % op, "out")
    return m


def output_bytes(m):
    return sum(
        a.size
        for a in m.proto.buffer_assignment.buffer_allocations
        if a.maybe_live_out and not a.is_entry_computation_parameter and a.color == 0
    )


def temp_bytes(m):
    return sum(
        a.size
        for a in m.proto.buffer_assignment.buffer_allocations
        if not (a.maybe_live_out or a.is_entry_computation_parameter) and a.color == 0
    )


def run_step(c, line, t, m, allocator, live_outputs, free_outputs=True, kernels=3, pjit=None):
    """One execution of module m: temp block and output allocated, kernels launched, temp freed; the
    previous output freed when free_outputs (the caller drops its reference), else kept (a leak)."""
    mod = m.proto.hlo_module
    out = {}

    def body(t0):
        out["addr"] = c.malloc(line, t0, allocator, output_bytes(m)) if output_bytes(m) else None
        out["temp"] = c.malloc(line, t0 + 1, allocator, temp_bytes(m)) if temp_bytes(m) else None
        return t0 + 3

    c.execute(line, t, 60, mod.name, mod.id, kernels=kernels, pjit=pjit, body=body)
    if out["temp"]:
        c.free(line, t + 58, allocator, out["temp"])
    if free_outputs:
        while live_outputs:
            c.free(line, t + 59, allocator, live_outputs.pop())
    if out["addr"]:
        live_outputs.append(out["addr"])


# ---- the cases -----------------------------------------------------------------------------------


def same_name_interleaved(hlo, xp):
    """Eager-style: two programs named jit_add (different shapes) and a jit_mul, executions interleaved."""
    c = HandCapture(xp, "hand-same-name")
    c.allocator("GPU_0_bfc", 12 * GiB)
    mods = {
        11: elementwise(hlo, "jit_add", 11, [1024, 1024], "add"),
        12: elementwise(hlo, "jit_add", 12, [4096, 4096], "add"),
        13: elementwise(hlo, "jit_mul", 13, [2048, 2048], "mul"),
    }
    for m in mods.values():
        c.module(m)
    x = [
        put(c, 1, 100, "GPU_0_bfc", 4 * MiB),
        put(c, 1, 110, "GPU_0_bfc", 64 * MiB),
        put(c, 1, 120, "GPU_0_bfc", 16 * MiB),
    ]
    del x
    outputs = []
    for k, pid in enumerate([11, 12, 11, 13, 12, 11, 12]):
        run_step(c, 1, 1000 + 100 * k, mods[pid], "GPU_0_bfc", outputs, kernels=1 + pid % 2)
    return c


def step_module(hlo, kept, partials, reduced, grad1, grad2):
    """A one-layer SGD training step: x kept for the backward, split-K partials of a dot and their reduce
    (forward transients), two backward temporaries, then the update of the 4 MiB weight parameter (the
    new weights are the output)."""
    m = ModuleWriter(hlo, "jit_step", 42)
    m.instruction(1, "p0", "parameter", F32, [1024, 1024], parameter_number=0)
    m.instruction(2, "fusion.x", "fusion", F32, [kept * MiB // 4], "jit(step)/jvp(mlp)/tanh", 12, [1])
    m.instruction(
        3,
        "gemm_fusion_dot.3",
        "fusion",
        F32,
        [2, partials * MiB // 8],
        "jit(step)/jvp(mlp)/dot_general",
        13,
        [2],
    )
    m.instruction(
        4,
        "loop_reduce_fusion",
        "fusion",
        F32,
        [reduced * MiB // 4],
        "jit(step)/jvp(mlp)/dot_general",
        13,
        [3],
    )
    m.instruction(
        5,
        "gemm_fusion_dot.6",
        "fusion",
        F32,
        [grad1 * MiB // 4],
        "jit(step)/transpose(jvp(mlp))/dot_general",
        13,
        [4],
    )
    m.instruction(
        6, "fusion.g2", "fusion", F32, [grad2 * MiB // 4], "jit(step)/transpose(jvp(mlp))/mul", 12, [5, 2]
    )
    m.instruction(7, "sgd_update", "fusion", F32, [1024, 1024], "jit(step)/sub", 15, [1, 6])
    m.allocation(["p0"], parameter=0)
    m.allocation(["sgd_update"], live_out=True)
    temps = ["fusion.x", "gemm_fusion_dot.3", "loop_reduce_fusion", "gemm_fusion_dot.6", "fusion.g2"]
    m.allocation(temps, size=max((kept + partials + reduced), (kept + grad1 + grad2)) * MiB)
    m.alloc("fusion.x")
    m.alloc("gemm_fusion_dot.3")
    m.alloc("loop_reduce_fusion")
    m.free("gemm_fusion_dot.3", "loop_reduce_fusion")
    m.free("loop_reduce_fusion", "loop_reduce_fusion")
    m.alloc("gemm_fusion_dot.6")
    m.alloc("fusion.g2")
    m.free("gemm_fusion_dot.6", "fusion.g2")
    m.free("fusion.x", "fusion.g2")
    m.free("fusion.g2", "sgd_update")
    return m


def training(hlo, xp, hostname, sizes):
    c = HandCapture(xp, hostname)
    c.allocator("GPU_0_bfc", 12 * GiB)
    m = step_module(hlo, *sizes)
    c.module(m)
    put(c, 1, 100, "GPU_0_bfc", 4 * MiB)
    outputs = []
    for k in range(3):
        run_step(c, 1, 1000 + 100 * k, m, "GPU_0_bfc", outputs)
    return c


def forward_transient(hlo, xp):
    """The peak is the split-K partials inside the forward, freed before the backward starts."""
    return training(hlo, xp, "hand-forward-transient", (16, 192, 96, 128, 64))


def backward_peak(hlo, xp):
    """The peak is in the backward: two large gradient temporaries while x is still kept."""
    return training(hlo, xp, "hand-backward-peak", (64, 32, 16, 256, 128))


def forward_module(hlo, name, param_dims, temp_dims, out_dims):
    """y = f(x): one parameter, one temp, one output (a forward-only program)."""
    m = ModuleWriter(hlo, name, 7)
    m.instruction(1, "x", "parameter", F32, param_dims, parameter_number=0)
    m.instruction(2, "tanh_fusion", "fusion", F32, temp_dims, "jit(step)/tanh", 21, [1])
    m.instruction(3, "dot_fusion", "fusion", F32, out_dims, "jit(step)/dot_general", 22, [2])
    m.allocation(["x"], parameter=0)
    m.allocation(["dot_fusion"], live_out=True)
    m.allocation(["tanh_fusion"])
    m.alloc("tanh_fusion")
    m.free("tanh_fusion", "dot_fusion")
    return m


def leak(hlo, xp):
    """Every execution's 32 MiB output stays referenced (appended to a Python list): in use at the start
    of each execution grows by 32 MiB."""
    c = HandCapture(xp, "hand-leak")
    c.allocator("GPU_0_bfc", 12 * GiB)
    m = forward_module(hlo, "jit_step", [16 * MiB], [4 * MiB], [8 * MiB])
    c.module(m)
    put(c, 1, 100, "GPU_0_bfc", 64 * MiB)
    kept = []
    for k in range(5):
        run_step(c, 1, 1000 + 100 * k, m, "GPU_0_bfc", kept, free_outputs=False, pjit="step")
        c.host.event(1, "$<unknown> append", 1000 + 100 * k + 70, 1)  # results.append(step(x)) in Python
    return c


def oom_retry(hlo, xp):
    """Outputs of earlier executions stay live; the third execution's 4 GiB temp block does not fit the
    12 GiB pool: the allocator retries (AllocatorRetry::AllocateRaw) and fails, so no kernel is launched.
    A failed allocation writes no MemoryAllocation event; the output allocated just before it is freed."""
    c = HandCapture(xp, "hand-oom", device_memory=16 * GiB)
    c.allocator("GPU_0_bfc", 12 * GiB)
    m = forward_module(hlo, "jit_step", [1024, 1024, 1024], [1024, 1024, 1024], [512, 1024, 1024])
    c.module(m)
    put(c, 1, 100, "GPU_0_bfc", 4 * GiB)
    kept = []
    for k in range(2):
        run_step(c, 1, 1000 + 100 * k, m, "GPU_0_bfc", kept, free_outputs=False, pjit="step")
        c.host.event(1, "$<unknown> append", 1000 + 100 * k + 70, 1)  # results.append(step(x)) in Python
    t = 1200
    c.host.event(1, "PjitFunction(step)", t - 2, 5010)
    c.host.event(1, "PjRtStreamExecutorLoadedExecutable::ExecuteHelper", t, 5005)
    out = c.malloc(1, t + 1, "GPU_0_bfc", 2 * GiB)
    c.host.event(1, "AllocatorRetry::AllocateRaw", t + 2, 2000)  # 0.2 s
    c.host.event(1, "AllocatorRetry::AllocateRaw", t + 2010, 2990)  # 0.3 s, then the request fails
    c.free(1, t + 5003, "GPU_0_bfc", out)
    return c


def host_offload(hlo, xp):
    """Two 256 MiB parameters live in host memory (memory space 5), aliased to outputs; the program
    prefetches both onto the device (copy-start / copy-done) and adds them."""
    c = HandCapture(xp, "hand-host-offload")
    c.allocator("GPU_0_bfc", 12 * GiB)
    m = ModuleWriter(hlo, "jit_f", 5)
    dims = [64, 1024, 1024]
    m.instruction(1, "p0", "parameter", F32, dims, parameter_number=0, color=5)
    m.instruction(2, "p1", "parameter", F32, dims, parameter_number=1, color=5)
    m.instruction(3, "copy-start", "copy-start", F32, dims, "jit(f)/device_put", 30, [1])
    m.instruction(4, "copy-start.1", "copy-start", F32, dims, "jit(f)/device_put", 31, [2])
    m.instruction(5, "add_fusion", "fusion", F32, dims, "jit(f)/add", 32, [3, 4])
    m.instruction(6, "out", "copy", F32, dims, "jit(f)/mul", 33, [5])
    m.allocation(["p0"], color=5, parameter=0, live_out=True, aliased=True)
    m.allocation(["p1"], color=5, parameter=1, live_out=True, aliased=True)
    m.allocation(["out"], live_out=True)
    m.allocation(["copy-start", "copy-start.1", "add_fusion"], size=3 * 256 * MiB)
    m.alloc("copy-start")
    m.alloc("copy-start.1")
    m.alloc("add_fusion")
    m.free("copy-start", "add_fusion")
    m.free("copy-start.1", "add_fusion")
    m.free("add_fusion", "out")
    c.module(m)
    outputs = []
    for k in range(3):
        run_step(c, 1, 1000 + 100 * k, m, "GPU_0_bfc", outputs)
    return c


def eager_chunks(hlo, xp):
    """Op-by-op JAX: six single-op modules, five of them executed. The 128 MiB output of jit_matmul is
    served by a 240 MiB chunk (a free chunk the BFC allocator did not split)."""
    c = HandCapture(xp, "hand-eager")
    c.allocator("GPU_0_bfc", 12 * GiB)
    mm = ModuleWriter(hlo, "jit_matmul", 1)
    mm.instruction(1, "a", "parameter", F32, [8192, 2048], parameter_number=0)
    mm.instruction(2, "b", "parameter", F32, [2048, 4096], parameter_number=1)
    mm.instruction(3, "workspace", "custom-call", F32, [1 << 20], "jit(matmul)/dot_general", 5, [1, 2])
    mm.instruction(4, "gemm", "custom-call", F32, [8192, 4096], "jit(matmul)/dot_general", 5, [1, 2])
    mm.allocation(["a"], parameter=0)
    mm.allocation(["b"], parameter=1)
    mm.allocation(["gemm"], live_out=True)
    mm.allocation(["workspace"])
    mm.alloc("workspace", "gemm")
    mm.free("workspace", "gemm")
    mods = [
        mm,
        elementwise(hlo, "jit_add", 2, [1024, 1024], "add", line=6),
        elementwise(hlo, "jit_tanh", 3, [1024, 1024], "tanh", line=7),
        elementwise(hlo, "jit_exp", 4, [1024, 1024], "exp", line=8),
        elementwise(hlo, "jit_convert_element_type", 5, [1024, 1024], "convert_element_type", BF16, 9),
        elementwise(hlo, "jit_broadcast_in_dim", 6, [1024, 1024], "broadcast_in_dim", line=10),
    ]
    for m in mods:
        c.module(m)
    # An earlier 240 MiB array was freed; its chunk is reused whole for the 128 MiB matmul output.
    old = put(c, 1, 100, "GPU_0_bfc", 240 * MiB)
    c.free(1, 150, "GPU_0_bfc", old)
    put(c, 1, 200, "GPU_0_bfc", 64 * MiB)
    put(c, 1, 210, "GPU_0_bfc", 32 * MiB)
    small = put(c, 1, 220, "GPU_0_bfc", 4 * MiB)
    del small
    t = 1000
    for m in mods[1:5]:
        run_step(c, 1, t, m, "GPU_0_bfc", [], kernels=1)
        t += 100

    def body(t0):
        c.a_out = c.malloc(1, t0, "GPU_0_bfc", 128 * MiB, 240 * MiB)
        c.a_ws = c.malloc(1, t0 + 1, "GPU_0_bfc", 4 * MiB)
        return t0 + 3

    c.execute(1, t, 60, "jit_matmul", 1, kernels=2, body=body)
    c.free(1, t + 58, "GPU_0_bfc", c.a_ws)
    return c


def two_devices(hlo, xp):
    """Two threads run different programs on two GPUs at the same time, so each execution's window holds
    launches of both programs. jit_a runs on GPU 0, jit_b on GPU 1; jit_c (GPU 0) allocates nothing, so
    its device cannot be told and its window names two programs."""
    c = HandCapture(xp, "hand-two-devices", devices=2)
    c.allocator("GPU_0_bfc", 12 * GiB)
    c.allocator("GPU_1_bfc", 12 * GiB)
    a = elementwise(hlo, "jit_a", 21, [1024, 1024], "a")
    b = elementwise(hlo, "jit_b", 22, [2048, 2048], "b")
    cc = ModuleWriter(hlo, "jit_c", 23)
    cc.instruction(1, "x", "parameter", F32, [256, 256], parameter_number=0)
    cc.instruction(2, "c_fusion", "fusion", F32, [256, 256], "jit(c)/c", 11, [1])
    cc.allocation(["x"], parameter=0)
    cc.allocation(["c_fusion"], live_out=True, aliased=False)
    for m in (a, b, cc):
        c.module(m)

    def step(line, t, m, device, allocator, kernels):
        mod = m.proto.hlo_module

        out = []

        def body(t0):
            if allocator:
                out.append(c.malloc(line, t0, allocator, output_bytes(m)))
            return t0 + 20

        c.execute(line, t, 400, mod.name, mod.id, kernels=kernels, device=device, body=body)
        for addr in out:  # the caller reads the result and drops it
            c.free(line, t + 395, allocator, addr)

    for k in range(3):
        t = 1000 + 1000 * k
        step(1, t, a, 0, "GPU_0_bfc", 2)
        step(2, t + 10, b, 1, "GPU_1_bfc", 4)
    step(1, 5000, cc, 0, None, 1)
    step(2, 5010, b, 1, "GPU_1_bfc", 2)
    return c


def eager_big_temp(hlo, xp):
    """Op-by-op JAX again, but the largest executed op (jit_matmul) has 128 of its 192 MiB as temp: the
    program is still eager (six single-op modules, five of them run once each, none a step)."""
    c = HandCapture(xp, "hand-eager-temp")
    c.allocator("GPU_0_bfc", 12 * GiB)
    mm = ModuleWriter(hlo, "jit_matmul", 1)
    mm.instruction(1, "a", "parameter", F32, [2048, 2048], parameter_number=0)
    mm.instruction(2, "b", "parameter", F32, [2048, 2048], parameter_number=1)
    mm.instruction(3, "split_k", "fusion", F32, [8, 2048, 2048], "jit(matmul)/dot_general", 5, [1, 2])
    mm.instruction(4, "gemm", "fusion", F32, [4096, 2048], "jit(matmul)/dot_general", 5, [3])
    mm.allocation(["a"], parameter=0)
    mm.allocation(["b"], parameter=1)
    mm.allocation(["gemm"], live_out=True)
    mm.allocation(["split_k"])
    mm.alloc("split_k", "gemm")
    mm.free("split_k", "gemm")
    mods = [
        mm,
        elementwise(hlo, "jit_add", 2, [1024, 1024], "add", line=6),
        elementwise(hlo, "jit_tanh", 3, [1024, 1024], "tanh", line=7),
        elementwise(hlo, "jit_exp", 4, [1024, 1024], "exp", line=8),
        elementwise(hlo, "jit_sin", 5, [1024, 1024], "sin", line=9),
        elementwise(hlo, "jit_broadcast_in_dim", 6, [1024, 1024], "broadcast_in_dim", line=10),
    ]
    for m in mods:
        c.module(m)
    put(c, 1, 100, "GPU_0_bfc", 16 * MiB)
    put(c, 1, 110, "GPU_0_bfc", 16 * MiB)
    put(c, 1, 120, "GPU_0_bfc", 4 * MiB)
    t = 1000
    for m in mods[1:5]:
        run_step(c, 1, t, m, "GPU_0_bfc", [], kernels=1)
        t += 100
    run_step(c, 1, t, mm, "GPU_0_bfc", [], kernels=2)
    return c


def donation_dead(hlo, xp):
    """A jitted update w -> w - lr * g that does not donate w: the caller drops the old w right after each
    call returns (freed before anything else runs), so donating it would be safe and saves 4 MiB a call."""
    c = HandCapture(xp, "hand-donation-dead")
    c.allocator("GPU_0_bfc", 12 * GiB)
    m = ModuleWriter(hlo, "jit_update", 3)
    m.instruction(1, "w", "parameter", F32, [1024, 1024], parameter_number=0)
    m.instruction(2, "g", "parameter", F32, [256, 1024], parameter_number=1)
    m.instruction(3, "scaled", "fusion", F32, [1024, 1024], "jit(update)/mul", 40, [2])
    m.instruction(4, "new_w", "fusion", F32, [1024, 1024], "jit(update)/sub", 41, [1, 3])
    m.allocation(["w"], parameter=0)
    m.allocation(["g"], parameter=1)
    m.allocation(["new_w"], live_out=True)
    m.allocation(["scaled"])
    m.alloc("scaled")
    m.alloc("new_w")
    m.free("scaled", "new_w")
    c.module(m)
    w = put(c, 1, 100, "GPU_0_bfc", 4 * MiB)
    put(c, 1, 110, "GPU_0_bfc", 1 * MiB)
    for k in range(3):
        t = 1000 + 100 * k
        out = {}

        def body(t0):
            out["w"] = c.malloc(1, t0, "GPU_0_bfc", 4 * MiB)
            out["temp"] = c.malloc(1, t0 + 1, "GPU_0_bfc", 4 * MiB)
            return t0 + 3

        c.execute(1, t, 60, "jit_update", 3, kernels=2, pjit="update", body=body)
        c.free(1, t + 58, "GPU_0_bfc", out["temp"])
        c.free(1, t + 63, "GPU_0_bfc", w)  # w = update(w, g): the old w is dropped after the call returns
        w = out["w"]
    return c


CASES = {
    "hand_same_name_interleaved": same_name_interleaved,
    "hand_forward_transient": forward_transient,
    "hand_backward_peak": backward_peak,
    "hand_leak": leak,
    "hand_oom_retry": oom_retry,
    "hand_host_offload": host_offload,
    "hand_eager_chunks": eager_chunks,
    "hand_two_devices": two_devices,
    "hand_eager_big_temp": eager_big_temp,
    "hand_donation_dead": donation_dead,
}


def build_all(out_dir):
    with tempfile.TemporaryDirectory() as tmp:
        compile_protos(tmp)
        xp = importlib.import_module("xplane_pb2")
        hlo = importlib.import_module("hlo_pb2")
        for name, make in CASES.items():
            make(hlo, xp).write(os.path.join(out_dir, name + ".xplane.pb"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--check", action="store_true", help="compare DIR's files with freshly written ones")
    a = ap.parse_args()
    if not a.check:
        os.makedirs(a.dir, exist_ok=True)
        build_all(a.dir)
        return 0
    with tempfile.TemporaryDirectory() as fresh:
        build_all(fresh)
        bad = [
            n
            for n in CASES
            if open(os.path.join(fresh, n + ".xplane.pb"), "rb").read()
            != open(os.path.join(a.dir, n + ".xplane.pb"), "rb").read()
        ]
    for n in bad:
        print("%s.xplane.pb differs from what make_hand_captures.py writes" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
