#!/usr/bin/env python3
"""Writes hostile pickle files for oomscope's safe pickle reader into OUT_DIR, plus OUT_DIR/expected.txt:
one line per file, "NAME<TAB>text the error message must contain".

usage: make_hostile_pickles.py OUT_DIR [REAL_SNAPSHOT]

Nothing here is ever unpickled by Python: the bytes are assembled by hand (or with pickle.dumps of an
object whose __reduce__ names os.system, which only *writes* the opcodes). REAL_SNAPSHOT, when given,
is cut at several places for truncation cases.
"""
import os
import pickle
import struct
import sys


class Pwn:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def main() -> int:
    out = sys.argv[1]
    real = sys.argv[2] if len(sys.argv) > 2 else None
    os.makedirs(out, exist_ok=True)
    cases = {}

    def add(name, data, expect):
        cases[name] = (data, expect)

    p4 = b"\x80\x04"
    # Code execution attempts: every opcode that names or calls Python code.
    add("reduce_os_system_p4", pickle.dumps(Pwn(), protocol=4), "refused opcode STACK_GLOBAL")
    add("reduce_os_system_p2", pickle.dumps(Pwn(), protocol=2), "refused opcode GLOBAL")
    add("reduce_os_system_p5", pickle.dumps({"segments": [Pwn()]}, protocol=5), "refused opcode STACK_GLOBAL")
    add("global", p4 + b"cos\nsystem\n.", "at byte 2: refused opcode GLOBAL (0x63)")
    add("reduce", p4 + b"]R.", "refused opcode REDUCE")
    add("build", p4 + b"}}b.", "refused opcode BUILD")
    add("inst", p4 + b"(ios\nsystem\n.", "refused opcode INST")
    add("obj", p4 + b"(]o.", "refused opcode OBJ")
    add("newobj", p4 + b"])\x81.", "refused opcode NEWOBJ")
    add("newobj_ex", p4 + b"]))\x92.", "refused opcode NEWOBJ_EX")
    add("persid", p4 + b"P0\n.", "refused opcode PERSID")
    add("binpersid", p4 + b"K\x01Q.", "refused opcode BINPERSID")
    add("ext1", p4 + b"\x82\x01.", "refused opcode EXT1")
    add("ext4", p4 + b"\x84\x01\x00\x00\x00.", "refused opcode EXT4")
    add("next_buffer", b"\x80\x05\x97.", "refused opcode NEXT_BUFFER")
    add("readonly_buffer", b"\x80\x05]\x98.", "refused opcode READONLY_BUFFER")
    add(
        "global_after_data",
        p4 + b"}\x94(\x8c\x08segments\x94]\x94u" + b"\x8c\x02os\x8c\x06system\x93.",
        "refused opcode STACK_GLOBAL",
    )
    # Deep nesting and huge lengths.
    add("deep_marks", p4 + b"(" * 100000 + b".", "nested MARKs")
    add("deep_lists", p4 + b"]" * 200000 + b"a" * 199999 + b".", "malformed")
    add("huge_binunicode", p4 + b"X" + struct.pack("<I", 0xFFFFFFFF) + b"abc", "truncated")
    add("huge_binunicode8", p4 + b"\x8d" + struct.pack("<Q", 1 << 62) + b"abc", "longer than 4 GiB")
    add(
        "huge_long4", p4 + b"\x8b" + struct.pack("<i", 0x7FFFFFFF) + b"\x00", "larger than any snapshot value"
    )
    add("huge_frame", p4 + b"\x95" + struct.pack("<Q", 1 << 40) + b"}.", "a FRAME of")
    add("huge_binbytes8", p4 + b"\x8e" + struct.pack("<Q", (1 << 64) - 1) + b".", "longer than 4 GiB")
    add("long1_10_bytes", p4 + b"\x8a\x0a" + b"\x01" * 10 + b".", "larger than any snapshot value")
    # Memo references to nothing.
    add("binget_empty_memo", p4 + b"h\x05.", "memo reference 5 refers to nothing")
    add("long_binget_huge", p4 + b"}\x94j\xff\xff\xff\xff.", "memo reference 4294967295 refers to nothing")
    add("long_binput_huge", b"\x80\x02}r\xff\xff\xff\xff.", "memo index 4294967295 is out of range")
    add("binget_gap", b"\x80\x02}q\x05h\x02.", "memo reference 2 refers to nothing")
    # Structural damage.
    add("no_stop", p4 + b"}\x94", "no STOP opcode")
    add("stop_empty", p4 + b".", "STOP with nothing on the stack")
    add("setitems_odd", p4 + b"}(K\x01u.", "odd number")
    add("appends_on_dict", p4 + b"}(K\x01e.", "APPENDS without a list")
    add("setitems_no_mark", p4 + b"}K\x01K\x02u.", "SETITEMS has no MARK")
    add("bad_utf8", p4 + b"\x8c\x02\xff\xfe.", "not valid UTF-8")
    add("text_opcode", p4 + b"I42\n.", "unsupported opcode INT")
    add("protocol_9", b"\x80\x09}.", "pickle protocol 9 is not supported")
    add("not_an_opcode", p4 + b"\xff.", "is not a pickle opcode")
    add("cycle", p4 + b"}\x94(\x8c\x08segments\x94]\x94(h\x02h\x00eu.", "malformed")
    add("top_is_int", p4 + b"K\x05.", "its top level is an int")
    if real:
        data = open(real, "rb").read()
        for frac in (0.001, 0.25, 0.5, 0.999):
            cut = max(3, int(len(data) * frac))
            add(f"truncated_{int(frac * 1000)}", data[:cut], "truncated")
        add("truncated_before_stop", data[:-1], "truncated")
    with open(os.path.join(out, "expected.txt"), "w", encoding="utf-8") as f:
        for name, (data, expect) in sorted(cases.items()):
            with open(os.path.join(out, name + ".pickle"), "wb") as g:
                g.write(data)
            f.write(f"{name}\t{expect}\n")
    print(f"wrote {len(cases)} hostile pickles to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
