"""A random program generator: the pre-training corpus that needs no outside data.

`generate(n, seed)` returns `n` small programs, each deterministic from (seed, index): program i is the same
whatever `n` is, so a larger corpus extends a smaller one. The languages take turns (C, OpenCL, CUDA by
default). Every program is built from the same kernel shapes, rendered for its language:

- element-wise maps, row and full reductions, 1-3D stencils (sometimes with a time loop and pointer swaps),
  matrix products (plain and, on GPUs, tiled through local/shared memory), gathers and histograms (atomics),
  structure-of-records updates with pairwise interactions, pointer walks, prefix scans, transposes, and
  branchy code (if/else chains, switch, while loops with an iteration cap);
- loop nests 1-3 deep with varied bounds (parameters, constants, triangular), strides and directions;
- int, float or double elements (int index arrays besides), scalar and looping helper functions that the
  kernels call (and that call each other), constant coefficient tables, structs;
- C: OpenMP pragmas on about two thirds of the programs (parallel for, collapse, reduction, schedule with
  and without chunk, simd, atomic, parallel regions with nowait loops) and a driver function that allocates
  buffers and calls the kernels;
- OpenCL and CUDA: get_global_id / blockIdx*blockDim+threadIdx indexing, guards and grid-stride loops, local
  (__local / __shared__) tiles with barriers, work-group attributes.

The programs are only compiled, never run, but they are written as if they would be (bounds respected,
no division by zero, no uninitialised reads), so that the optimiser sees realistic code.
"""

from __future__ import annotations

import hashlib
import random
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

LANGS = ("c", "opencl", "cuda")
SUFFIX = {"c": ".c", "opencl": ".cl", "cuda": ".cu"}

_VERBS = ("compute", "update", "apply", "step", "accumulate", "transform", "scale", "relax", "mix", "blend",
          "smooth", "filter", "reduce", "gather", "scatter", "sweep", "fold", "project", "advance", "solve")
_NOUNS = ("grid", "field", "rows", "cells", "values", "signal", "matrix", "vec", "points", "bins", "mesh",
          "image", "state", "flux", "weights", "buffer", "block", "tile", "lattice", "samples")
_HELPER_NAMES = ("combine", "weight", "clampv", "lerp", "fma3", "blendv", "saturate", "kernel_fn", "mixv",
                 "curve", "poly", "damp", "ramp", "squash", "score", "cost", "gain", "shape_fn")
_STRUCT_NAMES = ("Particle", "Cell", "Body", "Sample", "Node", "Point", "Record", "Atom")
_FIELD_NAMES = ("x", "y", "z", "vx", "vy", "vz", "mass", "charge", "w", "energy", "temp", "p")


@dataclass(frozen=True)
class GeneratedProgram:
    """One generated source file: `name` (unique per seed and index), language, text, needs -fopenmp."""

    name: str
    lang: str
    source: str
    openmp: bool
    seed: int = 0
    index: int = 0

    @property
    def filename(self) -> str:
        return self.name + SUFFIX[self.lang]


def generate(n: int, seed: int = 0, langs: tuple[str, ...] | list[str] = LANGS,
             start: int = 0) -> list[GeneratedProgram]:
    """Programs start..start+n-1 of the stream for `seed`; languages take turns in the order of `langs`."""
    langs = tuple(langs)
    if not langs:
        raise ValueError("langs must name at least one language")
    for lang in langs:
        if lang not in LANGS:
            raise ValueError(f"unknown language {lang!r}; choose from {', '.join(LANGS)}")
    if n < 0 or start < 0:
        raise ValueError("n and start must be >= 0")
    return [generate_one(seed, i, langs[i % len(langs)]) for i in range(start, start + n)]


def generate_one(seed: int, index: int, lang: str) -> GeneratedProgram:
    """Program `index` of the stream for `seed`, in `lang`."""
    digest = hashlib.sha256(f"mirtune-generator:{seed}:{index}:{lang}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "little"))
    prog = _Program(rng, _DIALECTS[lang]())
    source = prog.build()
    name = f"gen-s{seed}-{index:06d}-{lang}"
    return GeneratedProgram(name, lang, source, prog.openmp, seed, index)


# --------------------------------------------------------------------------------------------- output


class _Out:
    """Lines with indentation."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0
        self.region_ends: list[int] = []  # depths at which an open `{` region closes with the next block

    def __call__(self, line: str) -> None:
        self.lines.append("    " * self.depth + line if line else "")

    @contextmanager
    def block(self, head: str) -> Iterator[None]:
        self(head + " {")
        self.depth += 1
        yield
        self.depth -= 1
        self("}")
        while self.region_ends and self.region_ends[-1] == self.depth:
            self.region_ends.pop()
            self.depth -= 1
            self("}")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


# --------------------------------------------------------------------------------------------- dialects


class _Dialect:
    """How one language spells the shared shapes."""

    lang = "c"
    gpu = False
    gq = ""  # address space of global pointers
    restrict = "restrict"

    def ptr(self, t: str, const: bool = False) -> str:
        return f"{self.gq}{'const ' if const else ''}{t} *"

    def kernel_head(self, name: str, params: str, attrs: str = "") -> str:
        return f"void {name}({params})"

    def helper_head(self, ret: str, name: str, params: str) -> str:
        return f"static {ret} {name}({params})"

    def unary_math(self, t: str) -> list[str]:
        if t == "float":
            return ["sqrtf", "expf", "fabsf", "sinf", "cosf", "tanhf", "floorf", "logf"]
        if t == "double":
            return ["sqrt", "exp", "fabs", "sin", "cos", "tanh", "floor", "log"]
        return []

    def binary_math(self, t: str) -> list[str]:
        if t == "float":
            return ["fminf", "fmaxf", "powf"]
        if t == "double":
            return ["fmin", "fmax", "pow"]
        return []

    def int_abs(self, x: str) -> str:
        return f"abs({x})"

    def int_minmax(self, op: str, a: str, b: str) -> str:
        cmp = "<" if op == "min" else ">"
        return f"(({a}) {cmp} ({b}) ? ({a}) : ({b}))"

    def preamble(self, prog: "_Program") -> list[str]:
        lines = ["#include <math.h>", "#include <stdlib.h>"]
        if prog.uses_omp_header:
            lines.append("#include <omp.h>")
        return lines

    def const_table(self, t: str, name: str, values: list[str]) -> str:
        return f"static const {t} {name}[{len(values)}] = {{{', '.join(values)}}};"


class _C(_Dialect):
    pass


class _OpenCL(_Dialect):
    lang = "opencl"
    gpu = True
    gq = "__global "
    restrict = "restrict"

    def kernel_head(self, name: str, params: str, attrs: str = "") -> str:
        return f"__kernel {attrs}void {name}({params})".replace("  ", " ")

    def helper_head(self, ret: str, name: str, params: str) -> str:
        return f"{ret} {name}({params})"

    def unary_math(self, t: str) -> list[str]:
        return ["sqrt", "exp", "fabs", "sin", "cos", "tanh", "floor", "log"] if t != "int" else []

    def binary_math(self, t: str) -> list[str]:
        return ["fmin", "fmax", "pow"] if t != "int" else []

    def int_abs(self, x: str) -> str:
        return f"(int)abs({x})"

    def int_minmax(self, op: str, a: str, b: str) -> str:
        return f"{op}({a}, {b})"

    def preamble(self, prog: "_Program") -> list[str]:
        return ["#pragma OPENCL EXTENSION cl_khr_fp64 : enable"] if prog.uses_double else []

    def const_table(self, t: str, name: str, values: list[str]) -> str:
        return f"__constant {t} {name}[{len(values)}] = {{{', '.join(values)}}};"

    def gid(self, d: int) -> str:
        return f"get_global_id({d})"

    def lid(self, d: int) -> str:
        return f"get_local_id({d})"

    def group(self, d: int) -> str:
        return f"get_group_id({d})"

    def lsize(self, d: int) -> str:
        return f"get_local_size({d})"

    def gsize(self, d: int) -> str:
        return f"get_global_size({d})"

    def barrier(self) -> str:
        return "barrier(CLK_LOCAL_MEM_FENCE);"

    def local_array(self, t: str, name: str, dims: str) -> str:
        return f"__local {t} {name}{dims};"

    def atomic_add(self, t: str, target: str, value: str) -> str | None:
        return f"atomic_add(&{target}, {value});" if t == "int" else None

    def kernel_attrs(self, rng: random.Random, size: int) -> str:
        return f"__attribute__((reqd_work_group_size({size}, 1, 1))) " if rng.random() < 0.2 else ""


class _Cuda(_Dialect):
    lang = "cuda"
    gpu = True
    gq = ""
    restrict = "__restrict__"
    _axes = "xyz"

    def kernel_head(self, name: str, params: str, attrs: str = "") -> str:
        return f"__global__ void {attrs}{name}({params})"

    def helper_head(self, ret: str, name: str, params: str) -> str:
        return f"__device__ {ret} {name}({params})"

    def unary_math(self, t: str) -> list[str]:
        if t == "float":
            return ["sqrtf", "expf", "fabsf", "sinf", "cosf", "logf"]
        if t == "double":
            return ["sqrt", "exp", "fabs"]
        return []

    def binary_math(self, t: str) -> list[str]:
        return ["fminf", "fmaxf", "powf"] if t == "float" else []

    def int_abs(self, x: str) -> str:
        return f"(({x}) < 0 ? -({x}) : ({x}))"

    def int_minmax(self, op: str, a: str, b: str) -> str:
        return f"{op}({a}, {b})"

    def preamble(self, prog: "_Program") -> list[str]:
        return []

    def const_table(self, t: str, name: str, values: list[str]) -> str:
        return f"__constant__ {t} {name}[{len(values)}] = {{{', '.join(values)}}};"

    def gid(self, d: int) -> str:
        a = self._axes[d]
        return f"blockIdx.{a} * blockDim.{a} + threadIdx.{a}"

    def lid(self, d: int) -> str:
        return f"threadIdx.{self._axes[d]}"

    def group(self, d: int) -> str:
        return f"blockIdx.{self._axes[d]}"

    def lsize(self, d: int) -> str:
        return f"blockDim.{self._axes[d]}"

    def gsize(self, d: int) -> str:
        a = self._axes[d]
        return f"blockDim.{a} * gridDim.{a}"

    def barrier(self) -> str:
        return "__syncthreads();"

    def local_array(self, t: str, name: str, dims: str) -> str:
        return f"__shared__ {t} {name}{dims};"

    def atomic_add(self, t: str, target: str, value: str) -> str | None:
        return f"atomicAdd(&{target}, {value});" if t in ("int", "float") else None

    def kernel_attrs(self, rng: random.Random, size: int) -> str:
        return f"__launch_bounds__({size}) " if rng.random() < 0.2 else ""


_DIALECTS = {"c": _C, "opencl": _OpenCL, "cuda": _Cuda}


# --------------------------------------------------------------------------------------------- programs


@dataclass
class _Helper:
    name: str
    arity: int  # scalar helpers: T f(T, ...); -1: T f(const T *x, const T *y, int len)


@dataclass
class _Param:
    kind: str  # out in iout idx n s struct
    name: str
    ctype: str = ""

    def render(self, d: _Dialect, t: str, restrict: bool) -> str:
        r = f"{d.restrict} " if restrict else ""
        if self.kind == "out":
            return f"{d.gq}{t} *{r}{self.name}"
        if self.kind == "in":
            return f"{d.gq}const {t} *{r}{self.name}"
        if self.kind == "iout":
            return f"{d.gq}int *{self.name}"
        if self.kind == "idx":
            return f"{d.gq}const int *{self.name}"
        if self.kind == "n":
            return f"{'const ' if d.lang == 'opencl' else ''}int {self.name}"
        if self.kind == "s":
            return f"{'const ' if d.lang == 'opencl' else ''}{t} {self.name}"
        if self.kind == "struct":
            return f"{d.gq}{self.ctype} *{self.name}"
        raise AssertionError(self.kind)


@dataclass
class _Kernel:
    name: str
    params: list[_Param]


@dataclass
class _Struct:
    name: str
    fields: list[tuple[str, str]]  # (type, name)


@dataclass
class _Env:
    """What an expression may read."""

    reads: list[str]
    scalars: list[str] = field(default_factory=list)
    ints: list[str] = field(default_factory=list)  # int-valued index variables, cast when used


class _Program:
    """One program under construction."""

    def __init__(self, rng: random.Random, dialect: _Dialect) -> None:
        self.rng = rng
        self.d = dialect
        self.T = rng.choices(["float", "double", "int"], weights=[5, 3, 2])[0]
        self.openmp = dialect.lang == "c" and rng.random() < 0.7
        self.uses_omp_header = False
        self.uses_double = self.T == "double"
        self.helpers: list[_Helper] = []
        self.structs: list[_Struct] = []
        self.tables: list[tuple[str, int]] = []
        self.globals: list[str] = []
        self.funcs: list[str] = []
        self.kernels: list[_Kernel] = []
        self.names: set[str] = set()

    # ---------------------------------------------------------------- small pieces

    def fresh(self, pool: tuple[str, ...], two: bool = False) -> str:
        rng = self.rng
        for _ in range(100):
            base = f"{rng.choice(pool)}_{rng.choice(_NOUNS)}" if two else rng.choice(pool)
            name = base if base not in self.names else f"{base}{len(self.names)}"
            if name not in self.names:
                self.names.add(name)
                return name
        raise AssertionError("no fresh name")

    def lit(self, value: float, t: str | None = None) -> str:
        t = t or self.T
        if t == "int":
            return str(int(round(value)))
        text = f"{value:.3f}".rstrip("0")
        text = text + "0" if text.endswith(".") else text
        return text + ("f" if t == "float" else "")

    def rand_lit(self, lo: float = -2.0, hi: float = 4.0, t: str | None = None) -> str:
        t = t or self.T
        if t == "int":
            return str(self.rng.randint(1, 9))
        return self.lit(round(self.rng.uniform(lo, hi), 3) or 0.5, t)

    def cast(self, x: str) -> str:
        return x if self.T == "int" else f"({self.T}){x}"

    def expr(self, env: _Env, depth: int = 2, top: bool = True) -> str:
        """A random expression of type T over the environment's reads, scalars and index variables.

        At the top (`top`), with helpers defined, the expression is sometimes passed through one of them,
        so that kernels call the helper functions.
        """
        rng, t, d = self.rng, self.T, self.d
        scalar_helpers = [h for h in self.helpers if h.arity > 0]
        if top and depth > 0 and scalar_helpers and rng.random() < 0.35:
            h = rng.choice(scalar_helpers)
            args = [self.expr(env, depth - 1, False) for _ in range(h.arity)]
            return f"{h.name}({', '.join(args)})"
        if depth <= 0 or (not top and rng.random() < 0.15):
            r = rng.random()
            if env.reads and r < 0.55:
                return rng.choice(env.reads)
            if env.scalars and r < 0.72:
                return rng.choice(env.scalars)
            if env.ints and r < 0.82:
                return self.cast(rng.choice(env.ints))
            if env.reads:
                return rng.choice(env.reads) if rng.random() < 0.5 else self.rand_lit()
            return self.rand_lit()
        a = self.expr(env, depth - 1, False)
        b = self.expr(env, depth - 1, False)
        r = rng.random()
        if r < 0.55:
            if t == "int":
                op = rng.choice(["+", "-", "*", "+", "^", "&", "|"])
            else:
                op = rng.choice(["+", "-", "*", "+", "*"])
            return f"({a} {op} {b})"
        if r < 0.63:
            if t == "int":
                return rng.choice([f"({a} % {rng.randint(2, 17)})", f"({a} >> {rng.randint(1, 4)})",
                                   f"({a} << {rng.randint(1, 3)})", f"({a} / {rng.randint(2, 9)})"])
            return f"({a} / ({self.abs_of(b)} + {self.lit(1.0)}))"
        if r < 0.75:
            if t == "int":
                return self.d.int_abs(a) if rng.random() < 0.4 else d.int_minmax(rng.choice(["min", "max"]), a, b)
            fn = rng.choice(d.unary_math(t))
            if fn in ("sqrtf", "sqrt", "logf", "log"):
                return f"{fn}({self.abs_of(a)} + {self.lit(1.0)})"
            if fn in ("expf", "exp"):
                return f"{fn}(-{self.abs_of(a)})"
            return f"{fn}({a})"
        if r < 0.83 and scalar_helpers:
            h = rng.choice(scalar_helpers)
            args = [a, b] + [self.expr(env, 0, False) for _ in range(h.arity - 2)]
            return f"{h.name}({', '.join(args[:h.arity])})"
        if r < 0.9:
            bins = d.binary_math(t)
            if bins:
                fn = rng.choice(bins)
                if fn in ("powf", "pow"):
                    return f"{fn}({self.abs_of(a)}, {self.lit(rng.choice([0.5, 2.0, 1.5]))})"
                return f"{fn}({a}, {b})"
            return d.int_minmax(rng.choice(["min", "max"]), a, b) if t == "int" else f"({a} * {b})"
        return f"({a} > {b} ? {a} : {self.rand_lit()})"

    def abs_of(self, x: str) -> str:
        if self.T == "int":
            return self.d.int_abs(x)
        if self.d.lang == "opencl":
            return f"fabs({x})"
        return f"fabsf({x})" if self.T == "float" else f"fabs({x})"

    def cond(self, env: _Env) -> str:
        rng = self.rng
        r = rng.random()
        if env.ints and r < 0.3:
            v = rng.choice(env.ints)
            return rng.choice([f"({v} & 1) == 0", f"{v} % {rng.randint(3, 7)} == 0", f"{v} > {rng.randint(2, 40)}"])
        a = self.expr(env, 1)
        op = rng.choice([">", "<", ">=", "<=", "!="])
        return f"{a} {op} {self.rand_lit(-1.0, 1.0)}"

    def step_text(self, var: str, step: str, down: bool = False) -> str:
        if step == "1":
            if down:
                return self.rng.choice([f"{var}--", f"--{var}"])
            return self.rng.choice([f"{var}++", f"++{var}", f"{var} += 1"])
        return f"{var} -= {step}" if down else f"{var} += {step}"

    def loop(self, out: _Out, var: str, lo: str, hi: str, step: str = "1", down: bool = False,
             inclusive: bool = False):
        if down:
            return out.block(f"for (int {var} = {hi} - 1; {var} >= {lo}; {self.step_text(var, step, True)})")
        cmp = "<=" if inclusive else "<"
        hi_text = f"{hi} - 1" if inclusive else hi
        return out.block(f"for (int {var} = {lo}; {var} {cmp} {hi_text}; {self.step_text(var, step)})")

    def pick_step(self, p_one: float = 0.7) -> str:
        return "1" if self.rng.random() < p_one else self.rng.choice(["2", "3", "4"])

    def omp_for(self, collapse: int = 1, reduction: str | None = None, schedule: bool = True) -> str | None:
        """An OpenMP worksharing pragma for the loop that follows, or None (sequential)."""
        rng = self.rng
        if not self.openmp or rng.random() < 0.2:
            return None
        parts = ["#pragma omp parallel for"]
        if collapse > 1 and rng.random() < 0.6:
            parts.append(f"collapse({collapse})")
        if reduction:
            parts.append(f"reduction({reduction})")
        if schedule and rng.random() < 0.5:
            kind = rng.choice(["static", "dynamic", "guided", "static", "runtime", "auto"])
            if kind in ("runtime", "auto") or rng.random() < 0.4:
                parts.append(f"schedule({kind})")
            else:
                parts.append(f"schedule({kind}, {rng.choice([1, 4, 8, 16, 32, 64])})")
        if rng.random() < 0.1:
            parts.append(f"num_threads({rng.choice([2, 4, 8])})")
        if rng.random() < 0.1:
            parts.append("default(shared)")
        return " ".join(parts)

    def omp(self, out: _Out, collapse: int = 1, reduction: str | None = None, schedule: bool = True) -> None:
        """Put an OpenMP pragma (or none) before the loop that `out` opens next; sometimes as a parallel
        region holding a worksharing loop (nowait or not), closed with that loop."""
        pragma = self.omp_for(collapse, reduction, schedule)
        if pragma is None:
            return
        if self.rng.random() < 0.2 and "num_threads" not in pragma and "default" not in pragma:
            out("#pragma omp parallel")
            out("{")
            out.depth += 1
            out(pragma.replace("parallel for", "for") + (" nowait" if self.rng.random() < 0.5 else ""))
            out.region_ends.append(out.depth)
        else:
            out(pragma)

    # ---------------------------------------------------------------- shared declarations

    def add_helpers(self) -> None:
        rng, d, t = self.rng, self.d, self.T
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            name = self.fresh(_HELPER_NAMES)
            out = _Out()
            if rng.random() < 0.25:  # a helper with a loop over two arrays
                x, y = _Param("in", "x"), _Param("in", "y")
                params = f"{x.render(d, t, False)}, {y.render(d, t, False)}, int len"
                with out.block(d.helper_head(t, name, params)):
                    out(f"{t} acc = {self.lit(0.0)};")
                    step = self.pick_step(0.8)
                    with self.loop(out, "q", "0", "len", step):
                        env = _Env(["x[q]", "y[q]"], ["acc"])
                        out(f"acc += {self.expr(env, 1)};")
                    out("return acc;")
                self.funcs.append(out.text())
                self.helpers.append(_Helper(name, -1))
                continue
            arity = rng.choice([2, 2, 3])
            args = ["a", "b", "c"][:arity]
            params = ", ".join(f"{t} {a}" for a in args)
            env = _Env(list(args))
            with out.block(d.helper_head(t, name, params)):
                r = rng.random()
                if r < 0.4:
                    out(f"return {self.expr(env, 2)};")
                elif r < 0.7:
                    with out.block(f"if ({self.cond(env)})"):
                        out(f"return {self.expr(env, 2)};")
                    out(f"return {self.expr(env, 1)};")
                else:
                    out(f"{t} r = {args[0]};")
                    with self.loop(out, "t", "0", str(rng.choice([2, 3, 4, 8]))):
                        out(f"r = {self.expr(_Env(['r', args[1]], [], ['t']), 2)};")
                    out("return r;")
            self.funcs.append(out.text())
            self.helpers.append(_Helper(name, arity))  # later helpers may call this one

    def add_table(self) -> str:
        name = f"coef{len(self.tables)}"
        size = self.rng.choice([3, 5, 7, 9])
        values = [self.rand_lit(-1.0, 1.0) for _ in range(size)]
        self.globals.append(self.d.const_table(self.T, name, values))
        self.tables.append((name, size))
        return name

    def add_struct(self) -> _Struct:
        if self.structs:
            return self.structs[0]
        rng = self.rng
        fields = rng.sample(_FIELD_NAMES, rng.randint(2, 5))
        st = _Struct(rng.choice(_STRUCT_NAMES), [(self.T, f) for f in fields])
        if rng.random() < 0.4:
            st.fields.append(("int", "flag"))
        body = " ".join(f"{ft} {fn};" for ft, fn in st.fields)
        self.globals.append(f"typedef struct {{ {body} }} {st.name};")
        self.structs.append(st)
        return st

    def params_text(self, params: list[_Param]) -> str:
        restrict = self.rng.random() < 0.3
        return ", ".join(p.render(self.d, self.T, restrict and p.kind in ("out", "in")) for p in params)

    def kernel(self, out: _Out, name: str, params: list[_Param], local_size: int = 256):
        attrs = self.d.kernel_attrs(self.rng, local_size) if self.d.gpu else ""
        self.kernels.append(_Kernel(name, params))
        return out.block(self.d.kernel_head(name, self.params_text(params), attrs))

    def gpu_index(self, out: _Out, var: str, dim: int) -> None:
        out(f"int {var} = {self.d.gid(dim)};")

    # ---------------------------------------------------------------- kernel shapes

    def k_map(self) -> None:
        rng, d, t = self.rng, self.d, self.T
        name = self.fresh(_VERBS, two=True)
        depth = rng.choice([1, 1, 2, 2, 3]) if not d.gpu else rng.choice([1, 2, 2])
        dims = ["n", "m", "p"][:depth]
        vars_ = ["i", "j", "k"][:depth]
        n_in = rng.randint(1, 3)
        params = [_Param("out", "out")] + [_Param("in", f"in{q}") for q in range(n_in)]
        params += [_Param("n", dn) for dn in dims]
        if rng.random() < 0.5:
            params.append(_Param("s", "alpha"))
        lin = vars_[0]
        for v, dn in zip(vars_[1:], dims[1:]):
            lin = f"({lin}) * {dn} + {v}"
        reads = [f"in{q}[{lin}]" for q in range(n_in)]
        scalars = ["alpha"] if any(p.name == "alpha" for p in params) else []
        table = self.add_table() if rng.random() < 0.2 else None
        out = _Out()
        with self.kernel(out, name, params):
            ctx = []
            if d.gpu:
                grid_stride = depth == 1 and rng.random() < 0.3
                if grid_stride:
                    ctx.append(out.block(f"for (int i = {d.gid(0)}; i < n; i += {d.gsize(0)})"))
                    ctx[-1].__enter__()
                else:
                    for dim, v in enumerate(reversed(vars_)):
                        self.gpu_index(out, v, dim)
                    guard = " && ".join(f"{v} < {dn}" for v, dn in zip(vars_, dims))
                    if rng.random() < 0.5:
                        out(f"if (!({guard})) return;")
                    else:
                        ctx.append(out.block(f"if ({guard})"))
                        ctx[-1].__enter__()
            else:
                self.omp(out, collapse=depth)
                for v, dn in zip(vars_, dims):
                    step = self.pick_step(0.8)
                    ctx.append(self.loop(out, v, "0", dn, step, down=rng.random() < 0.1))
                    ctx[-1].__enter__()
            env = _Env(reads, scalars, vars_)
            if table:
                env.reads.append(f"{table}[{vars_[-1]} % {self.tables[-1][1]}]")
            if rng.random() < 0.5:
                out(f"{t} v = {self.expr(env, 2)};")
                env = _Env(env.reads + ["v"], env.scalars, env.ints)
            if rng.random() < 0.4:
                with out.block(f"if ({self.cond(env)})"):
                    out(f"out[{lin}] = {self.expr(env, 2)};")
                with out.block("else"):
                    out(f"out[{lin}] = {self.expr(env, 1)};")
            else:
                op = rng.choice(["=", "=", "+=", "*="]) if t != "int" else rng.choice(["=", "+=", "^="])
                out(f"out[{lin}] {op} {self.expr(env, 3)};")
            for c in reversed(ctx):
                c.__exit__(None, None, None)
        self.funcs.append(out.text())

    def k_rowreduce(self) -> None:
        rng, d, t = self.rng, self.d, self.T
        name = self.fresh(_VERBS, two=True)
        two_inner = rng.random() < 0.3
        params = [_Param("out", "out"), _Param("in", "a"), _Param("in", "b"), _Param("n", "n"), _Param("n", "m")]
        if two_inner:
            params.append(_Param("n", "p"))
        out = _Out()
        op = rng.choice(["+", "+", "max", "min"]) if t != "double" or d.lang != "cuda" else "+"
        with self.kernel(out, name, params):
            ctx = []
            if d.gpu:
                self.gpu_index(out, "i", 0)
                ctx.append(out.block("if (i < n)"))
                ctx[-1].__enter__()
            else:
                self.omp(out)
                ctx.append(self.loop(out, "i", "0", "n"))
                ctx[-1].__enter__()
            init = {"+": self.lit(0.0), "max": "a[i * m]", "min": "a[i * m]"}[op]
            out(f"{t} acc = {init};")
            triangular = not two_inner and rng.random() < 0.25
            hi = "i + 1" if triangular else "m"
            if self.openmp and not d.gpu and rng.random() < 0.35:
                out(f"#pragma omp simd reduction({op}:acc)")
            ctx.append(self.loop(out, "j", "0", hi, self.pick_step()))
            ctx[-1].__enter__()
            idx = "i * m + j"
            if two_inner:
                ctx.append(self.loop(out, "k", "0", "p", self.pick_step()))
                ctx[-1].__enter__()
                idx = "(i * m + j) * p + k"
            env = _Env([f"a[{idx}]", f"b[{idx}]", "b[j]"], [], ["j"])
            if self.helpers and self.helpers[-1].arity == -1 and rng.random() < 0.5:
                e = f"{self.helpers[-1].name}(a + i * m, b, j + 1)"
            else:
                e = self.expr(env, 2)
            if op == "+":
                out(f"acc += {e};")
            else:
                cmp = ">" if op == "max" else "<"
                out(f"{t} e = {e};")
                with out.block(f"if (e {cmp} acc)"):
                    out("acc = e;")
            while len(ctx) > 1:
                ctx.pop().__exit__(None, None, None)
            out(f"out[i] = {self.expr(_Env(['acc'], [], []), 1) if rng.random() < 0.4 else 'acc'};")
            ctx.pop().__exit__(None, None, None)
        self.funcs.append(out.text())

    def k_fullreduce(self) -> None:
        rng, d, t = self.rng, self.d, self.T
        name = self.fresh(_VERBS, two=True)
        out = _Out()
        if not d.gpu:
            params = [_Param("in", "a"), _Param("in", "b"), _Param("n", "n")]
            two = rng.random() < 0.4
            if two:
                params.append(_Param("n", "m"))
            op = rng.choice(["+", "+", "max", "min"])
            ret_style = rng.random() < 0.6
            if not ret_style:
                params.insert(0, _Param("out", "result"))
            if not ret_style:
                self.kernels.append(_Kernel(name, params))
            with out.block(f"{t if ret_style else 'void'} {name}({self.params_text(params)})"):
                init = self.lit(0.0) if op == "+" else "a[0]"
                out(f"{t} acc = {init};")
                self.omp(out, collapse=2 if two else 1, reduction=f"{op}:acc")
                ctx = [self.loop(out, "i", "0", "n", self.pick_step())]
                ctx[-1].__enter__()
                idx = "i"
                if two:
                    ctx.append(self.loop(out, "j", "0", "m", self.pick_step()))
                    ctx[-1].__enter__()
                    idx = "i * m + j"
                e = self.expr(_Env([f"a[{idx}]", f"b[{idx}]"], [], ["i"]), 2)
                if op == "+":
                    out(f"acc += {e};")
                else:
                    out(f"acc = {d.int_minmax(op, 'acc', e) if t == 'int' else self.minmax_float(op, 'acc', e)};")
                for c in reversed(ctx):
                    c.__exit__(None, None, None)
                out("return acc;" if ret_style else "result[0] = acc;")
            self.funcs.append(out.text())
            return
        ls = rng.choice([64, 128, 256])
        params = [_Param("out", "partial"), _Param("in", "a"), _Param("n", "n")]
        if rng.random() < 0.4:
            params.append(_Param("s", "scale"))
        with self.kernel(out, name, params, ls):
            out(d.local_array(t, "tile", f"[{ls}]"))
            out(f"int lid = {d.lid(0)};")
            self.gpu_index(out, "gid", 0)
            env = _Env(["a[gid]"], ["scale"] if len(params) > 3 else [], [])
            out(f"tile[lid] = (gid < n) ? {self.expr(env, 1)} : {self.lit(0.0)};")
            out(d.barrier())
            with out.block(f"for (int s = {ls} / 2; s > 0; s >>= 1)"):
                with out.block("if (lid < s)"):
                    out("tile[lid] += tile[lid + s];")
                out(d.barrier())
            with out.block("if (lid == 0)"):
                atomic = d.atomic_add(t, "partial[0]", "tile[0]") if rng.random() < 0.5 else None
                out(atomic or f"partial[{d.group(0)}] = tile[0];")
        self.funcs.append(out.text())

    def minmax_float(self, op: str, a: str, b: str) -> str:
        bins = self.d.binary_math(self.T)
        fn = next((f for f in bins if f.startswith("f" + op)), None)
        if fn:
            return f"{fn}({a}, {b})"
        cmp = ">" if op == "max" else "<"
        return f"(({a}) {cmp} ({b}) ? ({a}) : ({b}))"

    def k_stencil(self) -> None:
        rng, d, t = self.rng, self.d, self.T
        name = self.fresh(_VERBS, two=True)
        nd = rng.choice([1, 2, 2, 3])
        r = 1 if nd == 3 else rng.choice([1, 1, 2])
        vars_ = ["i", "j", "k"][:nd]
        dims = ["n", "m", "p"][:nd]
        table = self.add_table() if rng.random() < 0.3 else None
        timeloop = not d.gpu and rng.random() < 0.3
        params = [_Param("out", "dst"), _Param("out" if timeloop else "in", "src")]
        params += [_Param("n", dn) for dn in dims]
        if timeloop:
            params.append(_Param("n", "steps"))
        strides = {}
        for q, v in enumerate(vars_):
            strides[v] = " * ".join(dims[q + 1:]) or "1"
        def at(offsets: dict[str, int]) -> str:
            terms = []
            for v in vars_:
                o = offsets.get(v, 0)
                pos = v if o == 0 else f"({v} {'+' if o > 0 else '-'} {abs(o)})"
                terms.append(pos if strides[v] == "1" else f"{pos} * {strides[v]}")
            return "src[" + " + ".join(terms) + "]"
        points = [{}]
        for v in vars_:
            for o in range(1, r + 1):
                points += [{v: o}, {v: -o}]
        if nd == 2 and rng.random() < 0.4:
            points += [{"i": 1, "j": 1}, {"i": -1, "j": -1}, {"i": 1, "j": -1}, {"i": -1, "j": 1}]
        center = "dst[" + " + ".join(v if strides[v] == "1" else f"{v} * {strides[v]}" for v in vars_) + "]"
        out = _Out()
        with self.kernel(out, name, params):
            ctx = []
            if timeloop:
                ctx.append(self.loop(out, "t", "0", "steps"))
                ctx[-1].__enter__()
            if d.gpu:
                for dim, v in enumerate(reversed(vars_)):
                    self.gpu_index(out, v, dim)
                guard = " && ".join(f"{v} >= {r} && {v} < {dn} - {r}" for v, dn in zip(vars_, dims))
                ctx.append(out.block(f"if ({guard})"))
                ctx[-1].__enter__()
            else:
                self.omp(out, collapse=nd)
                for v, dn in zip(vars_, dims):
                    ctx.append(self.loop(out, v, str(r), f"{dn} - {r}"))
                    ctx[-1].__enter__()
            terms = []
            for q, pt in enumerate(points):
                if table:
                    w = f"{table}[{q % self.tables[-1][1]}]"
                else:
                    w = self.rand_lit(-1.0, 1.0)
                terms.append(f"{w} * {at(pt)}")
            if t == "int" and rng.random() < 0.5:
                out(f"{center} = ({' + '.join(at(pt) for pt in points)}) / {len(points)};")
            else:
                out(f"{t} acc = {terms[0]};")
                for term in terms[1:]:
                    out(f"acc += {term};")
                if rng.random() < 0.4:
                    env = _Env(["acc", at({})], [], vars_)
                    out(f"acc = {self.expr(env, 2)};")
                out(f"{center} = acc;")
            inner = len(ctx) - (1 if timeloop else 0)
            for _ in range(inner):
                ctx.pop().__exit__(None, None, None)
            if timeloop:
                out(f"{t} *tmp = src;")
                out("src = dst;")
                out("dst = tmp;")
                ctx.pop().__exit__(None, None, None)
        self.funcs.append(out.text())

    def k_matmul(self) -> None:
        rng, d, t = self.rng, self.d, self.T
        name = self.fresh(_VERBS, two=True)
        params = [_Param("out", "C"), _Param("in", "A"), _Param("in", "B"), _Param("n", "n"), _Param("n", "m"),
                  _Param("n", "p")]
        beta = rng.random() < 0.4
        if beta:
            params.append(_Param("s", "beta"))
        out = _Out()
        if d.gpu and rng.random() < 0.5:
            ts = rng.choice([8, 16, 16, 32])
            with self.kernel(out, name, params, ts * ts):
                out(d.local_array(t, "As", f"[{ts}][{ts}]"))
                out(d.local_array(t, "Bs", f"[{ts}][{ts}]"))
                out(f"int tx = {d.lid(0)};")
                out(f"int ty = {d.lid(1)};")
                out(f"int col = {d.group(0)} * {ts} + tx;")
                out(f"int row = {d.group(1)} * {ts} + ty;")
                out(f"{t} acc = {self.lit(0.0)};")
                with out.block(f"for (int t0 = 0; t0 < p; t0 += {ts})"):
                    out(f"As[ty][tx] = (row < n && t0 + tx < p) ? A[row * p + t0 + tx] : {self.lit(0.0)};")
                    out(f"Bs[ty][tx] = (col < m && t0 + ty < p) ? B[(t0 + ty) * m + col] : {self.lit(0.0)};")
                    out(d.barrier())
                    if rng.random() < 0.5 and d.lang == "cuda":
                        out("#pragma unroll")
                    with out.block(f"for (int q = 0; q < {ts}; ++q)"):
                        out("acc += As[ty][q] * Bs[q][tx];")
                    out(d.barrier())
                with out.block("if (row < n && col < m)"):
                    out(f"C[row * m + col] = {'beta * C[row * m + col] + ' if beta else ''}acc;")
            self.funcs.append(out.text())
            return
        with self.kernel(out, name, params):
            ctx = []
            if d.gpu:
                self.gpu_index(out, "j", 0)
                self.gpu_index(out, "i", 1)
                ctx.append(out.block("if (i < n && j < m)"))
                ctx[-1].__enter__()
                out(f"{t} acc = {self.lit(0.0)};")
                with self.loop(out, "k", "0", "p"):
                    out("acc += A[i * p + k] * B[k * m + j];")
                out(f"C[i * m + j] = {'beta * C[i * m + j] + ' if beta else ''}acc;")
                ctx.pop().__exit__(None, None, None)
            elif rng.random() < 0.5:  # i-j-k with a private accumulator
                self.omp(out, collapse=2)
                with self.loop(out, "i", "0", "n"):
                    with self.loop(out, "j", "0", "m"):
                        out(f"{t} acc = {'beta * C[i * m + j]' if beta else self.lit(0.0)};")
                        if self.openmp and rng.random() < 0.35:
                            out("#pragma omp simd reduction(+:acc)")
                        with self.loop(out, "k", "0", "p"):
                            out("acc += A[i * p + k] * B[k * m + j];")
                        out("C[i * m + j] = acc;")
            else:  # i-k-j, streaming through rows
                self.omp(out)
                with self.loop(out, "i", "0", "n"):
                    with self.loop(out, "k", "0", "p"):
                        out(f"{t} aik = A[i * p + k];")
                        with self.loop(out, "j", "0", "m"):
                            out("C[i * m + j] += aik * B[k * m + j];")
        self.funcs.append(out.text())

    def k_histogram(self) -> None:
        rng, d, t = self.rng, self.d, self.T
        name = self.fresh(_VERBS, two=True)
        out = _Out()
        gather = rng.random() < 0.4
        if gather:
            params = [_Param("out", "out"), _Param("in", "src"), _Param("idx", "idx"), _Param("n", "n"),
                      _Param("n", "m")]
            with self.kernel(out, name, params):
                if d.gpu:
                    self.gpu_index(out, "i", 0)
                    ctx = out.block("if (i < n)")
                else:
                    self.omp(out)
                    ctx = self.loop(out, "i", "0", "n")
                with ctx:
                    out("int q = idx[i];")
                    with out.block("if (q >= 0 && q < m)"):
                        out(f"out[i] = {self.expr(_Env(['src[q]', 'src[i % m]'], [], ['q']), 2)};")
                    with out.block("else"):
                        out(f"out[i] = {self.lit(0.0)};")
            self.funcs.append(out.text())
            return
        params = [_Param("iout", "bins"), _Param("in", "vals"), _Param("n", "n"), _Param("n", "nbins")]
        with self.kernel(out, name, params):
            if d.gpu:
                self.gpu_index(out, "i", 0)
                ctx = out.block("if (i < n)")
            else:
                self.omp(out)
                ctx = self.loop(out, "i", "0", "n")
            with ctx:
                v = self.expr(_Env(["vals[i]"], [], ["i"]), 1)
                if t == "int":
                    out(f"int b = {self.d.int_abs(v)} % nbins;")
                else:
                    out(f"int b = (int)({self.abs_of(v)} * {self.lit(7.0)}) % nbins;")
                if d.gpu:
                    out(d.atomic_add("int", "bins[b]", "1"))
                else:
                    if self.openmp:
                        out("#pragma omp atomic")
                    out("bins[b] += 1;")
        self.funcs.append(out.text())

    def k_struct(self) -> None:
        rng, d, t = self.rng, self.d, self.T
        st = self.add_struct()
        name = self.fresh(_VERBS, two=True)
        fnames = [f for ft, f in st.fields if ft == t]
        params = [_Param("struct", "ps", st.name), _Param("n", "n"), _Param("s", "dt")]
        pair = rng.random() < 0.4
        out = _Out()
        with self.kernel(out, name, params):
            if d.gpu:
                self.gpu_index(out, "i", 0)
                out("if (i >= n) return;")
                ctx = None
            else:
                self.omp(out)
                ctx = self.loop(out, "i", "0", "n")
                ctx.__enter__()
            reads = [f"ps[i].{f}" for f in fnames]
            if pair:
                out(f"{t} force = {self.lit(0.0)};")
                with self.loop(out, "j", "0", "n"):
                    with out.block("if (j != i)"):
                        f0 = fnames[0]
                        f1 = fnames[-1]
                        out(f"{t} dx = ps[j].{f0} - ps[i].{f0};")
                        out(f"{t} dy = ps[j].{f1} - ps[i].{f1};")
                        env = _Env(["dx", "dy", f"ps[j].{f1}"], ["dt"], [])
                        out(f"force += {self.expr(env, 2)};")
                reads.append("force")
            env = _Env(reads, ["dt"], ["i"])
            for f in rng.sample(fnames, rng.randint(1, len(fnames))):
                out(f"ps[i].{f} = {self.expr(env, 2)};")
            if any(f == "flag" for _, f in st.fields):
                out(f"ps[i].flag = {self.cond(env)};")
            if ctx:
                ctx.__exit__(None, None, None)
        self.funcs.append(out.text())

    def k_pointer(self) -> None:
        rng, d, t = self.rng, self.d, self.T
        name = self.fresh(_VERBS, two=True)
        params = [_Param("out", "a"), _Param("in", "b"), _Param("n", "n"), _Param("n", "m"), _Param("s", "s")]
        out = _Out()
        with self.kernel(out, name, params):
            if not d.gpu and rng.random() < 0.5:  # walk with pointer increments
                step = self.pick_step(0.6)
                out(f"{t} *p = a;")
                out(f"const {t} *q = b;")
                out(f"{t} *end = a + (long)n * m;")
                with out.block("while (p < end)"):
                    env = _Env(["*p", "*q", "q[0]"], ["s"], [])
                    out(f"*p = {self.expr(env, 2)};")
                    out(f"p += {step};")
                    out(f"q += {step};")
            else:
                self._row_pointers(out)
        self.funcs.append(out.text())

    def _row_pointers(self, out: _Out) -> None:
        rng, d, t, cq = self.rng, self.d, self.T, self.d.gq
        if d.gpu:
            self.gpu_index(out, "i", 0)
            ctx = out.block("if (i < n)")
        else:
            self.omp(out)
            ctx = self.loop(out, "i", "0", "n")
        with ctx:
            out(f"{cq}{t} *row = a + i * m;")
            out(f"{cq}const {t} *src = b + i * m;")
            if rng.random() < 0.5:
                out(f"{cq}const {t} *prev = (i > 0) ? src - m : src;")
                reads = ["src[j]", "prev[j]", "*(src + j)"]
            else:
                reads = ["src[j]", "*(src + j)"]
            with self.loop(out, "j", "0", "m", self.pick_step()):
                env = _Env(reads, ["s"], ["j"])
                out(f"row[j] = {self.expr(env, 2)};")

    def k_scan(self) -> None:
        rng, d, t = self.rng, self.d, self.T
        name = self.fresh(_VERBS, two=True)
        out = _Out()
        if not d.gpu:
            params = [_Param("out", "out"), _Param("in", "in"), _Param("n", "n")]
            with self.kernel(out, name, params):
                out(f"{t} run = {self.lit(0.0)};")
                with self.loop(out, "i", "0", "n"):
                    out(f"run = {self.expr(_Env(['run', 'in[i]'], [], []), 1)};")
                    out("out[i] = run;")
            self.funcs.append(out.text())
            return
        ls = rng.choice([64, 128, 256])
        params = [_Param("out", "out"), _Param("in", "in"), _Param("n", "n")]
        with self.kernel(out, name, params, ls):
            out(d.local_array(t, "buf", f"[{ls}]"))
            out(f"int lid = {d.lid(0)};")
            self.gpu_index(out, "gid", 0)
            out(f"buf[lid] = gid < n ? in[gid] : {self.lit(0.0)};")
            out(d.barrier())
            with out.block(f"for (int off = 1; off < {ls}; off *= 2)"):
                out(f"{t} v = lid >= off ? buf[lid - off] : {self.lit(0.0)};")
                out(d.barrier())
                out("buf[lid] += v;")
                out(d.barrier())
            with out.block("if (gid < n)"):
                out("out[gid] = buf[lid];")
        self.funcs.append(out.text())

    def k_transpose(self) -> None:
        rng, d, t = self.rng, self.d, self.T
        name = self.fresh(_VERBS, two=True)
        params = [_Param("out", "dst"), _Param("in", "src"), _Param("n", "n"), _Param("n", "m")]
        out = _Out()
        if d.gpu and rng.random() < 0.6:
            ts = rng.choice([8, 16, 32])
            with self.kernel(out, name, params, ts * ts):
                out(d.local_array(t, "tile", f"[{ts}][{ts + 1}]"))
                out(f"int x = {d.group(0)} * {ts} + {d.lid(0)};")
                out(f"int y = {d.group(1)} * {ts} + {d.lid(1)};")
                with out.block("if (x < m && y < n)"):
                    out(f"tile[{d.lid(1)}][{d.lid(0)}] = src[y * m + x];")
                out(d.barrier())
                out(f"x = {d.group(1)} * {ts} + {d.lid(0)};")
                out(f"y = {d.group(0)} * {ts} + {d.lid(1)};")
                with out.block("if (x < n && y < m)"):
                    out(f"dst[y * n + x] = tile[{d.lid(0)}][{d.lid(1)}];")
            self.funcs.append(out.text())
            return
        with self.kernel(out, name, params):
            if d.gpu:
                self.gpu_index(out, "j", 0)
                self.gpu_index(out, "i", 1)
                with out.block("if (i < n && j < m)"):
                    out("dst[j * n + i] = src[i * m + j];")
            else:
                blocked = rng.random() < 0.4
                if blocked:
                    bs = rng.choice([8, 16, 32, 64])
                    self.omp(out, collapse=2)
                    with out.block(f"for (int ii = 0; ii < n; ii += {bs})"):
                        with out.block(f"for (int jj = 0; jj < m; jj += {bs})"):
                            with out.block(f"for (int i = ii; i < ii + {bs} && i < n; i++)"):
                                with out.block(f"for (int j = jj; j < jj + {bs} && j < m; j++)"):
                                    out("dst[j * n + i] = src[i * m + j];")
                else:
                    self.omp(out, collapse=2)
                    with self.loop(out, "i", "0", "n"):
                        with self.loop(out, "j", "0", "m"):
                            out("dst[j * n + i] = src[i * m + j];")
        self.funcs.append(out.text())

    def k_branchy(self) -> None:
        rng, d, t = self.rng, self.d, self.T
        name = self.fresh(_VERBS, two=True)
        params = [_Param("out", "out"), _Param("in", "in"), _Param("n", "n"), _Param("s", "thr")]
        out = _Out()
        with self.kernel(out, name, params):
            if d.gpu:
                self.gpu_index(out, "i", 0)
                ctx = out.block("if (i < n)")
            else:
                self.omp(out, schedule=True)
                ctx = self.loop(out, "i", "0", "n", self.pick_step())
            with ctx:
                env = _Env(["in[i]", "x"], ["thr"], ["i"])
                out(f"{t} x = in[i];")
                style = rng.choice(["switch", "chain", "while"])
                if style == "switch":
                    k = rng.randint(3, 6)
                    with out.block(f"switch (i % {k})"):
                        for c in range(k - 1):
                            out(f"case {c}:")
                            out(f"    x = {self.expr(env, 2)};")
                            if rng.random() < 0.8:
                                out("    break;")
                        out("default:")
                        out(f"    x = {self.expr(env, 1)};")
                elif style == "chain":
                    out(f"if (x > thr) x = {self.expr(env, 2)};")
                    for _ in range(rng.randint(1, 3)):
                        out(f"else if ({self.cond(env)}) x = {self.expr(env, 2)};")
                    out(f"else x = {self.expr(env, 1)};")
                else:
                    out("int it = 0;")
                    kind = rng.choice(["while", "do"])
                    cap = rng.choice([8, 16, 50, 100])
                    if kind == "while":
                        with out.block(f"while ({self.abs_of('x')} > thr && it < {cap})"):
                            out(f"x = {self.expr(env, 2)} * {self.lit(0.5)};")
                            out("it++;")
                    else:
                        out("do {")
                        out(f"    x = {self.expr(env, 2)} * {self.lit(0.5)};")
                        out("    it++;")
                        out(f"}} while ({self.abs_of('x')} > thr && it < {cap});")
                    out(f"x += {self.cast('it')};")
                out("out[i] = x;")
        self.funcs.append(out.text())

    # ---------------------------------------------------------------- the whole program

    def driver(self) -> None:
        """C: a function that allocates buffers and calls every kernel."""
        if not self.kernels:
            return
        rng, t = self.rng, self.T
        name = self.fresh(("run", "driver", "pipeline", "bench", "solve_all", "main_loop"))
        out = _Out()
        with out.block(f"int {name}(int n, int iters)"):
            out("long total = (long)n * n * n + 16;")
            for b in range(3):
                out(f"{t} *buf{b} = ({t} *)malloc(sizeof({t}) * total);")
            out("int *ibuf = (int *)malloc(sizeof(int) * total);")
            uses_struct = any(p.kind == "struct" for k in self.kernels for p in k.params)
            if uses_struct:
                st = self.structs[0]
                out(f"{st.name} *recs = ({st.name} *)malloc(sizeof({st.name}) * n);")
            with out.block("if (!buf0 || !buf1 || !buf2 || !ibuf)"):
                out("return -1;")
            with out.block("for (long q = 0; q < total; q++)"):
                out(f"buf0[q] = {self.cast('(q % 7)')};")
                out(f"buf1[q] = {self.cast('(q % 5)')};")
                out("ibuf[q] = (int)(q % n);")
            with self.loop(out, "it", "0", "iters"):
                for k in self.kernels:
                    args, nb = [], 0
                    for p in k.params:
                        if p.kind in ("out", "in"):
                            args.append(f"buf{nb % 3}")
                            nb += 1
                        elif p.kind in ("iout", "idx"):
                            args.append("ibuf")
                        elif p.kind == "n":
                            args.append(rng.choice(["n", "n", "n - 1", "n / 2 + 1"]))
                        elif p.kind == "s":
                            args.append(self.rand_lit(0.1, 2.0))
                        elif p.kind == "struct":
                            args.append("recs")
                    out(f"{k.name}({', '.join(args)});")
            out("int check = (int)buf0[n % 7];")
            for b in range(3):
                out(f"free(buf{b});")
            out("free(ibuf);")
            if uses_struct:
                out("free(recs);")
            out("return check;")
        self.funcs.append(out.text())

    def build(self) -> str:
        rng, d = self.rng, self.d
        self.add_helpers()
        shapes = [self.k_map, self.k_map, self.k_rowreduce, self.k_fullreduce, self.k_stencil, self.k_stencil,
                  self.k_matmul, self.k_histogram, self.k_struct, self.k_pointer, self.k_scan, self.k_transpose,
                  self.k_branchy, self.k_branchy]
        for shape in rng.sample(shapes, rng.choice([1, 1, 2, 2, 3])):
            shape()
        if d.lang == "c" and (rng.random() < 0.4):
            self.driver()
        if self.openmp and rng.random() < 0.1:
            self.uses_omp_header = True
            name = self.fresh(("threads_used", "team_size"))
            self.funcs.append(f"int {name}(void) {{\n    int t = 1;\n    #pragma omp parallel\n    {{\n"
                              f"        #pragma omp single\n        t = omp_get_num_threads();\n    }}\n"
                              f"    return t;\n}}\n")
        self.openmp = self.openmp and any("#pragma omp" in f for f in self.funcs)
        header = [f"/* generated by mirtune.pretrain.generator ({d.lang}, {self.T}) */"]
        header += d.preamble(self)
        parts = ["\n".join(header), "\n".join(self.globals)] if self.globals else ["\n".join(header)]
        return "\n\n".join(p for p in parts if p) + "\n\n" + "\n".join(self.funcs)
