#!/usr/bin/python3
"""Makes a big .xplane.pb for benchmarks by repeating the events of a real capture.

Every line of every plane is written N times, each copy shifted later in time by the length of the source
capture, as further XLine entries with the same line id (the same timeline, as the format allows) inside
one XPlane per source plane. Event bytes are copied as they are, so the result has the source's mix of
events and stats, N times over. Memory stays near the size of the source: the output is streamed, with
every message length computed before it is written.

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
    subprocess.run(["protoc", "-I", os.path.join(ROOT, "core/proto"), "--python_out", out, "xplane.proto"], check=True)
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
    ap.add_argument("--source", default=os.path.join(ROOT, "tests/data/tf2_gpu_v100x8_bert_multiworker.xplane.pb"))
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

    planes = []  # (plane bytes without lines, [(line header, events field bytes)])
    for p in space.planes:
        lines = []
        for line in p.lines:
            events = b"".join(len_field(4, e.ByteSize()) + e.SerializeToString() for e in line.events)
            header = xp.XLine()
            header.CopyFrom(line)
            header.ClearField("events")
            lines.append((header, events))
        rest = xp.XPlane()
        rest.CopyFrom(p)
        rest.ClearField("lines")
        planes.append((rest.SerializeToString(), lines))
    tail = xp.XSpace()
    tail.CopyFrom(space)
    tail.ClearField("planes")
    tail_bytes = tail.SerializeToString()

    def line_entry(header, events, k):
        h = xp.XLine()
        h.CopyFrom(header)
        h.timestamp_ns = header.timestamp_ns + k * shift_ns
        hb = h.SerializeToString()
        return len_field(3, len(hb) + len(events)) + hb, events

    def plane_payload_size(rest, lines, copies):
        size = len(rest)
        for header, events in lines:
            for k in range(copies):
                head, ev = line_entry(header, events, k)
                size += len(head) + len(ev)
        return size

    per_copy = sum(plane_payload_size(b"", lines, 1) for _, lines in planes)
    copies = max(1, round((target - len(tail_bytes)) / max(per_copy, 1)))
    total = 0
    with open(args.output, "wb") as out:
        for rest, lines in planes:
            size = plane_payload_size(rest, lines, copies)
            if size >= MAX_MESSAGE:
                sys.exit("make_big_capture: one plane would pass 2 GiB; ask for a smaller size")
            out.write(len_field(1, size) + rest)
            total += len(len_field(1, size)) + len(rest)
            for k in range(copies):
                for header, events in lines:
                    head, ev = line_entry(header, events, k)
                    out.write(head)
                    out.write(ev)
                    total += len(head) + len(ev)
        out.write(tail_bytes)
        total += len(tail_bytes)
    events = sum(len(l.events) for p in space.planes for l in p.lines) * copies
    print(f"{args.output}: {total:,} bytes, {copies} copies of {os.path.basename(args.source)}, {events:,} events")


if __name__ == "__main__":
    main()
