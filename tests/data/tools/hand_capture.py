"""A hand-built JAX-on-GPU capture: /host:metadata with the modules' HloProtos, /host:CPU with execution
spans, BFC allocator events, AllocatorRetry waits and driver-API launches, and /device:GPU:<n> planes with
the kernels those launches started. Used by make_hand_captures.py. Times are ticks of 100 microseconds.
"""

from xspace_writer import PlaneWriter

EXECUTE = "PjRtStreamExecutorLoadedExecutable::ExecuteHelper"
LAUNCH_LINE = 900  # the tracer's callback thread, where hipModuleLaunchKernel events land


class Allocator:
    def __init__(self, name, capacity, number):
        self.name, self.capacity = name, capacity
        self.in_use = self.peak = 0
        self.next_addr = 0x7F0000000000 + number * (1 << 36)
        self.live = {}


class HandCapture:
    def __init__(self, xp, hostname, vendor="AMD", devices=1, device_memory=16 << 30, device_id_base=41000):
        self.space = xp.XSpace()
        self.space.hostnames.append(hostname)
        self.metadata = PlaneWriter(self.space, 1, "/host:metadata")
        self.devices = []
        for n in range(devices):
            d = PlaneWriter(self.space, 10 + n, "/device:GPU:%d" % n)
            d.plane_stat("device_vendor", vendor)
            d.plane_stat("memory_size", device_memory)
            d.line(1, "Stream #1")
            self.devices.append(d)
        self.host = PlaneWriter(self.space, 2, "/host:CPU")
        self.allocators = {}
        self.correlation = 1000
        self.device_id_base = device_id_base

    def module(self, writer):
        m = writer.proto.hlo_module
        self.metadata.event_id("%s(%d)" % (m.name, m.id), {"Hlo Proto": writer.bytes()})

    def allocator(self, name, capacity):
        self.allocators[name] = Allocator(name, capacity, len(self.allocators))

    def _memory_event(self, kind, line, t, a, addr, requested, chunk):
        self.host.event(
            line,
            kind,
            t,
            allocator_name=a.name,
            bytes_allocated=a.in_use,
            bytes_available=a.capacity - a.in_use,
            bytes_reserved=0,
            peak_bytes_in_use=a.peak,
            requested_bytes=requested,
            allocation_bytes=chunk,
            addr=addr,
        )

    def malloc(self, line, t, allocator, requested, chunk=None):
        a = self.allocators[allocator]
        chunk = chunk or max(256, (requested + 255) // 256 * 256)  # the BFC allocator's 256-byte rounding
        addr = a.next_addr
        a.next_addr += chunk + (1 << 20)
        a.in_use += chunk
        a.peak = max(a.peak, a.in_use)
        a.live[addr] = (requested, chunk)
        self._memory_event("MemoryAllocation", line, t, a, addr, requested, chunk)
        return addr

    def free(self, line, t, allocator, addr):
        a = self.allocators[allocator]
        requested, chunk = a.live.pop(addr)
        a.in_use -= chunk
        self._memory_event("MemoryDeallocation", line, t, a, addr, requested, chunk)

    def launch(self, t, program_id, device=0, kernel="fusion", module=""):
        """A hipModuleLaunchKernel on the callback thread and the kernel it started on the device."""
        self.correlation += 1
        self.host.event(
            LAUNCH_LINE,
            "hipModuleLaunchKernel",
            t,
            2,
            correlation_id=self.correlation,
            device_id=self.device_id_base + device,
        )
        stats = {"program_id": program_id, "correlation_id": self.correlation}
        if module:
            stats["hlo_module"] = module
        self.devices[device].event(1, kernel, t + 5, 20, **stats)

    def execute(
        self, line, t, dur, module, program_id, kernels=1, device=0, module_span=True, pjit=None, body=None
    ):
        """One ExecuteHelper span [t, t+dur]; body(t) adds the allocations it makes before the module span;
        then the "<module>:XLA GPU module" span with `kernels` launches inside it."""
        if pjit:
            self.host.event(line, "PjitFunction(%s)" % pjit, t - 2, dur + 4)
        self.host.event(line, EXECUTE, t, dur)
        start = body(t + 1) if body else t + 1
        if module_span:
            self.host.event(line, module + ":XLA GPU module", start, max(10, dur - (start - t) - 2))
            for k in range(kernels):
                self.launch(start + 2 + 3 * k, program_id, device, "%s_kernel_%d" % (module[4:], k), module)

    def write(self, path):
        with open(path, "wb") as f:
            f.write(self.space.SerializeToString(deterministic=True))
