#!/usr/bin/env python3
"""Live bytes by category of JAX device memory profiles under a category rules file, read independently of
oomscope: its own protobuf wire reader for the gzip'd pprof Profile, Python's `re` for the expressions, and
the rule semantics of docs/categories.md and docs/pytorch-files.md (the first rule in file order that
matches decides; frame / file / function on any frame of the sample's stack, site on the innermost frame
outside JAX; annotation / metadata / compile_context match nothing; no rule: unknown).

usage: pprof_categories.py RULES A.prof [B.prof ...]
Prints JSON: for each profile, {category: [bytes, samples]}.
"""
import gzip
import json
import re
import sys


def varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def fields(buf):
    """(field number, wire type, value) of a message: ints for varints, bytes for length-delimited."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 2:
            n, i = varint(buf, i)
            value, i = buf[i : i + n], i + n
        elif wire == 1:
            value, i = buf[i : i + 8], i + 8
        elif wire == 5:
            value, i = buf[i : i + 4], i + 4
        else:
            raise ValueError(f"wire type {wire}")
        yield number, wire, value


def ints(wire, value):
    """A repeated integer field, packed or not."""
    if wire == 0:
        return [value]
    out, i = [], 0
    while i < len(value):
        v, i = varint(value, i)
        out.append(v)
    return out


def read_profile(path):
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    strings, types, samples, locations, functions = [], [], [], {}, {}
    for number, wire, value in fields(data):
        if number == 6:
            strings.append(value.decode("utf-8", "replace"))
        elif number == 1:
            t = dict((n, v) for n, w, v in fields(value))
            types.append((t.get(1, 0), t.get(2, 0)))
        elif number == 2:
            locs, vals = [], []
            for n, w, v in fields(value):
                if n == 1:
                    locs += ints(w, v)
                elif n == 2:
                    vals += ints(w, v)
            samples.append((locs, vals))
        elif number == 4:
            loc_id, lines = 0, []
            for n, w, v in fields(value):
                if n == 1:
                    loc_id = v
                elif n == 4:
                    line = dict((n2, v2) for n2, w2, v2 in fields(v))
                    lines.append((line.get(1, 0), line.get(2, 0)))
            locations[loc_id] = lines
        elif number == 5:
            f = dict((n, v) for n, w, v in fields(value))
            functions[f.get(1, 0)] = (f.get(2, 0), f.get(4, 0))

    def s(i):
        return strings[i] if i < len(strings) else ""

    space = next((k for k, (t, u) in enumerate(types) if s(u) == "bytes"), None)
    out = []
    for locs, vals in samples:
        stack = []
        for loc in locs:
            for fn_id, line in locations.get(loc, []):
                name, filename = functions.get(fn_id, (0, 0))
                stack.append((s(filename), s(name), line))
        nbytes = vals[space] if space is not None and space < len(vals) else 0
        if nbytes >= 1 << 63:
            nbytes -= 1 << 64
        out.append((stack, nbytes))
    return out


def jax_internal(f):
    return any(x in f for x in ("/jax/", "/jaxlib/", "site-packages", "/lib/python", "<frozen"))


def site(stack):
    where = "(no stack)"
    for i, (f, name, line) in enumerate(stack):
        if i == 0 or not jax_internal(f):
            where = f"{f}:{line} ({name})"
        if not jax_internal(f):
            break
    return where


def read_rules(path):
    rules = []
    for raw in open(path, encoding="utf-8"):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        target, rest = line.split(None, 1)
        pattern, category = rest.rsplit("->", 1)
        rules.append((target, re.compile(pattern.strip()), category.strip()))
    return rules


def category(rules, stack):
    for target, rx, name in rules:
        if target == "frame" and any(rx.search(f"{f}:{line} in {n}") for f, n, line in stack):
            return name
        if target == "file" and any(rx.search(f) for f, n, line in stack):
            return name
        if target == "function" and any(rx.search(n) for f, n, line in stack):
            return name
        if target == "site" and rx.search(site(stack)):
            return name
    return "unknown"


def main():
    rules = read_rules(sys.argv[1])
    result = []
    for path in sys.argv[2:]:
        by = {}
        for stack, nbytes in read_profile(path):
            row = by.setdefault(category(rules, stack), [0, 0])
            row[0] += nbytes
            row[1] += 1
        result.append(by)
    json.dump(result, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
