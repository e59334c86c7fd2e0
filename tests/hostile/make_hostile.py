#!/usr/bin/env python3
"""Makes crafted hostile or damaged inputs for the reader's tests and the peak-memory benchmark.

Every file is written by raw protobuf wire encoding (no protobuf library needed), or derived from a real
capture in tests/data by a change that is described next to its kind below. Nothing here is committed as
a binary: the tests call this script.

usage: make_hostile.py KIND OUTPUT [--size BYTES] [--copies N] [--source CAPTURE] [--offset N]

kinds:
  zeros            SIZE bytes of zero
  random           SIZE bytes from a fixed-seed generator
  empty-events     one named plane, one line, SIZE bytes of empty XEvent entries (2 bytes each)
  tiny-events      the same with events that hold only a metadata id (4 bytes each)
  empty-lines      one named plane, SIZE bytes of XLine entries that hold only a distinct id
  hostnames        one named plane, SIZE bytes of distinct 1-3 byte hostnames
  empty-hostnames  one named plane, SIZE bytes of empty hostnames
  empty-errors     the source capture followed by SIZE bytes of empty XSpace.errors entries
  errors           the source capture followed by SIZE bytes of one repeated error message
  metadata         one named plane, SIZE bytes of event-metadata entries with distinct ids
  planes           SIZE bytes of tiny planes with distinct names
  joined           the source capture repeated COPIES times (a valid protobuf merge: every plane repeated)
  joined-varied    the same, each copy's planes given another plane id, so that no copy is byte-identical
                   (the reader merges them as one plane written in parts)
  truncated        the source capture cut at OFFSET bytes
  damaged          the source capture with a bad tag (field number 0) where its second top-level field begins
  escape-names     the source with every 'jit_' (module names) replaced by ESC '[2J' and its hostname by
                   ESC ']0;' BEL (same lengths, so the protobuf stays valid)
  bad-utf8-names   the source with every 'jit_' replaced by the invalid UTF-8 bytes FF FE C0 and '_'
  hlo-instructions the source with one more /host:metadata module whose HloProto is one computation of
                   SIZE bytes of empty instructions (2 bytes each on the wire, a message object each in
                   memory)
  hlo-computations the same with SIZE bytes of empty computations
  hlo-metadata     the same with instructions that hold only an empty OpMetadata (4 bytes each)
  hlo-tuple-shapes the same with one instruction whose shape holds SIZE bytes of empty tuple shapes
  hlo-dimensions   the same with one instruction whose shape holds SIZE bytes of packed 1-byte dimensions
  hlo-unknown      the same with SIZE bytes of unknown 2-byte varint fields in the HloProto
  hlo-buffers      the same with SIZE bytes of empty logical buffers in the buffer assignment
  hlo-sidecar      a bare HloProto (a .hlo_proto.pb sidecar) of SIZE bytes of empty instructions
  frees-only       a /host:CPU plane whose allocator events are only frees, with bytes in use that never
                   matches the live allocations
"""
import argparse
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SOURCE = os.path.join(ROOT, "tests/data/jax0.8_rocm_mi300x_gemm.xplane.pb")


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def tag(number, wire_type):
    return varint((number << 3) | wire_type)


def field_len(number, payload):
    return tag(number, 2) + varint(len(payload)) + payload


def field_varint(number, value):
    return tag(number, 0) + varint(value & 0xFFFFFFFFFFFFFFFF)


def plane(name, body=b"", plane_id=1):
    return field_len(1, field_varint(1, plane_id) + field_len(2, name) + body)


def repeated(target, unit):
    return unit * max(1, target // len(unit))


def stat_md(sid, name):
    return field_len(5, field_varint(1, sid) + field_len(2, field_varint(1, sid) + field_len(2, name)))


def event_md(mid, name):
    return field_len(4, field_varint(1, mid) + field_len(2, field_varint(1, mid) + field_len(2, name)))


def stat_int(sid, value):
    return field_len(4, field_varint(1, sid) + field_varint(4, value))


def stat_str(sid, text):
    return field_len(4, field_varint(1, sid) + field_len(5, text))


def frees_only():
    names = [
        b"allocator_name",
        b"bytes_allocated",
        b"addr",
        b"requested_bytes",
        b"allocation_bytes",
        b"bytes_available",
        b"peak_bytes_in_use",
    ]
    body = b"".join(stat_md(i + 1, n) for i, n in enumerate(names))
    body += event_md(1, b"MemoryAllocation") + event_md(2, b"MemoryDeallocation")
    events = b""
    # One allocation of 1 MiB with 1 MiB in use after it (so nothing was in use before), then three frees of
    # 1 MiB at addresses never allocated in the capture, the first of which reports 3 MiB in use (the events
    # say 0).
    mib = 1 << 20
    alloc = (
        field_varint(1, 1)
        + field_varint(2, 1000)
        + stat_str(1, b"GPU_0_bfc")
        + stat_int(2, mib)
        + stat_int(3, 0x1000)
        + stat_int(4, mib)
        + stat_int(5, mib)
        + stat_int(6, 10 * mib)
        + stat_int(7, 5 * mib)
    )
    events += field_len(4, alloc)
    for i in range(3):
        free = (
            field_varint(1, 2)
            + field_varint(2, 2000 + i * 1000)
            + stat_str(1, b"GPU_0_bfc")
            + stat_int(2, (3 - i) * mib)
            + stat_int(3, 0x9000 + i * 0x1000)
            + stat_int(4, mib)
            + stat_int(5, mib)
            + stat_int(6, 10 * mib)
            + stat_int(7, 5 * mib)
        )
        events += field_len(4, free)
    line = field_len(3, field_varint(1, 1) + field_len(2, b"Memory") + field_varint(3, 0) + events)
    return plane(b"/host:CPU", body + line) + field_len(4, b"crafted-host")


HLO_KINDS = (
    "hlo-instructions",
    "hlo-computations",
    "hlo-metadata",
    "hlo-tuple-shapes",
    "hlo-dimensions",
    "hlo-unknown",
    "hlo-buffers",
)


def crafted_hlo(kind, size):
    """An xla.HloProto (core/proto/hlo.proto's field numbers) of about SIZE bytes that is cheap on the wire
    and costly in memory."""
    module_name = field_len(1, b"jit_crafted")
    if kind == "hlo-instructions":
        comp = field_len(1, b"main") + repeated(size, field_len(2, b""))
        return field_len(1, module_name + field_len(3, comp))
    if kind == "hlo-computations":
        return field_len(1, module_name + repeated(size, field_len(3, b"")))
    if kind == "hlo-metadata":
        comp = repeated(size, field_len(2, field_len(7, b"")))
        return field_len(1, module_name + field_len(3, comp))
    if kind in ("hlo-tuple-shapes", "hlo-dimensions"):
        if kind == "hlo-tuple-shapes":
            shape = repeated(size, field_len(4, b""))
        else:
            shape = field_len(3, bytes(max(1, size)))  # packed int64 dimensions, each a 1-byte varint 0
        instr = field_len(1, b"p0") + field_len(2, b"parameter") + field_len(3, shape)
        return field_len(1, module_name + field_len(3, field_len(2, instr)))
    if kind == "hlo-unknown":
        return field_len(1, module_name) + repeated(size, field_varint(15, 0))
    if kind == "hlo-buffers":
        return field_len(1, module_name) + field_len(3, repeated(size, field_len(1, b"")))
    raise SystemExit(f"make_hostile: unknown HLO kind {kind}")


def with_hlo_module(source, hlo):
    """The source capture with one more /host:metadata entry (merged with the source's by name) holding a
    module "jit_crafted(424242)" whose HloProto is `hlo`."""
    stat = field_len(5, field_varint(1, 1) + field_len(6, hlo))
    md = field_len(
        4,
        field_varint(1, 424242)
        + field_len(2, field_varint(1, 424242) + field_len(2, b"jit_crafted(424242)") + stat),
    )
    return source + plane(b"/host:metadata", stat_md(1, b"Hlo Proto") + md, plane_id=424242)


def top_level_fields(data):
    """(number, wire type, payload or value bytes) of every top-level field; length-delimited only."""
    i, out = 0, []
    while i < len(data):
        key, shift = 0, 0
        while True:
            b = data[i]
            i += 1
            key |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        number, wt = key >> 3, key & 7
        if wt != 2:
            raise SystemExit("make_hostile: the source has a top-level field that is not length-delimited")
        length, shift = 0, 0
        while True:
            b = data[i]
            i += 1
            length |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        out.append((number, data[i : i + length]))
        i += length
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind")
    ap.add_argument("output")
    ap.add_argument("--size", type=int, default=1 << 20)
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--source", default=DEFAULT_SOURCE)
    ap.add_argument("--offset", type=int, default=1000)
    a = ap.parse_args()
    size = a.size
    with open(a.source, "rb") as f:
        source = f.read()

    out = open(a.output, "wb")
    kind = a.kind
    if kind == "zeros":
        chunk = bytes(1 << 20)
        left = size
        while left > 0:
            out.write(chunk[: min(left, len(chunk))])
            left -= len(chunk)
    elif kind == "random":
        rng = random.Random(1)
        out.write(bytes(rng.getrandbits(8) for _ in range(size)))
    elif kind in ("empty-events", "tiny-events"):
        unit = field_len(4, b"") if kind == "empty-events" else field_len(4, field_varint(1, 1))
        events = repeated(size, unit)
        line = field_len(3, field_varint(1, 1) + events)
        out.write(plane(b"/host:CPU", event_md(1, b"op") + line))
    elif kind == "empty-lines":
        body = bytearray()
        i = 1
        while len(body) < size:
            body += field_len(3, field_varint(1, i))
            i += 1
        out.write(plane(b"/host:CPU", bytes(body)))
    elif kind in ("hostnames", "empty-hostnames"):
        out.write(plane(b"/host:CPU"))
        if kind == "empty-hostnames":
            out.write(repeated(size, field_len(4, b"")))
        else:
            written, i = 0, 0
            while written < size:
                name = format(i, "x").encode()
                chunk = field_len(4, name)
                out.write(chunk)
                written += len(chunk)
                i += 1
    elif kind in ("empty-errors", "errors"):
        out.write(source)
        unit = field_len(2, b"" if kind == "empty-errors" else b"profiler error: buffer overflow")
        out.write(repeated(size, unit))
    elif kind == "metadata":
        body = bytearray()
        i = 1
        while len(body) < size:
            body += field_len(4, field_varint(1, i))
            i += 1
        out.write(plane(b"/host:CPU", bytes(body)))
    elif kind == "planes":
        written, i = 0, 0
        while written < size:
            chunk = field_len(1, field_len(2, format(i, "x").encode()))
            out.write(chunk)
            written += len(chunk)
            i += 1
    elif kind == "joined":
        for _ in range(a.copies):
            out.write(source)
    elif kind == "joined-varied":
        fields = top_level_fields(source)
        for copy in range(a.copies):
            for number, payload in fields:
                if number == 1:
                    payload = payload + field_varint(1, 1000 + copy)  # the last plane id on the wire wins
                out.write(field_len(number, payload))
    elif kind == "truncated":
        out.write(source[: a.offset])
    elif kind == "damaged":
        # A field number 0 (invalid) where the second top-level field would begin: a valid start, then
        # damage at a known byte.
        first = top_level_fields(source)[0][1]
        header = len(field_len(1, first)) - len(first)
        at = header + len(first)
        out.write(source[:at] + b"\x00\x00" + source[at + 2 :])
    elif kind == "escape-names":
        data = source.replace(b"jit_", b"\x1b[2J")
        host = b"\x22\x05tw003"
        data = data.replace(host, b"\x22\x05\x1b]0;\x07") if data.endswith(host) else data
        out.write(data)
    elif kind == "bad-utf8-names":
        out.write(source.replace(b"jit_", b"\xff\xfe\xc0_"))
    elif kind == "hlo-sidecar":
        out.write(crafted_hlo("hlo-instructions", size))
    elif kind in HLO_KINDS:
        out.write(with_hlo_module(source, crafted_hlo(kind, size)))
    elif kind == "frees-only":
        out.write(frees_only())
    else:
        sys.exit(f"make_hostile: unknown kind '{kind}' (see --help)")
    out.close()


if __name__ == "__main__":
    main()
