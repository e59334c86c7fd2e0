#!/usr/bin/python3
"""Makes a big .xplane.pb for benchmarks by repeating the events of a real capture.

Every line of every plane is written N times, each copy shifted later in time by the length of the source
capture, as further XLine entries with the same line id (the same timeline, as the format allows) inside
one XPlane per source plane, so timestamps only grow from one copy to the next. Event bytes are copied as
they are, except the correlation ids (stat correlation_id, which ties a host launch to its device kernel):
each copy gets its own, as a real long capture would have, so copy k's launches find copy k's kernels.
They become ID_BASE + k * ID_STRIDE + the source's id, with ID_BASE chosen so that every id of every copy
has the same varint width (every copy then has the same size). The result has the source's mix of events
and stats, N times over. Memory stays near the size of the source: the output is streamed, with every
message length computed before it is written.

usage: make_big_capture.py OUTPUT [--size 100M|1G|BYTES] [--source CAPTURE]
  default source: tests/data/tf2_gpu_v100x8_bert_multiworker.xplane.pb; default size 100M.
Needs /usr/bin/python3, Debian's python3-protobuf and protoc (to compile core/proto/xplane.proto).
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_MESSAGE = 2**31 - 1


def load_schema():
    out = tempfile.mkdtemp(prefix="oomscope_xplane_py_")
    subprocess.run(
        ["protoc", "-I", os.path.join(ROOT, "core/proto"), "--python_out", out, "xplane.proto"], check=True
    )
    sys.path.insert(0, out)
    import xplane_pb2  # noqa: E402

    return xplane_pb2


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def len_field(number, length):
    return varint((number << 3) | 2) + varint(length)


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().rstrip("B").rstrip("I")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("output")
    ap.add_argument("--size", default="100M", help="target size (e.g. 100M, 1G)")
    ap.add_argument(
        "--source", default=os.path.join(ROOT, "tests/data/tf2_gpu_v100x8_bert_multiworker.xplane.pb")
    )
    args = ap.parse_args()
    target = parse_size(args.size)
    if target >= MAX_MESSAGE:
        sys.exit("make_big_capture: the format caps a capture at 2 GiB")

    xp = load_schema()
    space = xp.XSpace()
    with open(args.source, "rb") as f:
        space.ParseFromString(f.read())

    # The capture's time span: every copy starts after the previous one ends.
    end_ns = 0
    for p in space.planes:
        for line in p.lines:
            last = max((e.offset_ps + e.duration_ps for e in line.events), default=0)
            end_ns = max(end_ns, line.timestamp_ns + (last + 999) // 1000)
    shift_ns = end_ns + 1_000_000

    # Correlation ids: the widest the source uses, the stride between copies, and a base that gives every
    # rewritten id the same varint width.
    def correlation_stat_ids(plane):
        return {k for k, m in plane.stat_metadata.items() if m.name == b"correlation_id"}

    max_id = 0
    for p in space.planes:
        ids = correlation_stat_ids(p)
        for line in p.lines:
            for e in line.events:
                for st in e.stats:
                    if st.metadata_id in ids and st.WhichOneof("value") == "uint64_value":
                        max_id = max(max_id, st.uint64_value)
    id_stride = 1 << max(1, max_id.bit_length())

    def event_parts(e, ids):
        """The event's field bytes as a list: bytes as they are, and for each correlation id the source's
        id (an int), written by the copy that emits it. The rewritten stats go last (field order is free)."""
        kept = xp.XEvent()
        kept.CopyFrom(e)
        del kept.stats[:]
        corr = []
        for st in e.stats:
            if st.metadata_id in ids and st.WhichOneof("value") == "uint64_value":
                corr.append(st)
            else:
                kept.stats.add().CopyFrom(st)
        parts = [kept.SerializeToString()]
        for st in corr:
            head = varint(1 << 3) + varint(st.metadata_id) + varint(3 << 3)
            parts.append((head, st.uint64_value))
        return parts

    def compile_line(parts_list):
        """A line's events as chunks: runs of events without a correlation id as one bytes object, and each
        event with one as (its other fields, [(stat head, source id)])."""
        chunks, run = [], []
        for parts in parts_list:
            if len(parts) == 1:
                run.append(len_field(4, len(parts[0])) + parts[0])
                continue
            if run:
                chunks.append(b"".join(run))
                run = []
            chunks.append((parts[0], parts[1:]))
        if run:
            chunks.append(b"".join(run))
        return chunks

    planes = []  # (plane bytes without lines, [(line header, compiled events)])
    for p in space.planes:
        ids = correlation_stat_ids(p)
        lines = []
        for line in p.lines:
            header = xp.XLine()
            header.CopyFrom(line)
            header.ClearField("events")
            lines.append((header, compile_line([event_parts(e, ids) for e in line.events])))
        rest = xp.XPlane()
        rest.CopyFrom(p)
        rest.ClearField("lines")
        planes.append((rest.SerializeToString(), lines))
    tail = xp.XSpace()
    tail.CopyFrom(space)
    tail.ClearField("planes")
    tail_bytes = tail.SerializeToString()

    def events_bytes(chunks, k):
        out = []
        for chunk in chunks:
            if isinstance(chunk, bytes):
                out.append(chunk)
                continue
            body = [chunk[0]]
            for head, source_id in chunk[1]:
                stat = head + varint(id_base + k * id_stride + source_id)
                body.append(len_field(4, len(stat)) + stat)
            event = b"".join(body)
            out.append(len_field(4, len(event)))
            out.append(event)
        return b"".join(out)

    def header_bytes(header, events_size, k):
        h = xp.XLine()
        h.CopyFrom(header)
        h.timestamp_ns = header.timestamp_ns + k * shift_ns
        hb = h.SerializeToString()
        return len_field(3, len(hb) + events_size) + hb

    # The id width holds for the most copies a 2 GiB file could have, so it is known before the count.
    id_base = 0
    smallest_copy = sum(len(events_bytes(parts, 0)) for _, lines in planes for _, parts in lines)
    most_copies = MAX_MESSAGE // max(smallest_copy, 1) + 1
    width = 1
    while (1 << (7 * (width - 1)) if width > 1 else 0) + most_copies * id_stride + max_id >= 1 << (7 * width):
        width += 1
    id_base = 1 << (7 * (width - 1)) if width > 1 else 0
    # Event bytes per line have the same size in every copy; only the line headers' timestamps vary.
    event_sizes = [[len(events_bytes(parts, 0)) for _, parts in lines] for _, lines in planes]

    def plane_payload_size(rest, lines, sizes, copies):
        size = len(rest)
        for (header, _), events_size in zip(lines, sizes):
            for k in range(copies):
                size += len(header_bytes(header, events_size, k)) + events_size
        return size

    per_copy = sum(plane_payload_size(b"", lines, sizes, 1) for (_, lines), sizes in zip(planes, event_sizes))
    copies = max(1, round((target - len(tail_bytes)) / max(per_copy, 1)))
    total = 0
    with open(args.output, "wb") as out:
        for (rest, lines), sizes in zip(planes, event_sizes):
            size = plane_payload_size(rest, lines, sizes, copies)
            if size >= MAX_MESSAGE:
                sys.exit("make_big_capture: one plane would pass 2 GiB; ask for a smaller size")
            out.write(len_field(1, size) + rest)
            total += len(len_field(1, size)) + len(rest)
            for k in range(copies):
                for (header, parts), events_size in zip(lines, sizes):
                    ev = events_bytes(parts, k)
                    assert len(ev) == events_size
                    head = header_bytes(header, events_size, k)
                    out.write(head)
                    out.write(ev)
                    total += len(head) + len(ev)
        out.write(tail_bytes)
        total += len(tail_bytes)
    events = sum(len(line.events) for p in space.planes for line in p.lines) * copies
    print(
        f"{args.output}: {total:,} bytes, {copies} copies of {os.path.basename(args.source)},"
        f" {events:,} events"
        f" (correlation ids {id_base:,} + copy x {id_stride:,} + the source's)"
    )


if __name__ == "__main__":
    main()
