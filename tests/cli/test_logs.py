#!/usr/bin/env python3
"""Logs through oomscope-cli: the figures of every log in tests/data/logs against the independent reading of
tests/data/tools/read_oom_logs.py; standard input; a log beside a capture; hostile logs made here (binary
data, NUL bytes, a long single line, bidi controls and escape sequences, invalid UTF-8).

usage: test_logs.py CLI DATA_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def run(cli, *args, stdin=None):
    p = subprocess.run([cli, *args], input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def figures_agree(cli, data):
    logs = sorted(
        os.path.join(data, "logs", f) for f in os.listdir(os.path.join(data, "logs")) if f.endswith(".log")
    )
    tool = os.path.join(data, "tools", "read_oom_logs.py")
    independent = json.loads(
        subprocess.run([sys.executable, tool, *logs], stdout=subprocess.PIPE, check=True).stdout
    )
    compared = 0
    for entry in independent:
        name = os.path.basename(entry["file"])
        rc, out, err = run(cli, "report", "--json", "-", entry["file"])
        if not entry["messages"]:
            continue
        check(rc in (0, 1), f"{name}: exit {rc}: {err}")
        doc = json.loads(out)
        for want in entry["messages"]:
            got = [
                m
                for m in doc["messages"]
                if m["kind"] == want["kind"] and m["line"] <= want["line"] <= m["end_line"]
            ]
            check(
                len(got) == 1,
                f"{name}: the {want['kind']} message at line {want['line']} is not in the report",
            )
            if len(got) != 1:
                continue
            for key, value in want["figures"].items():
                fig = got[0]["figures"].get(key)
                have = None if fig is None else fig.get("bytes", fig.get("count"))
                check(
                    have == value,
                    f"{name} line {want['line']}: {key} = {have}, the independent reading says {value}",
                )
                compared += 1
    check(compared >= 150, f"only {compared} figures compared")
    print(f"{compared} figures agree with read_oom_logs.py")


def stdin_and_mixed(cli, data):
    log = os.path.join(data, "logs", "torch-cuda_VSmTrans_3.log")
    with open(log, "rb") as fh:
        text = fh.read()
    rc, out, err = run(cli, "report", "-", stdin=text)
    check(
        rc == 0 and out.startswith(b"== standard input: log of 2 lines"), f"report -: {rc} {out[:80]!r} {err}"
    )
    rc, out, _ = run(cli, "report", "--json", "-", "-", stdin=text)
    check(
        rc == 0 and json.loads(out)["messages"][0]["figures"]["requested"]["bytes"] == 236978176,
        "report --json - -",
    )
    rc, out, err = run(cli, "report", os.path.join(data, "jax0.8_rocm_mi300x_gemm.xplane.pb"), log)
    check(rc == 0 and b"== " + log.encode() in out, f"capture + log: {rc} {err}")
    rc, out, err = run(cli, "report", "-", stdin=b"just some text\nno error here\n")
    check(
        rc == 1
        and "no out-of-memory message found in standard input; it looks like text starting 'just" in err,
        f"no OOM on stdin: {rc} {err}",
    )


def hostile(cli):
    msg = (
        b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
        b"of 7.50 GiB of which 1.00 GiB is free. Of the allocated memory 6.00 GiB is "
        b"allocated by PyTorch, and "
        b"100.00 MiB is reserved by PyTorch but unallocated."
    )
    cases = {
        "binary": os.urandom(1 << 16),
        "nul": b"\0\0\0 start\n" + msg.replace(b"out of", b"out\0 of") + b"\n\0\n",
        "long_line": msg + b"y" * (8 << 20) + b"\n" + msg.replace(b"2.00 GiB", b"3.00 GiB") + b"\n",
        "no_newline": b"z" * (3 << 20) + msg,
        "escapes": b"\x1b]0;owned\x07\x1b[2J"
        + msg.replace(b"GPU 0 has", b"GPU 0\xe2\x80\xae\x1b[31m has")
        + b"\n",
        "invalid_utf8": b"\xff\xfe\xc3(\n" + msg.replace(b"torch.", b"torch\xff.") + b"\n",
        "crlf": msg.replace(b". ", b".\r\n") + b"\r\n",
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, content in cases.items():
            path = os.path.join(tmp, name + ".log")
            with open(path, "wb") as fh:
                fh.write(content)
            for args in (["report", path], ["info", path], ["report", "--json", "-", path]):
                rc, out, err = run(cli, *args)
                check(rc in (0, 1), f"{name} {args[0]}: exit {rc}: {err[-300:]}")
                check("internal error" not in err, f"{name}: internal error")
                if "--json" in args and rc == 0:
                    json.loads(out.decode("utf-8"))  # valid UTF-8 JSON
                else:
                    check(
                        b"\x1b" not in out and b"\x07" not in out and "\x1b" not in err,
                        f"{name} {args[0]}: an escape reached the terminal",
                    )
                    check(
                        "\u202e".encode() not in out, f"{name} {args[0]}: a bidi control reached the terminal"
                    )
                    out.decode("utf-8")  # text is valid UTF-8 (invalid bytes are escaped)
        rc, out, _ = run(cli, "info", os.path.join(tmp, "long_line.log"))
        check(rc == 0 and b"2 messages" in out, f"long line: {out[:200]!r}")
        rc, out, _ = run(cli, "report", os.path.join(tmp, "long_line.log"))
        check(b"1 line is longer than 64 KiB" in out, "long line is named")
        rc, out, _ = run(cli, "report", os.path.join(tmp, "no_newline.log"))
        # A line is read for its first 64 KiB: a message after that in one 3 MiB line is not seen, and the
        # complaint says why.
        rc, out, err = run(cli, "report", os.path.join(tmp, "no_newline.log"))
        check(
            rc == 1 and "1 line longer than 64 KiB, read for the first 64 KiB only" in err,
            f"a message at the end of a long last line: {rc} {err}",
        )
        rc, out, err = run(cli, "report", os.path.join(tmp, "binary.log"))
        check(rc == 1, f"binary: exit {rc}")
        rc, out, _ = run(cli, "report", os.path.join(tmp, "crlf.log"))
        check(rc == 0 and b"wrapped over" in out, f"a message wrapped at each sentence: {out[:300]!r}")


def main():
    cli, data = sys.argv[1], sys.argv[2]
    figures_agree(cli, data)
    stdin_and_mixed(cli, data)
    hostile(cli)
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
