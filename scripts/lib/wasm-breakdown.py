#!/usr/bin/env python3
"""Where a .wasm's bytes are: the size of each function body, grouped by the Rust module
path its (demangled) name starts with, and the data segments. Reads a module that still
has its "name" section (wasm-bindgen's output, before wasm-opt strips it); sizes are raw
bytes, before wasm-opt and gzip (which shrink every group, not all by the same ratio).

    python3 scripts/lib/wasm-breakdown.py MODULE.wasm [--top N] [--depth D] [--functions N]
"""
import argparse
import re
import sys
from collections import Counter


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def sections(d):
    if d[:4] != b"\0asm":
        sys.exit("not a wasm module")
    i = 8
    while i < len(d):
        sid = d[i]
        n, j = leb(d, i + 1)
        yield sid, d[j : j + n]
        i = j + n


def imported_functions(body):
    count, i = leb(body, 0)
    funcs = 0
    for _ in range(count):
        for _ in range(2):  # module, field
            n, i = leb(body, i)
            i += n
        kind = body[i]
        i += 1
        if kind == 0:
            _, i = leb(body, i)
            funcs += 1
        elif kind == 1:  # table: reftype, limits
            i += 1
            flags = body[i]
            _, i = leb(body, i + 1)
            if flags & 1:
                _, i = leb(body, i)
        elif kind == 2:  # memory: limits
            flags = body[i]
            _, i = leb(body, i + 1)
            if flags & 1:
                _, i = leb(body, i)
        elif kind == 3:  # global: valtype, mut
            i += 2
        else:
            sys.exit(f"unknown import kind {kind}")
    return funcs


def function_names(body):
    names = {}
    i = 0
    while i < len(body):
        sub = body[i]
        n, i = leb(body, i + 1)
        if sub == 1:
            j = i
            count, j = leb(body, j)
            for _ in range(count):
                idx, j = leb(body, j)
                ln, j = leb(body, j)
                names[idx] = body[j : j + ln].decode("utf-8", "replace")
                j += ln
        i += n
    return names


def demangle(name):
    """A legacy Rust symbol (`_ZN…E`) as `a::b::c`; other names as they are."""
    m = re.match(r"_ZN(.*)E$", name)
    if not m:
        return name
    s, parts = m.group(1), []
    while s and s[0].isdigit():
        n = re.match(r"\d+", s).group(0)
        s = s[len(n) :]
        parts.append(s[: int(n)])
        s = s[int(n) :]
    if parts and re.match(r"h[0-9a-f]{16}$", parts[-1]):
        parts.pop()
    return "::".join(parts).replace("$LT$", "<").replace("$GT$", ">").replace("$u20$", " ")


def group(name, depth):
    """The module path a function is charged to: the first crate named in it (the
    implementing type's, for `<T as Trait>::f`), `depth` segments deep."""
    name = demangle(name)
    paths = re.findall(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[0-9a-f]+\])?(?:::[A-Za-z_][A-Za-z0-9_]*)+", name)
    if not paths:
        return "(exports and glue)" if "::" not in name else name
    segs = [re.sub(r"\[[0-9a-f]+\]$", "", p) for p in paths[0].split("::")]
    # A generic in std/core/alloc instantiated for a type of ours: charge it to ours.
    if segs[0] in ("core", "alloc", "std") and len(paths) > 1:
        for p in paths[1:]:
            first = re.sub(r"\[[0-9a-f]+\]$", "", p.split("::")[0])
            if first.startswith("toolgate"):
                segs = [re.sub(r"\[[0-9a-f]+\]$", "", x) for x in p.split("::")]
                break
    keep = depth + 1 if segs[0].startswith("toolgate") else depth
    return "::".join(segs[:keep])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("module")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--functions", type=int, default=0)
    a = ap.parse_args()
    d = open(a.module, "rb").read()
    imports, bodies, data, names = 0, [], 0, {}
    for sid, body in sections(d):
        if sid == 2:
            imports = imported_functions(body)
        elif sid == 10:
            count, i = leb(body, 0)
            for _ in range(count):
                n, j = leb(body, i)
                bodies.append(j + n - i)
                i = j + n
        elif sid == 11:
            data = len(body)
        elif sid == 0:
            ln, i = leb(body, 0)
            if body[i : i + ln] == b"name":
                names = function_names(body[i + ln :])
    if not names:
        sys.exit(f"{a.module}: no name section (measure wasm-bindgen's output, before wasm-opt)")
    groups, funcs = Counter(), []
    for k, size in enumerate(bodies):
        name = names.get(imports + k, f"func{imports + k}")
        groups[group(name, a.depth)] += size
        funcs.append((size, demangle(name)))
    total = sum(bodies) + data
    print(f"{'bytes':>8} {'%':>5}  code by module (raw, before wasm-opt; {len(bodies)} functions)")
    for g, size in groups.most_common(a.top):
        print(f"{size:8d} {100 * size / total:5.1f}  {g}")
    rest = sum(groups.values()) - sum(s for _, s in groups.most_common(a.top))
    print(f"{rest:8d} {100 * rest / total:5.1f}  … {max(0, len(groups) - a.top)} more")
    print(f"{data:8d} {100 * data / total:5.1f}  data (string and table constants)")
    for size, name in sorted(funcs, reverse=True)[: a.functions]:
        print(f"{size:8d}        {name[:150]}")


if __name__ == "__main__":
    main()
