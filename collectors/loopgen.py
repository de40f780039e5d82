"""A deterministic generator of loop kernels for the loop vectorization task (VF x IF).

Each kernel is a standalone C program whose function `kernel()` holds one marked innermost loop:

    MIRTUNE_LOOP_PRAGMA
    for (int i = 0; i < n; i++) { ... }

`MIRTUNE_LOOP_PRAGMA` is empty unless defined on the command line; the VF/IF sweep defines it as
`_Pragma("clang loop vectorize_width(VF) interleave_count(IF)")`, so the file itself (and its hash, and the IR
the encoder reads) is the same for every configuration and the baseline is the file as it stands (LLVM's own
choice). main() initialises the arrays with small integers, calls kernel() REPS times (the scalar argument
changes between calls, so no call can be elided) and prints `checksum: 0x<16 hex digits>`, a hash of the bit
patterns of every output array and of every value kernel() returned.

The checksum is the same for every VF and IF by construction:
- element-wise work does the same IEEE operations per element whether vectorised or not;
- reductions are the only place a vectoriser reorders arithmetic (and an explicit vectorize_width allows it
  to reorder floating-point sums). Every reduced term is a small integer (inputs are 0..15, products at most
  225) and a reduction adds at most 65,536 of them, so every partial sum is an integer below 2**24: exact in
  float and double in any order. Integer reductions of char/short wrap modulo 2**8/2**16, which is also
  associative; int reductions stay far below 2**31 (no signed overflow anywhere);
- in-place recurrences halve the carried value (x >> 1, or x * 0.5) so nothing grows without bound.

The space of kernels: 32 templates (element-wise maps, reductions, conditionals, strided and reversed access,
gathers, loop-carried dependences at several distances, overlapping pointers known only at run time, type
widening, interleaved complex arithmetic, stencils and 2-level nests) x the element types char, short, int,
float and double x variants of trip count (37 ... 30000, known at compile time or only at run time), stride,
dependence distance and pointer aliasing (`restrict` or not). Variants are drawn with a fixed seed, so the
same code always writes the same files. REPS scales the work to roughly 20-100 ms at -O2 on a current x86 core.

    python -m collectors.loopgen [--out collectors/programs/vectorize/kernels] [--check]

writes the kernels (and removes stale generated ones), or with --check verifies the files on disk are exactly
what the generator produces (exit 1 when not).
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

DEFAULT_OUT = Path(__file__).resolve().parent / "programs" / "vectorize" / "kernels"
CALIBRATION = Path(__file__).resolve().parent / "programs" / "vectorize" / "calibration.json"
MARKER = "MIRTUNE_LOOP_PRAGMA"
SEED = 20240605
# REPS: the baseline build (LLVM's own choice, -O2 -march=native) of every kernel should run for TARGET_S.
# calibration.json holds each kernel's measured seconds per call of kernel() at baseline (written by
# --calibrate on the project's build machine); a kernel missing from it gets WORK element-iterations / cost.
TARGET_S = 0.035
WORK = 24_000_000


@dataclass(frozen=True)
class CType:
    name: str  # short name used in file names
    ctype: str  # C spelling
    utype: str  # unsigned integer of the same width, for hashing bit patterns
    is_float: bool


TYPES: dict[str, CType] = {
    "char": CType("char", "signed char", "uint8_t", False),
    "short": CType("short", "short", "uint16_t", False),
    "int": CType("int", "int", "uint32_t", False),
    "float": CType("float", "float", "uint32_t", True),
    "double": CType("double", "double", "uint64_t", True),
}
ALL = tuple(TYPES)
INTS = ("char", "short", "int")


@dataclass(frozen=True)
class Variant:
    """The knobs of one kernel besides its template and type."""

    n: int  # inner trip count
    m: int = 1  # outer trip count (2-level nests)
    known: bool = True  # trip count known at compile time (a macro) or only at run time (a parameter)
    restrict: bool = True  # pointer parameters declared restrict
    stride: int = 1  # stride (strided templates)
    dist: int = 0  # dependence distance (shift templates)


@dataclass(frozen=True)
class Template:
    """A loop body and what it needs.

    `arrays` maps an array name to its length expression (C, in terms of N, M, S, D); `outputs` are hashed into
    the checksum; `body` returns the kernel's statements given the type (the marked loop included);
    `reduce` kernels return a value. `cost` scales REPS down for expensive bodies.
    """

    name: str
    types: tuple[str, ...]
    arrays: dict[str, str]
    outputs: tuple[str, ...]
    body: Callable[[CType, Variant], str]
    reduce: bool = False
    nest: bool = False
    cost: float = 1.0
    index: dict[str, str] = field(default_factory=dict)  # int index arrays: name -> (length, source length)
    u8: tuple[str, ...] = ()  # arrays of unsigned char instead of T
    variants: int = 2
    options: dict[str, tuple] = field(default_factory=dict)  # extra knobs: stride / dist / restrict values


def half(t: CType, x: str) -> str:
    """x halved in T, so a carried value stays bounded: (T)(x >> 1) or x * 0.5."""
    return f"{x} * (T)0.5" if t.is_float else f"(T)({x} >> 1)"


LOOP = f"    {MARKER}\n    for (int i = {{lo}}; i < {{hi}}; i++)"
LOOP2 = f"        {MARKER}\n        for (int i = {{lo}}; i < {{hi}}; i++)"


def loop(body: str, lo: str = "0", hi: str = "n") -> str:
    return LOOP.format(lo=lo, hi=hi) + " {\n" + "".join(f"        {ln}\n" for ln in body.splitlines()) + "    }\n"


def loop2(body: str, lo: str = "0", hi: str = "n") -> str:
    return LOOP2.format(lo=lo, hi=hi) + " {\n" + "".join(f"            {ln}\n" for ln in body.splitlines()) + \
        "        }\n"


def _reduce(body: str, init: str = "0", hi: str = "n") -> str:
    return f"    T acc = (T){init};\n" + loop(body, hi=hi) + "    return acc;\n"


def _templates() -> list[Template]:
    T = Template
    out = [
        T("scale", ALL, {"a": "N", "b": "N"}, ("a",), lambda t, v: loop("a[i] = b[i] * s;")),
        T("saxpy", ALL, {"a": "N", "b": "N", "c": "N"}, ("a",), lambda t, v: loop("a[i] = b[i] * s + c[i];"),
          variants=3),
        T("triad", ALL, {"a": "N", "b": "N", "c": "N", "d": "N"}, ("a",),
          lambda t, v: loop("a[i] = b[i] + c[i] * d[i] + s;")),
        T("inplace", ALL, {"a": "N", "b": "N"}, ("a",), lambda t, v: loop(f"a[i] = {half(t, 'a[i]')} + b[i] * s;")),
        T("sum", ALL, {"b": "N"}, (), lambda t, v: _reduce("acc += b[i];"), reduce=True, variants=3),
        T("dot", ALL, {"b": "N", "c": "N"}, (), lambda t, v: _reduce("acc += b[i] * c[i];"), reduce=True,
          variants=3),
        T("maxred", ALL, {"b": "N", "c": "N"}, (),
          lambda t, v: _reduce("T x = b[i] * s + c[i];\nacc = x > acc ? x : acc;"), reduce=True),
        T("minred", ALL, {"b": "N"}, (),
          lambda t, v: _reduce("T x = b[i] + s;\nacc = x < acc ? x : acc;", init="127"), reduce=True),
        T("condstore", ALL, {"a": "N", "b": "N", "c": "N"}, ("a",),
          lambda t, v: loop("if (b[i] > c[i])\n    a[i] = b[i] - c[i] + s;"), variants=3),
        T("select", ALL, {"a": "N", "b": "N", "c": "N"}, ("a",),
          lambda t, v: loop("a[i] = b[i] > c[i] ? b[i] : c[i] * s;")),
        T("condsum", ALL, {"b": "N", "c": "N"}, (),
          lambda t, v: _reduce("if (b[i] > (T)7)\n    acc += c[i] * s;"), reduce=True),
        T("countif", ALL, {"b": "N", "c": "N"}, (),
          lambda t, v: _reduce("acc += (T)(b[i] == c[i]);"), reduce=True),
        T("absdiff", ALL, {"a": "N", "b": "N", "c": "N"}, ("a",),
          lambda t, v: loop("a[i] = (b[i] > c[i] ? b[i] - c[i] : c[i] - b[i]) * s;")),
        T("poly", ALL, {"a": "N", "b": "N"}, ("a",),
          lambda t, v: loop("T x = b[i];\na[i] = ((x * (T)3 + s) * x + (T)5) * x + (T)1;"), cost=1.5),
        T("divide", ALL, {"a": "N", "b": "N", "c": "N"}, ("a",),
          lambda t, v: loop("a[i] = (b[i] * s + (T)9) / (c[i] + (T)1);"), cost=3.0),
        T("bitops", INTS, {"a": "N", "b": "N", "c": "N"}, ("a",),
          lambda t, v: loop("a[i] = (T)(((b[i] ^ c[i]) & (T)(b[i] << 1)) | (T)(c[i] >> 2)) + s;")),
        T("stride_load", ALL, {"a": "N", "b": "N * S", "c": "N"}, ("a",),
          lambda t, v: loop("a[i] = b[i * S] * s + c[i];"), variants=3, cost=1.5,
          options={"stride": (2, 3, 4, 8)}),
        T("stride_store", ALL, {"a": "N * S", "b": "N", "c": "N"}, ("a",),
          lambda t, v: loop("a[i * S] = b[i] + c[i] * s;"), cost=1.5, options={"stride": (2, 3, 4)}),
        T("interleave", ALL, {"a": "2 * N", "b": "2 * N", "c": "2 * N"}, ("a",),
          lambda t, v: loop("T br = b[2 * i], bi = b[2 * i + 1], cr = c[2 * i], ci = c[2 * i + 1];\n"
                            "a[2 * i] = br * cr - bi * ci + s;\na[2 * i + 1] = br * ci + bi * cr;"), cost=2.0),
        T("reverse", ALL, {"a": "N", "b": "N", "c": "N"}, ("a",),
          lambda t, v: loop("a[i] = b[n - 1 - i] * s + c[i];")),
        T("gather", ALL, {"a": "N", "b": "N", "c": "N"}, ("a",),
          lambda t, v: loop("a[i] = b[idx[i]] * s + c[i];"), index={"idx": "N"}, cost=2.0, variants=3),
        T("gather_dot", ALL, {"b": "N", "c": "N"}, (),
          lambda t, v: _reduce("acc += b[idx[i]] * c[i];"), index={"idx": "N"}, cost=2.0, reduce=True),
        T("widen", ("short", "int", "float", "double"), {"a": "N"}, ("a",),
          lambda t, v: loop("a[i] = (T)w[i] * s + (T)w2[i];"), u8=("w", "w2")),
        T("shift_dep", ALL, {"a": "N + D", "b": "N"}, ("a",),
          lambda t, v: loop(f"a[i + D] = {half(t, 'a[i]')} + b[i] * s;"), cost=1.5,
          options={"dist": (1, 2, 4, 8, 16, 64)}, variants=3),
        T("overlap", ALL, {"a": "N + D", "c": "N"}, ("a",),
          lambda t, v: loop(f"p[i] = {half(t, 'q[i]')} + c[i] * s;"), cost=1.5,
          options={"dist": (1, 3, 8, 32, 128), "restrict": (False,)}),
        T("recurrence", ALL, {"a": "N", "b": "N"}, ("a",),
          lambda t, v: loop(f"a[i] = {half(t, 'a[i - 1]')} + b[i] * s;", lo="1"), cost=4.0),
        T("stencil1d", ALL, {"a": "N", "b": "N"}, ("a",),
          lambda t, v: loop("a[i] = b[i - 1] + b[i] * s + b[i + 1];", lo="1", hi="n - 1")),
        T("matvec", ALL, {"a": "M", "b": "M * N", "c": "N"}, ("a",),
          lambda t, v: "    for (int r = 0; r < M; r++) {\n        T acc = 0;\n"
          + loop2("acc += b[r * N + i] * c[i];") + "        a[r] = acc + s;\n    }\n", nest=True, variants=3),
        T("stencil2d", ALL, {"a": "M * N", "b": "M * N"}, ("a",),
          lambda t, v: "    for (int r = 1; r < M - 1; r++) {\n" + loop2(
              "a[r * N + i] = b[(r - 1) * N + i] + b[(r + 1) * N + i] + b[r * N + i - 1] + b[r * N + i + 1]"
              " + b[r * N + i] * s;", lo="1", hi="n - 1") + "    }\n", nest=True, cost=1.5),
        T("colsum", ALL, {"a": "N", "b": "M * N"}, ("a",),
          lambda t, v: "    for (int i = 0; i < n; i++)\n        a[i] = s;\n    for (int r = 0; r < M; r++) {\n"
          + loop2("a[i] += b[r * N + i];") + "    }\n", nest=True),
        T("transpose", ALL, {"a": "M * N", "b": "M * N"}, ("a",),
          lambda t, v: "    for (int r = 0; r < M; r++) {\n" + loop2("a[i * M + r] = b[r * N + i] + s;")
          + "    }\n", nest=True, cost=2.0),
        T("triangular", ALL, {"a": "M", "b": "M * N", "c": "N"}, ("a",),
          lambda t, v: "    for (int r = 0; r < M; r++) {\n        T acc = 0;\n"
          + loop2("acc += b[r * N + i] * c[i];", hi="(r + 1) * n / M") + "        a[r] = acc + s;\n    }\n",
          nest=True),
    ]
    return out


TEMPLATES: dict[str, Template] = {t.name: t for t in _templates()}
TRIPS = (37, 100, 256, 500, 1000, 1023, 2048, 4096, 10000, 30000)
NEST_TRIPS = ((37, 64), (64, 128), (100, 100), (256, 64), (500, 32), (1000, 16), (1023, 24), (4096, 8))


def _variants(t: Template, rng: random.Random) -> list[Variant]:
    """`t.variants` distinct variants of a template, drawn with `rng`."""
    trips = [(n, m) for n, m in NEST_TRIPS] if t.nest else [(n, 1) for n in TRIPS]
    strides = t.options.get("stride", (1,))
    dists = t.options.get("dist", (0,))
    restricts = t.options.get("restrict", (True, False))
    space = list(itertools.product(trips, (True, False), restricts, strides, dists))
    picked = rng.sample(space, min(t.variants, len(space)))
    out = []
    for (n, m), known, restrict, stride, dist in picked:
        if t.name == "recurrence" and n < 2:
            n = 37
        out.append(Variant(n=n, m=m, known=known, restrict=restrict, stride=stride, dist=dist))
    return out


@dataclass(frozen=True)
class Kernel:
    """One generated kernel: its name, template, type, variant and the C text."""

    name: str
    template: str
    type: str
    variant: Variant
    reps: int
    source: str


def load_calibration(path: str | Path | None = CALIBRATION) -> dict[str, float]:
    """name -> measured seconds per kernel() call at baseline ({} when there is no file)."""
    import json

    if path is None or not Path(path).exists():
        return {}
    return {str(k): float(v) for k, v in json.loads(Path(path).read_text()).items()}


def _reps(t: Template, v: Variant, per_call_s: float | None = None) -> int:
    if per_call_s is not None and per_call_s > 0:
        return max(1, int(round(TARGET_S / per_call_s)))
    elems = v.n * v.m
    return max(1, int(round(WORK / (elems * t.cost))))


def render(t: Template, ty: CType, v: Variant, name: str, per_call_s: float | None = None) -> Kernel:
    """The C program for template `t`, type `ty` and variant `v` (REPS from `per_call_s` when given)."""
    reps = _reps(t, v, per_call_s)
    r = "restrict " if v.restrict else ""
    params: list[str] = []
    args: list[str] = []
    is_overlap = t.name == "overlap"
    for arr in t.arrays:
        if is_overlap and arr == "a":
            params += [f"T *{r}p", f"const T *{r}q"]
            args += ["g_a + D", "g_a"]
            continue
        const = "" if arr in t.outputs else "const "
        params.append(f"{const}T *{r}{arr}")
        args.append(f"g_{arr}")
    for arr in t.u8:
        params.append(f"const unsigned char *{r}{arr}")
        args.append(f"g_{arr}")
    for arr in t.index:
        params.append(f"const int *{r}{arr}")
        args.append(f"g_{arr}")
    params += ["int n", "T s"]
    args += ["n", "(T)((rep & 3) + 1)"]
    ret = "T" if t.reduce else "void"
    body = t.body(ty, v)
    if v.known:
        # the trip count is the macro N: a compile-time constant inside kernel()
        body = "    (void)n;\n" + body.replace("i < n", "i < N").replace("n - 1", "N - 1").replace(
            "* n / M", "* N / M")
    lines = [
        f"/* mirtune loop kernel {name} (generated by collectors/loopgen.py; do not edit, regenerate instead)",
        f" * template: {t.name}; type: {ty.name}; trip: {v.n}; outer: {v.m}; trip known at compile time: "
        f"{'yes' if v.known else 'no'}; restrict: {'yes' if v.restrict else 'no'}; stride: {v.stride}; "
        f"distance: {v.dist}; reps: {reps}",
        " *",
        f" * The innermost loop of kernel() is marked with {MARKER}. Build as it is for LLVM's own choice, or with",
        f" *   -D'{MARKER}=_Pragma(\"clang loop vectorize_width(8) interleave_count(2)\")'",
        " * to force a vectorization factor (VF) and an interleave count (IF). The checksum is the same for every",
        " * VF and IF: inputs are small integers, so every reduction is exact in any order. */",
        "#include <stdint.h>",
        "#include <stdio.h>",
        "#include <stddef.h>",
        "",
        f"#ifndef {MARKER}",
        f"#define {MARKER}",
        "#endif",
        "",
        f"#define N {v.n}",
        f"#define M {v.m}",
        f"#define S {v.stride}",
        f"#define D {max(v.dist, 0)}",
        f"#define REPS {reps}L",
        "",
        f"typedef {ty.ctype} T;",
        "",
    ]
    for arr, length in t.arrays.items():
        lines.append(f"static T g_{arr}[{length}];")
    for arr in t.u8:
        lines.append(f"static unsigned char g_{arr}[N];")
    for arr, length in t.index.items():
        lines.append(f"static int g_{arr}[{length}];")
    lines += [
        "",
        "/* not static: its callers are unknown to the optimiser, so its pointers may alias unless restrict says",
        " * otherwise, and a run-time trip count stays unknown */",
        f"__attribute__((noinline)) {ret} kernel({', '.join(params)});",
        f"__attribute__((noinline)) {ret} kernel({', '.join(params)})",
        "{",
        body.rstrip("\n"),
        "}",
        "",
        "static uint64_t hash_bytes(uint64_t h, const void *p, size_t len)",
        "{",
        "    const unsigned char *c = (const unsigned char *)p;",
        "    for (size_t i = 0; i < len; i++)",
        "        h = (h ^ c[i]) * 1099511628211ULL;",
        "    return h;",
        "}",
        "",
        "static uint32_t lcg(uint32_t *state)",
        "{",
        "    *state = *state * 1664525u + 1013904223u;",
        "    return (*state >> 16) & 15u; /* small integers: exact in every type and every order */",
        "}",
        "",
        "volatile int trip = N; /* read at run time */",
        "",
        "int main(void)",
        "{",
        "    uint32_t state = 12345u;",
    ]
    for arr, length in t.arrays.items():
        lines.append(f"    for (long k = 0; k < (long)({length}); k++)")
        lines.append(f"        g_{arr}[k] = (T)lcg(&state);")
    for arr in t.u8:
        lines.append("    for (long k = 0; k < N; k++)")
        lines.append(f"        g_{arr}[k] = (unsigned char)lcg(&state);")
    for arr, length in t.index.items():
        lines.append(f"    for (long k = 0; k < (long)({length}); k++)")
        lines.append(f"        g_{arr}[k] = (int)((k * 7919L + 13L * lcg(&state)) % N);")
    lines += [
        "    /* called through a volatile pointer: main cannot hoist, merge or drop any call */",
        f"    {ret} (*volatile run)({', '.join(params)}) = kernel;",
        "    int n = trip;",
        "    uint64_t chk = 1469598103934665603ULL;",
        "    for (long rep = 0; rep < REPS; rep++) {",
    ]
    call = f"run({', '.join(args)})"
    if t.reduce:
        lines += [f"        T r = {call};",
                  "        chk = chk * 1000003ULL + (uint64_t)(int64_t)r;"]
    else:
        lines.append(f"        {call};")
    lines.append("    }")
    for arr in t.outputs:
        lines.append(f"    chk = hash_bytes(chk, g_{arr}, sizeof(g_{arr}));")
    lines += [
        '    printf("checksum: 0x%016llx\\n", (unsigned long long)chk);',
        "    return 0;",
        "}",
        "",
    ]
    return Kernel(name, t.name, ty.name, v, reps, "\n".join(lines))


def generate(calibration: dict[str, float] | None = None) -> list[Kernel]:
    """Every kernel, in a fixed order, with unique names `<template>_<type>_<k>`.

    `calibration` (default: calibration.json) sets each kernel's REPS; an empty dict uses the WORK formula.
    """
    cal = load_calibration() if calibration is None else calibration
    rng = random.Random(SEED)
    kernels: list[Kernel] = []
    for t in TEMPLATES.values():
        for tn in t.types:
            for k, v in enumerate(_variants(t, rng)):
                name = f"{t.name}_{tn}_{k}"
                kernels.append(render(t, TYPES[tn], v, name, cal.get(name)))
    return kernels


def calibrate(kernels: list[Kernel], runs: int = 3, jobs: int = 2) -> dict[str, float]:
    """Build every kernel as it is (the baseline) and time it: seconds per kernel() call.

    The time of a program that does nothing (process start) is subtracted; the fastest of `runs` runs counts.
    """
    import subprocess
    import tempfile
    import time
    from concurrent.futures import ThreadPoolExecutor

    from mirtune.ir.frontend import compile_executable

    def fastest(exe: Path) -> float:
        best = float("inf")
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run([str(exe)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            best = min(best, time.perf_counter() - t0)
        return best

    with tempfile.TemporaryDirectory(prefix="mirtune-loopgen-") as tmp:
        folder = Path(tmp)
        empty = folder / "empty.c"
        empty.write_text('#include <stdio.h>\nint main(void) { printf("checksum: 0\\n"); return 0; }\n')
        compile_executable(empty, folder / "empty", opt=2)

        def build(k: Kernel) -> Path:
            src = folder / f"{k.name}.c"
            src.write_text(k.source)
            compile_executable(src, folder / k.name, opt=2)
            return folder / k.name

        with ThreadPoolExecutor(jobs) as pool:
            exes = list(pool.map(build, kernels))
        start = fastest(folder / "empty")
        out = {}
        for k, exe in zip(kernels, exes):
            out[k.name] = max(fastest(exe) - start, 1e-7) / k.reps
    return out


def write(out: str | Path = DEFAULT_OUT) -> list[Path]:
    """Write every kernel into `out` as <name>.c; remove generated files that are no longer produced."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    kernels = generate()
    names = {f"{k.name}.c" for k in kernels}
    for old in out.glob("*.c"):
        if old.name not in names and "generated by collectors/loopgen.py" in old.read_text(errors="replace"):
            old.unlink()
    paths = []
    for k in kernels:
        p = out / f"{k.name}.c"
        if not p.exists() or p.read_text() != k.source:
            p.write_text(k.source)
        paths.append(p)
    return paths


def check(out: str | Path = DEFAULT_OUT) -> list[str]:
    """Differences between the files in `out` and what the generator produces (empty: identical)."""
    out = Path(out)
    problems = []
    kernels = generate()
    for k in kernels:
        p = out / f"{k.name}.c"
        if not p.exists():
            problems.append(f"missing {p.name}")
        elif p.read_text() != k.source:
            problems.append(f"differs {p.name}")
    names = {f"{k.name}.c" for k in kernels}
    problems += [f"extra {p.name}" for p in sorted(out.glob("*.c")) if p.name not in names]
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m collectors.loopgen", description=__doc__.strip().splitlines()[0])
    ap.add_argument("--out", default=str(DEFAULT_OUT), help="directory for the kernels")
    ap.add_argument("--check", action="store_true", help="verify the files instead of writing them")
    ap.add_argument("--calibrate", action="store_true",
                    help="time every kernel's baseline here, rewrite calibration.json, then write the kernels")
    args = ap.parse_args(argv)
    if args.calibrate:
        import json

        cal = calibrate(generate())
        CALIBRATION.write_text(json.dumps({k: float(f"{v:.4g}") for k, v in sorted(cal.items())}, indent=0)
                               + "\n")
        print(f"calibrated {len(cal)} kernels into {CALIBRATION}")
    if args.check:
        problems = check(args.out)
        for p in problems[:20]:
            print(p, file=sys.stderr)
        print(f"{len(generate())} kernels; {len(problems)} difference(s)")
        return 1 if problems else 0
    paths = write(args.out)
    print(f"wrote {len(paths)} kernels to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
