"""Small writers for hand-built captures: an XSpace (planes, lines, events, stats) and an xla.HloProto
(instructions, logical buffers, allocations, heap-simulator trace), with Python's protobuf and classes
compiled from core/proto/*.proto (compile_protos.py). Used by make_hand_captures.py; shares no code with
oomscope's C++ reader.
"""

MiB = 1 << 20
TICK_PS = 100_000_000  # 100 microseconds
F32, BF16, TUPLE = 11, 16, 13
ELEMENT_BYTES = {F32: 4, BF16: 2}


class PlaneWriter:
    """One XPlane: interns stat and event metadata by name, writes lines and events. Times are in ticks of
    100 microseconds (TICK_PS picoseconds)."""

    def __init__(self, space, plane_id, name):
        self.p = space.planes.add()
        self.p.id = plane_id
        self.p.name = name
        self.stat_ids, self.event_ids, self.lines = {}, {}, {}

    def stat_id(self, name):
        if name not in self.stat_ids:
            i = len(self.stat_ids) + 1
            self.stat_ids[name] = i
            self.p.stat_metadata[i].id = i
            self.p.stat_metadata[i].name = name
        return self.stat_ids[name]

    def event_id(self, name, stats=None):
        if name not in self.event_ids:
            i = len(self.event_ids) + 1
            self.event_ids[name] = i
            md = self.p.event_metadata[i]
            md.id = i
            md.name = name
            for k, v in (stats or {}).items():
                self._set(md.stats.add(), k, v)
        return self.event_ids[name]

    def _set(self, stat, name, value):
        stat.metadata_id = self.stat_id(name)
        if isinstance(value, bytes):
            stat.bytes_value = value
        elif isinstance(value, str):
            stat.ref_value = self.stat_id(value)  # strings as refs, as current writers store them
        elif isinstance(value, float):
            stat.double_value = value
        elif value >= 1 << 63:
            stat.uint64_value = value
        else:
            stat.int64_value = value

    def plane_stat(self, name, value):
        self._set(self.p.stats.add(), name, value)

    def line(self, line_id, name=""):
        if line_id not in self.lines:
            line = self.p.lines.add()
            line.id = line_id
            line.display_id = line_id
            line.name = name
            line.timestamp_ns = 0
            self.lines[line_id] = line
        return self.lines[line_id]

    def event(self, line_id, name, t, dur=0, **stats):
        e = self.line(line_id).events.add()
        e.metadata_id = self.event_id(name)
        e.offset_ps = int(t * TICK_PS)
        e.duration_ps = int(dur * TICK_PS)
        for k, v in stats.items():
            self._set(e.stats.add(), k, v)
        return e


def shape(hlo, element_type, dims):
    s = hlo.ShapeProto()
    s.element_type = element_type
    s.dimensions.extend(dims)
    return s


def shape_bytes(element_type, dims):
    n = ELEMENT_BYTES[element_type]
    for d in dims:
        n *= d
    return n


class ModuleWriter:
    """One xla.HloProto with an entry computation "main". Each instruction defines one buffer (id = the
    instruction id); allocations group buffers; the heap trace lists ALLOC/FREE events by instruction name."""

    def __init__(self, hlo, name, program_id):
        self.hlo = hlo
        self.proto = hlo.HloProto()
        m = self.proto.hlo_module
        m.name = name
        m.id = program_id
        m.entry_computation_name = "main"
        m.entry_computation_id = 1
        self.entry = m.computations.add()
        self.entry.name = "main"
        self.entry.id = 1
        self.by_name = {}
        self.next_allocation = 0
        self.trace = None

    def instruction(
        self,
        iid,
        name,
        opcode,
        element_type,
        dims,
        op_name="",
        source_line=0,
        operands=(),
        parameter_number=None,
        color=0,
    ):
        i = self.entry.instructions.add()
        i.id = iid
        i.name = name
        i.opcode = opcode
        i.shape.CopyFrom(shape(self.hlo, element_type, dims))
        if color:
            i.shape.layout.memory_space = color
        if op_name:
            i.metadata.op_name = op_name
        if source_line:
            i.metadata.source_file = "train.py"
            i.metadata.source_line = source_line
        i.operand_ids.extend(operands)
        if parameter_number is not None:
            i.parameter_number = parameter_number
        self.entry.root_id = iid
        b = self.proto.buffer_assignment.logical_buffers.add()
        b.id = iid
        b.size = shape_bytes(element_type, dims)
        b.color = color
        b.defined_at.instruction_id = iid
        b.defined_at.instruction_name = name
        self.by_name[name] = iid
        return i

    def allocation(self, names, size=None, color=0, parameter=None, live_out=False, aliased=False):
        a = self.proto.buffer_assignment.buffer_allocations.add()
        a.index = self.next_allocation
        self.next_allocation += 1
        sizes = []
        for n in names:
            asg = a.assigned.add()
            asg.logical_buffer_id = self.by_name[n]
            buf = next(b for b in self.proto.buffer_assignment.logical_buffers if b.id == self.by_name[n])
            asg.size = buf.size
            sizes.append(buf.size)
        a.size = size if size is not None else max(sizes)
        a.color = color
        if parameter is not None:
            a.is_entry_computation_parameter = True
            a.parameter_number = parameter
        a.maybe_live_out = live_out
        a.is_parameter_aliased_with_output = aliased
        if aliased:
            e = self.proto.hlo_module.input_output_alias.entries.add()
            e.parameter_number = parameter
            e.output_shape_index.append(parameter)
            e.kind = 2
        return a

    def alloc(self, name, at=None):
        self._trace_event(0, name, at or name)

    def free(self, name, at):
        self._trace_event(1, name, at)

    def _trace_event(self, kind, name, at):
        if self.trace is None:
            self.trace = self.proto.buffer_assignment.heap_simulator_traces.add()
            for a in self.proto.buffer_assignment.buffer_allocations:
                if any(x.logical_buffer_id == self.by_name[name] for x in a.assigned):
                    self.trace.buffer_allocation_index = a.index
        e = self.trace.events.add()
        e.kind = kind
        e.buffer_id = self.by_name[name]
        e.computation_name = "main"
        e.instruction_name = at

    def bytes(self):
        return self.proto.SerializeToString(deterministic=True)
