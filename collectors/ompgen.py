"""A deterministic generator of OpenMP C programs for the OpenMP sweep (threads x schedule x chunk).

Each program is one self-contained C11 file in the conventions of collectors/programs/openmp (see its README):
no input files, no arguments; `-DMIRTUNE_SIZE=1` (small, the default) or `-DMIRTUNE_SIZE=2` (large, about 3-5x
the work) picks the input size; after the parallel work it prints exactly one line `checksum: <value>` and exits 0.
The worksharing loops are written as people write OpenMP (`#pragma omp parallel for`, sometimes with `private`,
`firstprivate`, `collapse(2)`/`collapse(3)` or integer `reduction` clauses, or `#pragma omp parallel` around a
time-step loop with `#pragma omp for` inside) and carry no schedule clause, so the collector's
`schedule(runtime)` rewrite lets OMP_SCHEDULE reach every one of them.

The checksum is the same for every thread count and every schedule by construction: every parallel loop writes
disjoint elements, each element is computed in a fixed order by one thread, floating-point sums over elements
are done sequentially after the parallel part, and the only reductions inside parallel loops are over unsigned
integers (exact in any order; no signed overflow anywhere: integer state is masked or bounded). Floating-point
state is kept bounded and away from subnormals (contractions towards a positive fixed point).

The space of programs: 12 kinds, taken round robin; each kind's main knob (cost profile, op, window, shape ...)
also goes round robin over its programs, the other knobs are drawn with one random.Random(seed):
- mathmap: x <- f(x) iterated work[i] times per element (sin/cos, exp, sqrt, logistic, rational maps); the
  per-element cost is uniform, linear (rising or falling), heavy-tailed random, or a few very heavy spikes;
  64 ... 100000 elements, 1 ... 200 rounds (one parallel region each);
- sparse: repeated CSR y = 0.5 A x + b with row lengths uniform or linear (long rows, 32 ... 256), power-law
  or a few dense rows among short ones; random or banded columns;
- triangular: pair sums over j < i or j > i (linear imbalance, heaviest last or first), Coulomb/Gaussian/
  Lennard-Jones-like floating-point bodies or an integer neighbour count with a reduction;
- intwork: integer work with irregular cost (Collatz stopping times, smallest prime factor by trial division,
  xorshift rounds of random length), with `reduction(+:...)` and `reduction(max:...)`;
- stream: memory-bound array updates (decay, two-loop triad, 3-point smoothing) over 2e4 ... 4e6 elements of
  float, double, int or unsigned in blocks of 256 ... 4096 per iteration, one region per loop or one region
  around the time loop;
- timestep: a small periodic 1-D stencil (64 ... 2000 points, its radius fitted to the time) over 100 ... 3600
  time steps, 2-3 loops per step: hundreds to thousands of short loops (tens to hundreds of microseconds at
  one thread), so fork/join and barrier overhead grows with the thread count;
- stencil2d: 5- or 9-point Jacobi sweeps on a rectangular grid (outer trip 64 ... 4000), over rows, or
  collapse(2) over rows x blocks of columns;
- allpairs: a softened N-body step (64 ... 1500 bodies, compute-bound, O(N^2) per step) over many steps;
- escape: Mandelbrot escape counts over a window (whole set, antenna, seahorse valley, spiral, upper bulb), by
  rows, by pixels (collapse(2)) or by 16 x 16 tiles (collapse(2));
- batchmm: a batch of small dense matrix products with uniform, random, linearly growing or a few large sizes
  (cubic cost per matrix), collapse(2) over (matrix, row) when the sizes are uniform;
- gather: indirect reads a[i] = a[i] / 2 + s * sum_k tab[idx[i, k]] from a table in L1/L2, L3 or DRAM, random
  or local indices, in blocks of elements;
- stencil3d: 7-point heat sweeps on cubes, flat slabs (small outer trip) or tall columns, collapse 1, 2 or 3.
Each kind also draws its element type (float, double, int, unsigned ...), loop style and clauses. A program's
free size knob (time steps, rounds, work per element, trip count, stencil radius) is fitted with a cost model of
the 2-core development VM (NS: clang -O2 -march=native, one thread) so that MIRTUNE_SIZE=1 takes a drawn
TARGET_S (0.07-0.17 s) and MIRTUNE_SIZE=2 a drawn LARGE_FACTOR (3-4.5x) of that. A draw the model cannot place
inside LIMITS, or whose run would execute more than ITERATIONS_MAX worksharing iterations or LOOPS_MAX
worksharing loops (what schedule(dynamic,1) and fork/join cost with many threads), is drawn again.

    python -m collectors.ompgen [--out collectors/programs/openmp_gen] [--count 40] [--seed 0] [--check]

writes the programs and a README.md listing them (and removes stale generated programs), or with --check
verifies that the files on disk are exactly what the generator produces (exit 1 when not).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Callable

DEFAULT_OUT = Path(__file__).resolve().parent / "programs" / "openmp_gen"
DEFAULT_COUNT = 40
DEFAULT_SEED = 0
GENERATED = "generated by collectors/ompgen.py"
KINDS = ("mathmap", "sparse", "triangular", "intwork", "stream", "timestep", "stencil2d", "allpairs", "escape",
         "batchmm", "gather", "stencil3d")
TARGET_S = (0.07, 0.17)        # 1-thread seconds at MIRTUNE_SIZE=1, drawn per program
LARGE_FACTOR = (3.0, 4.5)      # MIRTUNE_SIZE=2 work over MIRTUNE_SIZE=1 work, drawn per program
LIMITS = {"small": (0.055, 0.25), "large": 0.85, "factor": (2.8, 5.2)}  # what a fitted draw must meet
MAX_DRAWS = 400
# Worksharing iterations and worksharing loop executions (regions, or omp for with its barrier) over a whole run,
# at size 1 and size 2. They bound what schedule(dynamic,1) and many threads can cost: every iteration is then
# a dispatch from a shared counter (0.1-1 us), every loop a fork/join or barrier (2-80 us on a busy 2-core VM).
# Loops over very many elements therefore run over blocks of elements (stream, gather, stencils).
ITERATIONS_MAX = (2_000_000, 6_000_000)
LOOPS_MAX = (4_000, 12_000)

# The cost model: nanoseconds per unit of work, one thread, clang -O2 -march=native, on the development VM
# (AMD EPYC Zen 2, 2 cores, 512 KiB L2 per core, 16 MiB L3). Fitted by timing the generated programs.
NS: dict[str, float] = {
    "region": 400.0,           # one parallel region / worksharing loop with its barrier, 1 thread
    "init": 3.0,               # one element initialised from the LCG
    # mathmap: one map iteration (a dependent chain), per type
    "map_trig_double": 21.5, "map_trig_float": 19.0, "map_exp_double": 14.8, "map_exp_float": 13.5,
    "map_sqrt_double": 9.0, "map_sqrt_float": 6.0, "map_logistic_double": 2.0, "map_logistic_float": 1.9,
    "map_rational_double": 5.4, "map_rational_float": 4.3, "map_elem": 2.0,
    # sparse: per nonzero by where x lives, per row
    "spmv_l2": 0.9, "spmv_l3": 1.5, "spmv_dram": 4.0, "spmv_banded": 0.8, "spmv_row": 2.0,
    # triangular: per pair
    "pair_coulomb_double": 4.2, "pair_coulomb_float": 3.0, "pair_gauss_double": 8.4, "pair_gauss_float": 6.0,
    "pair_lj_double": 2.3, "pair_lj_float": 1.8, "pair_count_int": 0.27,
    # intwork: one Collatz step, one trial division, one xorshift round
    "collatz": 1.0, "trialdiv": 5.3, "xorshift": 1.8, "int_elem": 2.0,
    # stream and gather: per byte moved by where the working set lives; per gathered element
    "byte_l2": 0.01, "byte_l3": 0.015, "byte_dram": 0.05,
    "gather_local": 0.35, "gather_l2": 0.5, "gather_l3": 1.5, "gather_dram": 4.0, "gather_elem": 0.35,
    # timestep: per tap of the stencil, per element of the blend loop and of the sqrt loop
    "tap": 1.5, "blend": 0.3, "sqrtloop": 1.5,
    # stencils: per cell update with the grids in L2 (times "cell_l3" / "cell_dram" further out), per collapsed
    # iteration (the collapsed index is recomputed)
    "cell5_double": 0.39, "cell5_float": 0.21, "cell9_double": 0.32, "cell9_float": 0.18,
    "cell7_double": 0.37, "cell7_float": 0.2, "cell_l3": 1.3, "cell_dram": 3.0, "collapse_iter": 3.0,
    # allpairs: per interaction
    "body_double": 5.0, "body_float": 3.7,
    # escape: per iteration of z <- z^2 + c
    "escape_double": 3.0, "escape_float": 3.0,
    # batchmm: per multiply-add in the vectorized j loop (32 floats or 16 doubles per vector iteration) and in its
    # scalar remainder, per j loop, per output element, per matrix row
    "fma_double": 0.15, "fma_float": 0.11, "fma_scalar": 0.36, "mm_loop": 1.5, "mm_elem": 1.1, "mm_row": 3.6,
    "mm_fixed": 0.8,           # uniform sizes with collapse(2): M0 is a compile-time constant
}
L2_BYTES = 512 * 1024
L3_BYTES = 12 * 1024 * 1024    # of the 16 MiB L3, shared with the other core and the other tenants of the VM


@dataclass(frozen=True)
class Program:
    """One generated program: its name, kind, drawn parameters, macros per size, estimated times and C text."""

    name: str
    kind: str
    params: dict[str, object]
    sizes: tuple[dict[str, int], dict[str, int]]
    est_s: tuple[float, float]
    source: str = field(repr=False)


@dataclass
class _Draft:
    """What a kind function returns: the header lines, the macros of both sizes and the body of the program."""

    what: str                                  # line 1 of the header: what it computes
    category: str                              # line 2: the kind and its parameters
    params: dict[str, object]
    sizes: tuple[dict[str, int], dict[str, int]]
    est: tuple[float, float]
    body: str                                  # main() and any helpers, after the common prelude
    consts: dict[str, str] = field(default_factory=dict)  # macros that do not depend on the size


# ----------------------------------------------------------------------------------------------------------
# helpers


class _Lcg:
    """The programs' generator (64-bit LCG, 31 bits out), replicated so the cost model sees the drawn work."""

    def __init__(self, seed: int):
        self.state = seed

    def u32(self) -> int:
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        return self.state >> 33


def _trailing_ones(r: int, cap: int) -> int:
    g = 0
    while (r & 1) and g < cap:
        r >>= 1
        g += 1
    return g


def _lit(x: float, t: str) -> str:
    """A floating-point literal of type t ('float' or 'double')."""
    s = repr(float(x))
    return s + "f" if t == "float" else s


def _fn(name: str, t: str) -> str:
    """The libm function `name` for type t (sinf for float)."""
    return name + "f" if t == "float" else name


def _where(nbytes: float) -> str:
    return "l2" if nbytes <= L2_BYTES else "l3" if nbytes <= L3_BYTES else "dram"


def _cell_factor(nbytes: float) -> float:
    """How much slower a stencil cell update is with its grids further out than L2 (or just past it)."""
    return 1.0 if nbytes <= 4 * L2_BYTES else NS["cell_l3"] if nbytes <= L3_BYTES else NS["cell_dram"]


def _fit(est: Callable[[dict], float], macros: dict, key: str, target: float, lo: int, hi: int) -> dict:
    """`macros` with `key` in [lo, hi] chosen so that est() comes closest to `target` (est increasing in key)."""

    def at(v: int) -> dict:
        m = dict(macros)
        m[key] = v
        return m

    if est(at(hi)) <= target:
        return at(hi)
    if est(at(lo)) >= target:
        return at(lo)
    a, b = lo, hi
    while b - a > 1:
        mid = (a + b) // 2
        if est(at(mid)) < target:
            a = mid
        else:
            b = mid
    return at(a) if target - est(at(a)) <= est(at(b)) - target else at(b)


def _sized(est: Callable[[dict], float], m1: dict, key: str, lo: int, hi: int, goal: tuple[float, float],
           grow: Callable[[dict], dict] | None = None, loops: Callable[[dict], tuple[float, float]] | None = None
           ) -> tuple[tuple[dict, dict], tuple[float, float]] | None:
    """Fit `key` for both sizes: size 2 first applies `grow` (bigger arrays), then fits to factor x the time.

    `loops(m)` gives (worksharing iterations, worksharing loop executions) over the whole run, checked against
    ITERATIONS_MAX and LOOPS_MAX. None when the model cannot place the draw inside LIMITS (the caller draws again).
    """
    t1, factor = goal
    a = _fit(est, m1, key, t1, lo, hi)
    m2 = dict(a)
    if grow is not None:
        m2.update(grow(a))
    b = _fit(est, m2, key, t1 * factor, lo, hi)
    e1, e2 = est(a), est(b)
    lo1, hi1 = LIMITS["small"]
    flo, fhi = LIMITS["factor"]
    if not (lo1 <= e1 <= hi1 and flo * e1 <= e2 <= min(fhi * e1, LIMITS["large"])):
        return None
    if loops is not None:
        for m, imax, rmax in ((a, ITERATIONS_MAX[0], LOOPS_MAX[0]), (b, ITERATIONS_MAX[1], LOOPS_MAX[1])):
            iters, runs = loops(m)
            if iters > imax or runs > rmax:
                return None
    return (a, b), (e1, e2)


def _pick(rng: random.Random, options):
    return options[rng.randrange(len(options))]


def _fp_checksum(arrays: list[tuple[str, str]], extra: str | None = None) -> str:
    """C lines: a sequential weighted sum of the (array, length) pairs, printed with %.12e."""
    out = ["    double sum = 0.0;"]
    for arr, n in arrays:
        out += [f"    for (long i = 0; i < (long)({n}); i++)",
                f"        sum += (double){arr}[i] * (double)(1 + i % 7);"]
    if extra:
        out.append(f"    sum += (double)({extra});")
    out.append('    printf("checksum: %.12e\\n", sum);')
    return "\n".join(out)


def _int_checksum(arrays: list[tuple[str, str]], extra: str | None = None) -> str:
    """C lines: FNV-1a over the (array, length) pairs (values as unsigned), printed with %llu."""
    out = ["    unsigned long long h = 1469598103934665603ULL;"]
    for arr, n in arrays:
        out += [f"    for (long i = 0; i < (long)({n}); i++) {{",
                f"        h ^= (unsigned long long)(unsigned int){arr}[i];",
                "        h *= 1099511628211ULL;",
                "    }"]
    if extra:
        out.append(f"    h += {extra};")
    out.append('    printf("checksum: %llu\\n", h);')
    return "\n".join(out)


def _c(text: str, **kw) -> str:
    """C text with $names substituted (C itself never uses `$`)."""
    return Template(text).substitute(**kw)


def _frees(names: list[str]) -> str:
    return "    " + " ".join(f"free({n});" for n in names)


def _alloc(t: str, pairs: list[tuple[str, str]]) -> str:
    """C lines: allocate each (name, length) array of type t, return 1 when any allocation fails."""
    out = [f"    {t} *{n} = malloc(sizeof({t}) * (size_t)({ln}));" for n, ln in pairs]
    out.append("    if (" + " || ".join(f"!{n}" for n, _ in pairs) + ")")
    out.append("        return 1;")
    return "\n".join(out)


# ----------------------------------------------------------------------------------------------------------
# the kinds: each draws its knobs with rng and returns a _Draft, or None when the draw cannot be fitted


MAPS = ("trig", "exp", "sqrt", "logistic", "rational")
PROFILES = ("uniform", "linear_up", "heavy", "spikes", "linear_down")


def _map_expr(m: str, t: str) -> str:
    L = lambda x: _lit(x, t)  # noqa: E731
    return {
        "trig": f"v = {_fn('sin', t)}(v) * {L(0.75)} + {_fn('cos', t)}(v * c) * {L(0.25)} + {L(0.1)};",
        "exp": f"v = {_fn('exp', t)}(-v * v) * {L(0.9)} + v * {L(0.05)} + c;",
        "sqrt": f"v = {_fn('sqrt', t)}(v * v + c) * {L(0.5)} + {L(0.25)};",
        "logistic": f"v = ({L(3.5)} + c * {L(0.5)}) * v * ({L(1.0)} - v);",
        "rational": f"v = (v * v + c) / (v * v + {L(1.0)});",
    }[m]


def _mathmap(rng: random.Random, goal, seed: int, k: int) -> _Draft | None:
    t = _pick(rng, ("double", "float"))
    mp = _pick(rng, MAPS)
    prof = PROFILES[k % len(PROFILES)]
    n = _pick(rng, (64, 100, 128, 200, 256, 500, 1000, 4096, 20000, 100000))
    rounds = _pick(rng, (1, 1, 1, 4, 16, 64, 200))
    style = _pick(rng, ("pfor", "pfor", "private", "region")) if rounds > 1 else _pick(rng, ("pfor", "private"))
    cap = rng.randint(5, 10)
    nspike = min(max(1, n // 16), rng.choice((1, 2, 3, 4, 6, 8)))
    phi = rng.uniform(0.3, 0.8)
    grow_n = rng.random() < 0.5 and n >= 1000

    cache: dict[tuple, float] = {}

    def units(nn: int, spike: int) -> float:
        """Map iterations per round per unit of K."""
        key = (nn, spike)
        if key not in cache:
            if prof == "uniform":
                cache[key] = float(nn)
            elif prof in ("linear_up", "linear_down"):
                cache[key] = float(nn)  # 1 + 2K i / N: about K N + N in all
            elif prof == "heavy":
                g = _Lcg(seed)
                cache[key] = float(sum(1 << _trailing_ones(g.u32(), cap) for _ in range(nn)))
            else:
                g = _Lcg(seed)
                pos = {g.u32() % nn for _ in range(nspike)}
                cache[key] = float(nn - len(pos) + len(pos) * spike)
        return cache[key]

    def spike_of(nn: int) -> int:
        return max(4, round(phi * nn / ((1 - phi) * nspike)))

    per = NS[f"map_{mp}_{t}"]

    def est(m: dict) -> float:
        nn, r = m["N"], m["ROUNDS"]
        it = units(nn, m.get("SPIKE", 1)) * m["K"] + (nn if prof.startswith("linear") else 0)
        return (r * (it * per + nn * NS["map_elem"] + NS["region"]) + nn * NS["init"] * 2) * 1e-9

    m1 = {"N": n, "ROUNDS": rounds, "K": 1}
    if prof == "spikes":
        m1["SPIKE"] = spike_of(n)

    def grow(m):
        g = {"N": m["N"] * 4} if grow_n else {}
        if prof == "spikes":
            g["SPIKE"] = spike_of(g.get("N", m["N"]))
        return g

    fit = _sized(est, m1, "K", 1, 10_000_000, goal, grow, lambda m: (m["N"] * m["ROUNDS"], m["ROUNDS"]))
    if fit is None:
        return None
    sizes, e = fit
    if prof == "heavy" and max(m["K"] << cap for m in sizes) >= 2**31:
        return None
    if prof == "spikes" and max(m["K"] * m["SPIKE"] for m in sizes) >= 2**31:
        return None

    L = lambda x: _lit(x, t)  # noqa: E731
    init_work = {
        "uniform": "    for (int i = 0; i < N; i++)\n        work[i] = K;",
        "linear_up": "    for (int i = 0; i < N; i++)\n        work[i] = 1 + (int)((2L * K * i) / N);",
        "linear_down": "    for (int i = 0; i < N; i++)\n        work[i] = 1 + (int)((2L * K * (N - 1 - i)) / N);",
        "heavy": ("    for (int i = 0; i < N; i++) { /* K << g, g geometric (capped at CAP): heavy-tailed */\n"
                  "        unsigned int r = next_u32();\n        int g = 0;\n"
                  "        while ((r & 1u) && g < CAP) {\n            r >>= 1;\n            g++;\n        }\n"
                  "        work[i] = K << g;\n    }"),
        "spikes": ("    for (int i = 0; i < N; i++)\n        work[i] = K;\n"
                   "    for (int s = 0; s < NSPIKE; s++) /* a few very heavy elements */\n"
                   "        work[next_u32() % N] = K * SPIKE;"),
    }[prof]
    if mp == "logistic":
        x0 = f"({t})(0.05 + 0.9 * next_unit())"
    else:
        x0 = f"({t})(0.1 + 0.8 * next_unit())"
    k_decl = "            for (int k = 0; k < w; k++)"
    pragma = "#pragma omp parallel for"
    pre = ""
    if style == "private":
        pre = "    int k;\n"
        pragma = "#pragma omp parallel for private(k)"
        k_decl = "            for (k = 0; k < w; k++)"
    inner = _c("""        for (int i = 0; i < N; i++) {
            $T v = x[i];
            const int w = work[i];
$KDECL
                $MAP
            x[i] = v;
        }""", T=t, KDECL=k_decl, MAP=_map_expr(mp, t))
    c_expr = f"const {t} c = {L(0.3)} + {L(0.1)} * ({t})(r % 4);"
    if style == "region":
        loop = f"#pragma omp parallel\n    for (int r = 0; r < ROUNDS; r++) {{\n        {c_expr}\n#pragma omp for\n" \
               f"{inner}\n    }}"
    else:
        loop = f"    for (int r = 0; r < ROUNDS; r++) {{\n        {c_expr}\n{pragma}\n{inner}\n    }}"
    body = _c("""int main(void)
{
    int *work = malloc(sizeof(int) * N);
    $T *x = malloc(sizeof($T) * N);
    if (!work || !x)
        return 1;
$INIT
    for (int i = 0; i < N; i++)
        x[i] = $X0;
$PRE
$LOOP

$CHK
    free(work);
    free(x);
    return 0;
}
""", T=t, INIT=init_work, X0=x0, PRE=pre.rstrip("\n") if pre else "", LOOP=loop, CHK=_fp_checksum([("x", "N")]))
    body = body.replace("\n\n\n", "\n\n")
    consts = {}
    if prof == "heavy":
        consts["CAP"] = str(cap)
    if prof == "spikes":
        consts["NSPIKE"] = str(nspike)
    what = {"trig": "x <- sin(x) 0.75 + cos(c x) 0.25 + 0.1", "exp": "x <- 0.9 exp(-x^2) + 0.05 x + c",
            "sqrt": "x <- 0.5 sqrt(x^2 + c) + 0.25", "logistic": "x <- (3.5 + c/2) x (1 - x)",
            "rational": "x <- (x^2 + c) / (x^2 + 1)"}[mp]
    return _Draft(
        what=f"{what}, iterated work[i] times on each of N elements of {t}, ROUNDS rounds",
        category=f"mathmap, compute-bound; per-element cost {prof}; map {mp}; {t}; "
                 f"{'one region per round' if style != 'region' else 'one region, omp for per round'}",
        params={"type": t, "map": mp, "profile": prof, "style": style, "nesting": 2,
                **({"cap": cap} if prof == "heavy" else {}), **({"nspike": nspike} if prof == "spikes" else {})},
        sizes=sizes, est=e, body=body, consts=consts)


SPARSE_PROFILES = ("uniform", "growing", "powerlaw", "spikes")


def _sparse(rng: random.Random, goal, seed: int, k: int) -> _Draft | None:
    t = _pick(rng, ("double", "float"))
    prof = SPARSE_PROFILES[k % len(SPARSE_PROFILES)]
    loc = _pick(rng, ("random", "banded"))
    n = _pick(rng, (500, 2000, 10000, 50000, 200000))
    # long rows where every row is alike, or the row iterations (2 N ITERS) would not fill the time
    mean_len = _pick(rng, (32, 48, 64, 96, 128) if prof in ("uniform", "growing") else (3, 4, 6, 8, 12, 16, 24))
    cap = rng.randint(4, 9)
    nspike = rng.randint(1, 6)
    phi = rng.uniform(0.2, 0.6)
    style = _pick(rng, ("pfor", "region"))
    grow = rng.choice((1, 2, 4))
    sz = 8 if t == "double" else 4
    cache: dict[tuple, int] = {}

    def spike_len(nn: int) -> int:
        return max(mean_len, min(nn, round(phi * nn * mean_len / ((1 - phi) * nspike))))

    def nnz(nn: int) -> int:
        if nn not in cache:
            if prof == "uniform":
                cache[nn] = nn * mean_len
            elif prof == "growing":
                cache[nn] = sum(1 + (2 * mean_len * i) // nn for i in range(nn))
            elif prof == "powerlaw":
                g = _Lcg(seed)
                base = max(1, mean_len // 2)
                cache[nn] = sum(min(nn, base << _trailing_ones(g.u32(), cap)) for _ in range(nn))
            else:
                g = _Lcg(seed)
                pos = {g.u32() % nn for _ in range(nspike)}
                cache[nn] = (nn - len(pos)) * mean_len + len(pos) * spike_len(nn)
        return cache[nn]

    def est(m: dict) -> float:
        nn, it = m["N"], m["ITERS"]
        z = nnz(nn)
        where = "banded" if loc == "banded" else _where(nn * sz)
        per = NS["spmv_banded"] if where == "banded" else NS[f"spmv_{where}"]
        stream = z * (sz + 4) * NS[f"byte_{_where(z * (sz + 4))}"]
        sweep = z * per + stream + nn * NS["spmv_row"] + NS["region"]
        return (2 * it * sweep + (z * 2 + nn * 3) * NS["init"]) * 1e-9

    if nnz(n) * (grow if prof != "spikes" else 1) > 12_000_000:
        return None
    fit = _sized(est, {"N": n, "ITERS": 1}, "ITERS", 1, 100_000, goal,
                 lambda m: {"N": m["N"] * grow}, lambda m: (2 * m["N"] * m["ITERS"], 2 * m["ITERS"]))
    if fit is None:
        return None
    sizes, e = fit
    if nnz(sizes[1]["N"]) > 16_000_000:
        return None
    base = max(1, mean_len // 2)
    lens = {
        "uniform": "    for (int i = 0; i < n; i++)\n        len[i] = LEN;",
        "growing": "    for (int i = 0; i < n; i++)\n        len[i] = 1 + (int)((2L * LEN * i) / n);",
        "powerlaw": ("    for (int i = 0; i < n; i++) { /* BASE << g, g geometric (capped at CAP): power law */\n"
                     "        unsigned int r = next_u32();\n        int g = 0;\n"
                     "        while ((r & 1u) && g < CAP) {\n            r >>= 1;\n            g++;\n        }\n"
                     "        len[i] = BASE << g;\n        if (len[i] > n)\n            len[i] = n;\n    }"),
        "spikes": ("    for (int i = 0; i < n; i++)\n        len[i] = LEN;\n"
                   "    for (int s = 0; s < NSPIKE; s++) /* a few dense rows */\n"
                   "        len[next_u32() % (unsigned int)n] = SPIKELEN;"),
    }[prof]
    if loc == "random":
        col = "            col[p] = (int)(next_u32() % (unsigned int)n);"
    else:
        col = ("            col[p] = (int)(((i - BAND + (long)(next_u32() % (2u * BAND + 1u))) % n + n) % n);")
    spmv = _c("""        for (int i = 0; i < n; i++) {
            $T acc = 0;
            for (long p = rowptr[i]; p < rowptr[i + 1]; p++)
                acc += val[p] * $SRC[col[p]];
            $DST[i] = acc * $HALF + b[i];
        }""", T=t, HALF=_lit(0.5, t), SRC="$SRC", DST="$DST")
    one = spmv.replace("$SRC", "x").replace("$DST", "y")
    two = spmv.replace("$SRC", "y").replace("$DST", "x")
    if style == "region":
        loop = f"#pragma omp parallel\n    for (int it = 0; it < ITERS; it++) {{\n#pragma omp for\n{one}\n" \
               f"#pragma omp for\n{two}\n    }}"
    else:
        loop = f"    for (int it = 0; it < ITERS; it++) {{\n#pragma omp parallel for\n{one}\n" \
               f"#pragma omp parallel for\n{two}\n    }}"
    body = _c("""int main(void)
{
    const int n = N;
    int *len = malloc(sizeof(int) * (size_t)n);
    long *rowptr = malloc(sizeof(long) * ((size_t)n + 1));
    if (!len || !rowptr)
        return 1;
$LENS
    rowptr[0] = 0;
    for (int i = 0; i < n; i++)
        rowptr[i + 1] = rowptr[i] + len[i];
    const long nnz = rowptr[n];
    int *col = malloc(sizeof(int) * (size_t)nnz);
    $T *val = malloc(sizeof($T) * (size_t)nnz);
    $T *x = malloc(sizeof($T) * (size_t)n);
    $T *y = malloc(sizeof($T) * (size_t)n);
    $T *b = malloc(sizeof($T) * (size_t)n);
    if (!col || !val || !x || !y || !b)
        return 1;
    for (int i = 0; i < n; i++) {
        for (long p = rowptr[i]; p < rowptr[i + 1]; p++) {
$COL
            val[p] = ($T)((0.1 + 0.9 * next_unit()) / len[i]); /* row sums below 1: bounded iterates */
        }
        x[i] = ($T)(0.5 + 0.5 * next_unit());
        b[i] = ($T)(0.1 + 0.25 * next_unit());
    }

$LOOP

$CHK
    free(len); free(rowptr); free(col); free(val); free(x); free(y); free(b);
    return 0;
}
""", T=t, LENS=lens, COL=col, LOOP=loop, CHK=_fp_checksum([("x", "n"), ("y", "n")]))
    consts = {"LEN": str(mean_len)}
    if prof == "powerlaw":
        consts.update(BASE=str(base), CAP=str(cap))
    if prof == "spikes":
        consts["NSPIKE"] = str(nspike)
    if loc == "banded":
        consts["BAND"] = str(max(32, 4 * mean_len))
    sizes_out = sizes
    if prof == "spikes":
        sizes_out = tuple({**m, "SPIKELEN": spike_len(m["N"])} for m in sizes)  # type: ignore[assignment]
    desc = {"uniform": f"{mean_len} per row", "growing": f"1 ... {2 * mean_len} rising with the row",
            "powerlaw": f"{base} << g, g geometric capped at {cap}",
            "spikes": f"{mean_len} per row, {nspike} dense row(s)"}[prof]
    return _Draft(
        what=f"repeated CSR y = 0.5 A x + b, x = 0.5 A y + b, N rows, ITERS iterations of two products ({t})",
        category=f"sparse, memory-bound; row lengths {prof} ({desc}); {loc} columns; "
                 f"{'one region per product' if style == 'pfor' else 'one region, omp for per product'}",
        params={"type": t, "profile": prof, "columns": loc, "mean_len": mean_len, "style": style, "nesting": 2},
        sizes=sizes_out, est=e, body=body, consts=consts)


def _triangular(rng: random.Random, goal, seed: int, k: int) -> _Draft | None:
    t = ("double", "int", "float")[k % 3]
    pair = "count" if t == "int" else _pick(rng, ("coulomb", "gauss", "lj"))
    direction = ("lower", "upper")[k % 2]
    rounds = _pick(rng, (1, 1, 2, 4, 10))
    clause = _pick(rng, ("plain", "private", "firstprivate"))
    per = NS["pair_count_int"] if t == "int" else NS[f"pair_{pair}_{t}"]

    def est(m: dict) -> float:
        nn = m["N"]
        return (m["ROUNDS"] * (nn * (nn - 1) / 2 * per + nn * 3 + NS["region"]) + nn * 5 * NS["init"]) * 1e-9

    fit = _sized(est, {"N": 1000, "ROUNDS": rounds}, "N", 200, 60_000, goal, None,
                 lambda m: (m["N"] * m["ROUNDS"], m["ROUNDS"]))
    if fit is None:
        return None
    sizes, e = fit  # size 2 grows N, not the rounds
    jl = "for (j = 0; j < i; j++)" if direction == "lower" else "for (j = i + 1; j < N; j++)"
    pre = "    int j;\n" if clause == "private" else ""
    if clause != "private":
        jl = jl.replace("(j = ", "(int j = ")
    L = lambda x: _lit(x, t)  # noqa: E731
    if t == "int":
        red = "reduction(+:total)"
        pragma = {"plain": f"#pragma omp parallel for {red}",
                  "private": f"#pragma omp parallel for private(j) {red}",
                  "firstprivate": f"#pragma omp parallel for firstprivate(r2) {red}"}[clause]
        loop = _c("""    unsigned long long total = 0;
    const int r2 = R2;
$PRE    for (int r = 0; r < ROUNDS; r++) {
$PRAGMA
        for (int i = 0; i < N; i++) {
            unsigned int cnt = 0;
            $JL {
                const int dx = px[i] - px[j], dy = py[i] - py[j], dz = pz[i] - pz[j];
                cnt += (unsigned int)(dx * dx + dy * dy + dz * dz < r2);
            }
            e[i] = cnt;
            total += cnt;
        }
        for (int i = 0; i < N; i++) /* move the points (sequential) */
            px[i] = (px[i] + 1 + (i + r) % 5) & 1023;
    }""", PRE=pre, PRAGMA=pragma, JL=jl)
        body = _c("""int main(void)
{
    int *px = malloc(sizeof(int) * N), *py = malloc(sizeof(int) * N), *pz = malloc(sizeof(int) * N);
    unsigned int *e = malloc(sizeof(unsigned int) * N);
    if (!px || !py || !pz || !e)
        return 1;
    for (int i = 0; i < N; i++) {
        px[i] = (int)(next_u32() & 1023u);
        py[i] = (int)(next_u32() & 1023u);
        pz[i] = (int)(next_u32() & 1023u);
    }
$LOOP

$CHK
    free(px); free(py); free(pz); free(e);
    return 0;
}
""", LOOP=loop, CHK=_int_checksum([("e", "N")], "total * 31ULL"))
        consts = {"R2": str(_pick(rng, (40000, 90000, 160000)))}
        what = "neighbour counts e[i] = #{j : |p_i - p_j|^2 < R2} over integer points in a 1024^3 box"
    else:
        term = {"coulomb": f"q[j] / {_fn('sqrt', t)}(d2 + eps)",
                "gauss": f"q[j] * {_fn('exp', t)}(-(d2 + eps) * {L(4.0)})",
                "lj": None}[pair]
        if pair == "lj":
            acc_line = (f"const {t} inv = {L(1.0)} / (d2 + eps);\n                const {t} s6 = inv * inv * inv;\n"
                        f"                acc += q[j] * s6 * (s6 * {L(0.001)} - {L(0.01)});")
        else:
            acc_line = f"acc += {term};"
        pragma = {"plain": "#pragma omp parallel for", "private": "#pragma omp parallel for private(j)",
                  "firstprivate": "#pragma omp parallel for firstprivate(eps)"}[clause]
        loop = _c("""    const $T eps = $EPS;
$PRE    for (int r = 0; r < ROUNDS; r++) {
$PRAGMA
        for (int i = 0; i < N; i++) {
            $T acc = 0;
            $JL {
                const $T dx = px[i] - px[j], dy = py[i] - py[j], dz = pz[i] - pz[j];
                const $T d2 = dx * dx + dy * dy + dz * dz;
                $ACC
            }
            e[i] = q[i] * acc;
        }
        for (int i = 0; i < N; i++) /* move the points (sequential) */
            px[i] += ($T)((i + r) % 7) * $STEP - $OFF;
    }""", T=t, EPS=L(0.1 if pair == "lj" else 0.01), PRE=pre, PRAGMA=pragma, JL=jl, ACC=acc_line,
                  STEP=L(1e-4), OFF=L(3e-4))
        body = _c("""int main(void)
{
$ALLOC
    for (int i = 0; i < N; i++) {
        px[i] = ($T)next_unit();
        py[i] = ($T)next_unit();
        pz[i] = ($T)next_unit();
        q[i] = ($T)(0.5 + next_unit());
    }
$LOOP

$CHK
    free(px); free(py); free(pz); free(q); free(e);
    return 0;
}
""", T=t, ALLOC=_alloc(t, [(a_, "N") for a_ in ("px", "py", "pz", "q", "e")]), LOOP=loop,
                  CHK=_fp_checksum([("e", "N")]))
        consts = {}
        what = {"coulomb": "softened Coulomb sums e[i] = q_i sum_j q_j / sqrt(|p_i - p_j|^2 + eps)",
                "gauss": "Gaussian kernel sums e[i] = q_i sum_j q_j exp(-4 (|p_i - p_j|^2 + eps))",
                "lj": "Lennard-Jones-like sums e[i] = q_i sum_j q_j s6 (s6/1000 - 1/100), s6 = 1/(d^2 + eps)^3"}[pair]
    side = "j < i (row i costs i pairs: heaviest last)" if direction == "lower" else \
        "j > i (row i costs N-1-i pairs: heaviest first)"
    return _Draft(
        what=f"{what}, over {side}, ROUNDS rounds",
        category=f"triangular, linear imbalance; {t}; pair {pair}; {direction}; clause {clause}",
        params={"type": t, "pair": pair, "direction": direction, "clause": clause, "nesting": 2},
        sizes=sizes, est=e, body=body, consts=consts)


def _interp_log(table: dict[float, float], x: float) -> float:
    """Piecewise-linear interpolation of table (keyed by log10 x) at x, clamped at the ends."""
    keys = sorted(table)
    lx = math.log10(max(x, 1.0))
    if lx <= keys[0]:
        return table[keys[0]]
    for a, b in zip(keys, keys[1:]):
        if lx <= b:
            return table[a] + (table[b] - table[a]) * (lx - a) / (b - a)
    a, b = keys[-2], keys[-1]
    return table[b] + (table[b] - table[a]) * (lx - b) / (b - a)


COLLATZ_STEPS = {3.0: 108.0, 5.0: 121.8, 6.0: 141.9, 7.0: 163.7}  # mean stopping time near 10^k
TRIAL_DIVS = {3.0: 14.1, 5.0: 22.3, 6.0: 48.7, 7.0: 124.8}        # mean trial divisions near 10^k


def _intwork(rng: random.Random, goal, seed: int, k: int) -> _Draft | None:
    op = ("collatz", "primes", "xorshift")[k % 3]
    rounds = _pick(rng, (1, 1, 2, 5, 20))
    start = _pick(rng, (1000, 30000, 200000, 1000000, 3000000))
    varlen = _pick(rng, ("uniform", "heavy"))
    cap = rng.randint(4, 8)
    clause = _pick(rng, ("plain", "firstprivate"))
    n0 = _pick(rng, (256, 1000, 5000, 20000, 100000))
    cache: dict[int, int] = {}

    def rounds_sum(nn: int) -> int:
        if nn not in cache:
            g = _Lcg(seed)
            if varlen == "uniform":
                cache[nn] = sum(1 + g.u32() % 64 for _ in range(nn))
            else:
                cache[nn] = sum(4 << _trailing_ones(g.u32(), cap) for _ in range(nn))
        return cache[nn]

    def est(m: dict) -> float:
        r = m["ROUNDS"]
        if op == "collatz":
            nn = m["N"]
            per = _interp_log(COLLATZ_STEPS, start + r * nn / 2) * NS["collatz"]
            work = r * nn * (per + NS["int_elem"])
        elif op == "primes":
            nn = m["N"]
            per = _interp_log(TRIAL_DIVS, start + r * nn / 2) * NS["trialdiv"]
            work = r * nn * (per + NS["int_elem"])
        else:
            nn = n0
            work = r * (rounds_sum(nn) * m["K"] * NS["xorshift"] + nn * NS["int_elem"]) + nn * NS["init"]
        return (work + r * NS["region"]) * 1e-9

    if op == "xorshift":
        if rounds_sum(n0) * 4 > 2**31:
            return None
        fit = _sized(est, {"N": n0, "ROUNDS": rounds, "K": 1}, "K", 1, 1_000_000, goal, None,
                     lambda m: (m["N"] * m["ROUNDS"], m["ROUNDS"]))
    else:
        fit = _sized(est, {"N": 1000, "ROUNDS": rounds}, "N", 100, 20_000_000, goal, None,
                     lambda m: (m["N"] * m["ROUNDS"], m["ROUNDS"]))
    if fit is None:
        return None
    sizes, e = fit
    red = "reduction(+:total) reduction(max:longest)"
    pragma = f"#pragma omp parallel for {red}" if clause == "plain" else \
        f"#pragma omp parallel for firstprivate(base) {red}"
    if op == "collatz":
        work = """            unsigned long long v = base + (unsigned long long)i;
            unsigned int steps = 0;
            while (v != 1ULL) {
                v = (v & 1ULL) ? 3ULL * v + 1ULL : v >> 1;
                steps++;
            }
            out[i] = steps;"""
        what = "Collatz stopping times of START + r N + i (irregular cost per element)"
    elif op == "primes":
        work = """            const unsigned int v = (unsigned int)(base + (unsigned long long)i);
            unsigned int f = v; /* smallest prime factor by trial division (v itself when prime) */
            if (v % 2u == 0u)
                f = 2u;
            else
                for (unsigned int d = 3u; d * d <= v; d += 2u)
                    if (v % d == 0u) {
                        f = d;
                        break;
                    }
            out[i] = f;"""
        what = "smallest prime factors of START + r N + i by trial division (primes cost sqrt(v)/2 divisions)"
    else:
        work = """            unsigned long long v = base + (unsigned long long)i * 0x9E3779B97F4A7C15ULL;
            const unsigned int len = (unsigned int)K * reps[i];
            for (unsigned int k = 0; k < len; k++) { /* xorshift64 rounds */
                v ^= v << 13;
                v ^= v >> 7;
                v ^= v << 17;
            }
            out[i] = (unsigned int)(v >> 40);"""
        what = "xorshift64 hashes of random length K reps[i] per element"
    reps_init = ""
    if op == "xorshift":
        reps_init = {"uniform": "    for (int i = 0; i < N; i++)\n        reps[i] = 1u + next_u32() % 64u;",
                     "heavy": ("    for (int i = 0; i < N; i++) { /* 4 << g, g geometric (capped at CAP) */\n"
                               "        unsigned int r = next_u32();\n        int g = 0;\n"
                               "        while ((r & 1u) && g < CAP) {\n            r >>= 1;\n            g++;\n"
                               "        }\n        reps[i] = 4u << g;\n    }")}[varlen]
    body = _c("""int main(void)
{
    unsigned int *out = malloc(sizeof(unsigned int) * N);
    unsigned int *reps = malloc(sizeof(unsigned int) * N);
    if (!out || !reps)
        return 1;
$REPS
    unsigned long long total = 0;
    unsigned int longest = 0;
    unsigned long long h = 1469598103934665603ULL;
    for (int r = 0; r < ROUNDS; r++) {
        const unsigned long long base = (unsigned long long)START + (unsigned long long)r * N;
$PRAGMA
        for (int i = 0; i < N; i++) {
$WORK
            total += out[i];
            if (out[i] > longest)
                longest = out[i];
        }
        for (int i = 0; i < N; i++) { /* fold this round's values in, sequentially */
            h ^= (unsigned long long)out[i];
            h *= 1099511628211ULL;
        }
    }
    printf("checksum: %llu\\n", h + total * 31ULL + (unsigned long long)longest);
    free(out);
    free(reps);
    return 0;
}
""", REPS=reps_init or "    for (int i = 0; i < N; i++)\n        reps[i] = 1u;", PRAGMA=pragma, WORK=work)
    consts = {"START": str(start)}
    if op == "xorshift" and varlen == "heavy":
        consts["CAP"] = str(cap)
    cat = op + (f"; lengths {varlen}" if op == "xorshift" else "")
    return _Draft(
        what=what + ", ROUNDS rounds of N elements",
        category=f"intwork, integer, irregular cost; {cat}; reductions + and max; clause {clause}",
        params={"type": "unsigned", "op": op, **({"lengths": varlen} if op == "xorshift" else {}),
                "clause": clause, "nesting": 2},
        sizes=sizes, est=e, body=body, consts=consts)


def _blocked(head: str, lo: str, hi: str, stmt: str, block: int) -> str:
    """A worksharing loop `for (long i = lo; i < hi; i++) stmt`, over blocks of BLK elements when block > 0."""
    def ind(n: int) -> str:
        return "\n".join(" " * n + ln for ln in stmt.splitlines())

    opener = " {" if "\n" in stmt else ""
    closer = "\n{}}}" if "\n" in stmt else ""
    if not block:
        return f"{head}\n        for (long i = {lo}; i < {hi}; i++){opener}\n{ind(12)}" + closer.format(" " * 8)
    first = "bk * BLK" if lo == "0" else f"bk * BLK > {lo} ? bk * BLK : {lo}"
    return (f"{head}\n        for (long bk = 0; bk < ({hi} + BLK - 1) / BLK; bk++) {{\n"
            f"            const long lo = {first};\n"
            f"            const long hi = (bk + 1) * BLK < {hi} ? (bk + 1) * BLK : {hi};\n"
            f"            for (long i = lo; i < hi; i++){opener}\n{ind(16)}" + closer.format(" " * 12) + "\n        }")


def _stream(rng: random.Random, goal, seed: int, k: int) -> _Draft | None:
    t = _pick(rng, ("float", "double", "int", "unsigned"))
    op = ("decay", "triad2", "smooth")[k % 3]
    style = _pick(rng, ("pfor", "region"))
    n = _pick(rng, (20000, 50000, 100000, 250000, 500000, 1000000, 2000000))
    block = _pick(rng, (0, 256, 1024, 4096))
    grow = _pick(rng, (1, 2, 4))
    sz = 8 if t == "double" else 4
    nloops = 1 if op == "decay" else 2

    def est(m: dict) -> float:
        nn = m["N"]
        ws = (2 if op == "decay" else 3) * nn * sz
        per = (2 if op == "decay" else 3) * sz * NS[f"byte_{_where(ws)}"] * nloops * nn
        return (m["STEPS"] * (per + nloops * NS["region"]) + 2 * nn * NS["init"]) * 1e-9

    def loops(m: dict) -> tuple[float, float]:
        trip = m["N"] if not block else -(-m["N"] // block)
        return m["STEPS"] * nloops * trip, m["STEPS"] * nloops

    if n * grow > 4_000_000:
        grow = 1
    fit = _sized(est, {"N": n, "STEPS": 1}, "STEPS", 3, 100_000, goal, lambda m: {"N": m["N"] * grow}, loops)
    if fit is None:
        return None
    sizes, e = fit
    fp = t in ("float", "double")
    L = lambda x: _lit(x, t)  # noqa: E731
    if fp:
        s_expr = f"const {t} s = {L(0.25)} + {L(0.125)} * ({t})(t % 5);"
        l1, l2 = {
            "decay": (f"a[i] = a[i] * {L(0.5)} + b[i] * s;", None),
            "triad2": ("a[i] = b[i] + s * c[i];", f"b[i] = a[i] * {L(0.5)} - c[i] * {L(0.25)};"),
            "smooth": (f"a[i] = b[i - 1] * {L(0.25)} + b[i] * {L(0.5)} + b[i + 1] * {L(0.25)} + s * c[i];",
                       f"b[i] = a[i] * {L(0.5)} + c[i] * {L(0.125)};"),
        }[op]
        init = f"        a[i] = 0;\n        b[i] = ({t})next_unit();\n        c[i] = ({t})next_unit();"
        chk = _fp_checksum([("a", "n"), ("b", "n")])
    else:
        s_expr = f"const {t} s = ({t})(1 + t % 4);"
        l1, l2 = {
            "decay": ("a[i] = (a[i] >> 1) + b[i] * s;", None),
            "triad2": ("a[i] = b[i] + s * c[i];", "b[i] = (a[i] >> 1) ^ (c[i] & 255);"),
            "smooth": ("a[i] = ((b[i - 1] + 2 * b[i] + b[i + 1]) >> 2) + s * c[i];",
                       "b[i] = (a[i] >> 1) + (c[i] & 15);"),
        }[op]
        init = (f"        a[i] = 0;\n        b[i] = ({t})(next_u32() % 1024u);\n"
                f"        c[i] = ({t})(next_u32() % 1024u);")
        chk = _int_checksum([("a", "n"), ("b", "n")])
    head = "#pragma omp for" if style == "region" else "#pragma omp parallel for"
    parts = [_blocked(head, "1", "n - 1", l1, block) if op == "smooth" else _blocked(head, "0", "n", l1, block)]
    if l2:
        parts.append(_blocked(head, "0", "n", l2, block))
    inner = "\n".join(parts)
    if style == "region":
        loop = f"#pragma omp parallel\n    for (int t = 0; t < STEPS; t++) {{\n        {s_expr}\n{inner}\n    }}"
    else:
        loop = f"    for (int t = 0; t < STEPS; t++) {{\n        {s_expr}\n{inner}\n    }}"
    body = _c("""int main(void)
{
    const long n = N;
$ALLOC
    for (long i = 0; i < n; i++) {
$INIT
    }

$LOOP

$CHK
    free(a);
    free(b);
    free(c);
    return 0;
}
""", ALLOC=_alloc(t, [("a", "n"), ("b", "n"), ("c", "n")]), INIT=init, LOOP=loop, CHK=chk)
    what = {"decay": "a = a/2 + s b", "triad2": "a = b + s c, then b from a and c",
            "smooth": "a = 3-point smoothing of b + s c, then b from a and c"}[op]
    return _Draft(
        what=f"{what} over N elements of {t}, STEPS time steps (streaming array updates)",
        category=f"stream, memory-bound, uniform; op {op}; {t}; "
                 f"{f'blocks of {block} elements' if block else 'one element per iteration'}; "
                 f"{'one region per loop' if style == 'pfor' else 'one region around the time loop'}",
        params={"type": t, "op": op, "block": block, "style": style, "nesting": 1 if not block else 2},
        sizes=sizes, est=e, body=body, consts={"BLK": str(block)} if block else {})


def _timestep(rng: random.Random, goal, seed: int, k: int) -> _Draft | None:
    t = _pick(rng, ("double", "float"))
    n = _pick(rng, (64, 96, 128, 200, 256, 384, 500, 1000, 2000))
    steps = _pick(rng, (100, 200, 300, 500, 800, 1200))
    nloops = (2, 3)[k % 2]
    style = ("pfor", "region")[(k // 2) % 2]
    grow_n, grow_steps = _pick(rng, ((1, 2), (1, 3), (2, 1), (2, 2)))

    def est(m: dict) -> float:
        nn = m["N"]
        per = nn * ((2 * m["R"] + 1) * NS["tap"] + NS["blend"] + (NS["sqrtloop"] if nloops == 3 else 0))
        return (m["STEPS"] * (per + nloops * NS["region"]) + nn * 3 * NS["init"]) * 1e-9

    # the free knob is the stencil radius R (work per point): the number of loops stays in the hundreds
    fit = _sized(est, {"N": n, "STEPS": steps, "R": 1}, "R", 1, n // 2, goal,
                 lambda m: {"N": m["N"] * grow_n, "STEPS": m["STEPS"] * grow_steps},
                 lambda m: (nloops * m["N"] * m["STEPS"], nloops * m["STEPS"]))
    if fit is None:
        return None
    sizes, e = fit
    L = lambda x: _lit(x, t)  # noqa: E731
    head = "#pragma omp for" if style == "region" else "#pragma omp parallel for"
    loops = [_c("""$HEAD
        for (int i = 0; i < n; i++) {
            $T acc = f[i];
            for (int k = -R; k <= R; k++) {
                int j = i + k;
                if (j < 0)
                    j += n;
                else if (j >= n)
                    j -= n;
                acc += w[k + R] * x[j];
            }
            y[i] = acc;
        }""", HEAD=head, T=t),
             f"{head}\n        for (int i = 0; i < n; i++)\n            x[i] = x[i] * {L(0.5)} + y[i] * {L(0.5)};"]
    if nloops == 3:
        loops.append(f"{head}\n        for (int i = 0; i < n; i++)\n"
                     f"            z[i] = z[i] * {L(0.9)} + {_fn('sqrt', t)}(y[i] * y[i] + {L(0.01)}) * {L(0.1)};")
    inner = "\n".join(loops)
    if style == "region":
        loop = f"#pragma omp parallel\n    for (int t = 0; t < STEPS; t++) {{\n{inner}\n    }}"
    else:
        loop = f"    for (int t = 0; t < STEPS; t++) {{\n{inner}\n    }}"
    body = _c("""int main(void)
{
    const int n = N;
    $T w[2 * R + 1];
$ALLOC
    for (int k = 0; k < 2 * R + 1; k++) /* positive taps summing to at most 0.9 */
        w[k] = ($T)(0.6 * (0.5 + next_unit()) / (2 * R + 1));
    for (int i = 0; i < n; i++) {
        x[i] = ($T)next_unit();
        y[i] = 0;
        z[i] = 0;
        f[i] = ($T)(0.01 + 0.05 * next_unit());
    }

$LOOP

$CHK
    free(x); free(y); free(z); free(f);
    return 0;
}
""", T=t, ALLOC=_alloc(t, [("x", "n"), ("y", "n"), ("z", "n"), ("f", "n")]), LOOP=loop,
              CHK=_fp_checksum([("x", "n"), ("z", "n")]))
    return _Draft(
        what=f"periodic (2R+1)-tap stencil y = f + w * x, x = (x + y)/2"
             f"{', z = 0.9 z + 0.1 sqrt(y^2 + 0.01)' if nloops == 3 else ''} on N points of {t}, STEPS steps",
        category=f"timestep, many small regions (fork/join and barrier overhead); {nloops} loops per "
                 f"step; {'one region per loop' if style == 'pfor' else 'one region, omp for per loop'}",
        params={"type": t, "loops_per_step": nloops, "style": style, "nesting": 2},
        sizes=sizes, est=e, body=body)


def _stencil2d(rng: random.Random, goal, seed: int, k: int) -> _Draft | None:
    t = _pick(rng, ("double", "float"))
    pts = _pick(rng, (5, 9))
    nx = _pick(rng, (64, 100, 128, 200, 256, 500, 1000, 2000, 4000))
    ny = _pick(rng, (64, 128, 256, 500, 1000, 2000, 4000))
    if not 10_000 <= nx * ny <= 4_000_000:
        return None
    clause = ("collapse", "inner", "private")[k % 3]
    bj = _pick(rng, (32, 64, 128, 256))
    style = _pick(rng, ("pfor", "region"))
    grow = _pick(rng, (1, 2, 3))
    sz = 8 if t == "double" else 4

    def trip(m: dict) -> int:
        return (m["NX"] - 2) * (-(-(m["NY"] - 2) // bj) if clause == "collapse" else 1)

    def est(m: dict) -> float:
        cells = (m["NX"] - 2) * (m["NY"] - 2)
        per = NS[f"cell{pts}_{t}"] * _cell_factor(2 * m["NX"] * m["NY"] * sz)
        over = trip(m) * NS["collapse_iter"] if clause == "collapse" else 0
        return (m["STEPS"] * 2 * (cells * per + over + NS["region"]) + m["NX"] * m["NY"] * NS["init"]) * 1e-9

    fit = _sized(est, {"NX": nx, "NY": ny, "STEPS": 1}, "STEPS", 2, 20_000, goal,
                 lambda m: {"NY": m["NY"] * grow}, lambda m: (2 * m["STEPS"] * trip(m), 2 * m["STEPS"]))
    if fit is None:
        return None
    sizes, e = fit
    L = lambda x: _lit(x, t)  # noqa: E731
    if pts == 5:
        expr = f"{L(0.2)} * ($S[IDX(i, j)] + $S[IDX(i - 1, j)] + $S[IDX(i + 1, j)] + $S[IDX(i, j - 1)] " \
               f"+ $S[IDX(i, j + 1)])"
    else:
        expr = f"{L(1.0 / 9.0)} * ($S[IDX(i - 1, j - 1)] + $S[IDX(i - 1, j)] + $S[IDX(i - 1, j + 1)]\n" \
               f"                    + $S[IDX(i, j - 1)] + $S[IDX(i, j)] + $S[IDX(i, j + 1)]\n" \
               f"                    + $S[IDX(i + 1, j - 1)] + $S[IDX(i + 1, j)] + $S[IDX(i + 1, j + 1)])"
    base = "#pragma omp for" if style == "region" else "#pragma omp parallel for"
    prag = {"collapse": f"{base} collapse(2)", "inner": base, "private": f"{base} private(j)"}[clause]
    jdecl = "j" if clause == "private" else "int j"

    def sweep(src: str, dst: str) -> str:
        if clause == "collapse":  # collapse(2) over rows and blocks of BJ columns
            return (f"{prag}\n        for (int i = 1; i < NX - 1; i++)\n"
                    f"            for (int jb = 0; jb < NJB; jb++) {{\n"
                    f"                const int j1 = 1 + (jb + 1) * BJ < NY - 1 ? 1 + (jb + 1) * BJ : NY - 1;\n"
                    f"                for (int j = 1 + jb * BJ; j < j1; j++)\n"
                    f"                    {dst}[IDX(i, j)] = "
                    + Template(expr).substitute(S=src).replace("\n    ", "\n        ") + ";\n            }")
        return (f"{prag}\n        for (int i = 1; i < NX - 1; i++)\n"
                f"            for ({jdecl} = 1; j < NY - 1; j++)\n"
                f"                {dst}[IDX(i, j)] = " + Template(expr).substitute(S=src) + ";")

    inner = sweep("A", "B") + "\n" + sweep("B", "A")
    if style == "region":
        loop = f"#pragma omp parallel\n    for (int t = 0; t < STEPS; t++) {{\n{inner}\n    }}"
    else:
        loop = f"    for (int t = 0; t < STEPS; t++) {{\n{inner}\n    }}"
    pre = "    int j;\n" if clause == "private" else ""
    body = _c("""#define IDX(i, j) ((long)(i) * NY + (j)) /* long: the inner loop vectorizes for every NY */

int main(void)
{
$ALLOC
    for (long k = 0; k < (long)NX * NY; k++)
        A[k] = B[k] = ($T)next_unit();
$PRE
$LOOP

$CHK
    free(A);
    free(B);
    return 0;
}
""", T=t, ALLOC=_alloc(t, [("A", "(long)NX * NY"), ("B", "(long)NX * NY")]), PRE=pre.rstrip("\n"), LOOP=loop,
              CHK=_fp_checksum([("A", "(long)NX * NY")]))
    body = body.replace("\n\n\n", "\n\n")
    consts = {"BJ": str(bj), "NJB": "((NY - 2 + BJ - 1) / BJ)"} if clause == "collapse" else {}
    how = {"collapse": f"collapse(2) over rows x blocks of {bj} columns", "inner": "outer loop only",
           "private": "outer loop, private(j)"}[clause]
    return _Draft(
        what=f"{pts}-point Jacobi averaging sweeps A -> B -> A on an NX x NY grid of {t}, STEPS double sweeps",
        category=f"stencil2d, 2-level nest; {t}; {pts} points; outer trip NX-2; "
                 f"{how}; "
                 f"{'one region per sweep' if style == 'pfor' else 'one region around the time loop'}",
        params={"type": t, "points": pts, "clause": clause, "style": style,
                "nesting": 2 if clause != "collapse" else 3},
        sizes=sizes, est=e, body=body, consts=consts)


def _allpairs(rng: random.Random, goal, seed: int, k: int) -> _Draft | None:
    t = ("double", "float")[k % 2]
    n = _pick(rng, (64, 100, 128, 200, 256, 400, 512, 768, 1024, 1500))
    style = _pick(rng, ("pfor", "region"))
    grow = _pick(rng, (1.0, 1.5, 2.0))

    def est(m: dict) -> float:
        nn = m["N"]
        return (m["STEPS"] * (nn * nn * NS[f"body_{t}"] + nn * 10 + 2 * NS["region"]) + nn * 7 * NS["init"]) * 1e-9

    fit = _sized(est, {"N": n, "STEPS": 1}, "STEPS", 10, 30_000, goal, lambda m: {"N": int(m["N"] * grow)},
                 lambda m: (2 * m["N"] * m["STEPS"], 2 * m["STEPS"]))
    if fit is None:
        return None
    sizes, e = fit
    L = lambda x: _lit(x, t)  # noqa: E731
    head = "#pragma omp for" if style == "region" else "#pragma omp parallel for"
    loops = _c("""$HEAD
        for (int i = 0; i < N; i++) {
            $T ax = 0, ay = 0, az = 0;
            for (int j = 0; j < N; j++) {
                const $T dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
                const $T inv = $ONE / $SQRT(dx * dx + dy * dy + dz * dz + $EPS2);
                const $T s = m[j] * inv * inv * inv;
                ax += dx * s;
                ay += dy * s;
                az += dz * s;
            }
            vx[i] = vx[i] * $DAMP + ax * $DT;
            vy[i] = vy[i] * $DAMP + ay * $DT;
            vz[i] = vz[i] * $DAMP + az * $DT;
        }
$HEAD
        for (int i = 0; i < N; i++) {
            x[i] += vx[i] * $DT;
            y[i] += vy[i] * $DT;
            z[i] += vz[i] * $DT;
        }""", HEAD=head, T=t, ONE=L(1.0), SQRT=_fn("sqrt", t), EPS2=L(0.01), DAMP=L(0.99), DT=L(0.001))
    if style == "region":
        loop = f"#pragma omp parallel\n    for (int t = 0; t < STEPS; t++) {{\n{loops}\n    }}"
    else:
        loop = f"    for (int t = 0; t < STEPS; t++) {{\n{loops}\n    }}"
    arrays = ("x", "y", "z", "vx", "vy", "vz", "m")
    body = _c("""int main(void)
{
$ALLOC
    for (int i = 0; i < N; i++) {
        x[i] = ($T)next_unit();
        y[i] = ($T)next_unit();
        z[i] = ($T)next_unit();
        vx[i] = vy[i] = vz[i] = 0;
        m[i] = ($T)((0.5 + next_unit()) / N);
    }

$LOOP

$CHK
$FREE
    return 0;
}
""", T=t, ALLOC=_alloc(t, [(a_, "N") for a_ in arrays]), LOOP=loop,
              CHK=_fp_checksum([("x", "N"), ("y", "N"), ("vz", "N")]), FREE=_frees(list(arrays)))
    return _Draft(
        what=f"softened N-body steps (a_i = sum_j m_j d / (|d|^2 + 0.01)^1.5, damped velocities) on N bodies of {t}, "
             f"STEPS steps",
        category=f"allpairs, compute-bound, uniform, O(N^2) per step; {t}; "
                 f"{'one region per loop' if style == 'pfor' else 'one region around the time loop'}",
        params={"type": t, "style": style, "nesting": 2},
        sizes=sizes, est=e, body=body)


# mean iterations per pixel at MAXIT = 100, 300, 1000, 3000 (measured at 320 x 240)
ESCAPE_WINDOWS: dict[str, tuple[tuple[float, float, float, float], tuple[float, ...], str]] = {
    "full": ((-2.1, 0.7, -1.2, 1.2), (27.35, 72.88, 230.53, 679.82), "the whole set (22% inside, central band)"),
    "antenna": ((-2.2, -1.0, -0.6, 0.6), (13.51, 30.43, 88.58, 253.74), "the antenna (8% inside, at one edge)"),
    "seahorse": ((-0.80, -0.70, 0.05, 0.15), (85.36, 234.24, 737.23, 2155.61), "seahorse valley (71% inside)"),
    "spiral": ((-0.75, -0.73, 0.10, 0.12), (88.84, 232.57, 678.37, 1886.69), "a spiral (60% inside, fine detail)"),
    "bulb": ((-0.6, 0.4, 0.3, 1.1), (46.31, 125.29, 398.24, 1175.22), "the upper bulb (39% inside)"),
}
ESCAPE_MAXITS = (100, 300, 1000, 3000)


def _escape_mean(window: str, maxit: int) -> float:
    ys = ESCAPE_WINDOWS[window][1]
    xs = ESCAPE_MAXITS
    if maxit <= xs[0]:
        return ys[0] * maxit / xs[0]
    for (a, fa), (b, fb) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
        if maxit <= b:
            return fa + (fb - fa) * (maxit - a) / (b - a)
    return ys[-1] + (ys[-1] - ys[-2]) * (maxit - xs[-1]) / (xs[-1] - xs[-2])


def _escape(rng: random.Random, goal, seed: int, k: int) -> _Draft | None:
    window = tuple(ESCAPE_WINDOWS)[k % len(ESCAPE_WINDOWS)]
    t = _pick(rng, ("double", "double", "float"))
    decomp = ("rows", "pixels", "tiles")[k % 3]
    w, h = _pick(rng, ((256, 192), (320, 240), (480, 352), (640, 480), (800, 608)))
    grow = _pick(rng, (1, 2))

    def est(m: dict) -> float:
        px = m["W"] * m["H"]
        return (px * (_escape_mean(window, m["MAXIT"]) * NS[f"escape_{t}"] + 3) + NS["region"]) * 1e-9

    def loops(m: dict) -> tuple[float, float]:
        return ({"rows": m["H"], "pixels": m["W"] * m["H"], "tiles": m["W"] * m["H"] / 256}[decomp], 1)

    fit = _sized(est, {"W": w, "H": h, "MAXIT": 100}, "MAXIT", 20, 20_000, goal,
                 lambda m: {"W": m["W"] * grow, "H": m["H"] * grow}, loops)
    if fit is None:
        return None
    sizes, e = fit
    (x0, x1, y0, y1), _, desc = ESCAPE_WINDOWS[window]
    L = lambda x: _lit(x, t)  # noqa: E731
    point = _c("""const $T cr = $X0 + (($T)px + $HALF) * dx;
$T zr = 0, zi = 0;
int it = 0;
while (it < MAXIT && zr * zr + zi * zi <= $FOUR) {
    const $T tr = zr * zr - zi * zi + cr;
    zi = $TWO * zr * zi + ci;
    zr = tr;
    it++;
}
count[py * W + px] = it;
total += (unsigned int)it;
inside += (unsigned int)(it == MAXIT);""", T=t, X0=L(x0), HALF=L(0.5), FOUR=L(4.0), TWO=L(2.0))

    def ind(text: str, n: int) -> str:
        return "\n".join(" " * n + ln if ln else ln for ln in text.splitlines())

    ci = f"const {t} ci = {L(y0)} + (({t})py + {L(0.5)}) * dy;"
    red = "reduction(+:total, inside)"
    if decomp == "rows":
        loop = (f"#pragma omp parallel for {red}\n    for (int py = 0; py < H; py++) {{\n        {ci}\n"
                f"        for (int px = 0; px < W; px++) {{\n{ind(point, 12)}\n        }}\n    }}")
    elif decomp == "pixels":
        loop = (f"#pragma omp parallel for collapse(2) {red}\n    for (int py = 0; py < H; py++)\n"
                f"        for (int px = 0; px < W; px++) {{\n            {ci}\n{ind(point, 12)}\n        }}")
    else:
        loop = (f"#pragma omp parallel for collapse(2) {red}\n    for (int ty = 0; ty < H / 16; ty++)\n"
                f"        for (int tx = 0; tx < W / 16; tx++)\n"
                f"            for (int py = ty * 16; py < ty * 16 + 16; py++) {{\n                {ci}\n"
                f"                for (int px = tx * 16; px < tx * 16 + 16; px++) {{\n{ind(point, 20)}\n"
                f"                }}\n            }}")
    body = _c("""int main(void)
{
    int *count = malloc(sizeof(int) * W * H);
    if (!count)
        return 1;
    const $T dx = ($T)(($X1 - $X0) / W), dy = ($T)(($Y1 - $Y0) / H);
    unsigned int total = 0, inside = 0;

$LOOP

$CHK
    free(count);
    return 0;
}
""", T=t, X0=f"({x0!r})" if x0 < 0 else repr(x0), X1=repr(x1), Y0=f"({y0!r})" if y0 < 0 else repr(y0),
              Y1=repr(y1), LOOP=loop,
              CHK=_int_checksum([("count", "W * H")], "(unsigned long long)total * 31ULL + inside"))
    return _Draft(
        what=f"Mandelbrot escape counts (z <- z^2 + c, at most MAXIT) over a W x H view of {desc}, in {t}",
        category=f"escape, geometric imbalance; window {window}; {t}; by "
                 f"{ {'rows': 'rows', 'pixels': 'pixels, collapse(2)', 'tiles': '16 x 16 tiles, collapse(2)'}[decomp]}",
        params={"type": t, "window": window, "decomposition": decomp, "nesting": 2 if decomp != "tiles" else 4},
        sizes=sizes, est=e, body=body)


def _batchmm(rng: random.Random, goal, seed: int, k: int) -> _Draft | None:
    t = _pick(rng, ("double", "float"))
    prof = ("uniform", "random", "growing", "spikes")[k % 4]
    m0 = _pick(rng, (8, 12, 16, 24, 32, 48, 64))
    nb = _pick(rng, (8, 16, 24, 32, 48, 64, 100, 128, 200, 256, 500))
    nspike = rng.randint(1, 3)
    clause = _pick(rng, ("plain", "collapse")) if prof == "uniform" else "plain"
    style = _pick(rng, ("pfor", "region"))
    grow = _pick(rng, (1, 2, 4))
    cache: dict[int, list[int]] = {}

    def sizes_of(n_b: int) -> list[int]:
        if n_b not in cache:
            if prof == "uniform":
                cache[n_b] = [m0] * n_b
            elif prof == "random":
                g = _Lcg(seed)
                cache[n_b] = [m0 + g.u32() % (3 * m0) for _ in range(n_b)]
            elif prof == "growing":
                cache[n_b] = [m0 + (3 * m0 * b) // n_b for b in range(n_b)]
            else:
                g = _Lcg(seed)
                ms = [m0] * n_b
                for _ in range(nspike):
                    ms[g.u32() % n_b] = 4 * m0
                cache[n_b] = ms
        return cache[n_b]

    def est(m: dict) -> float:
        ms = sizes_of(m["NB"])
        w = 32 if t == "float" else 16
        one = sum(x * x * (NS["mm_loop"] + x // w * w * NS[f"fma_{t}"] + x % w * NS["fma_scalar"] + NS["mm_elem"])
                  + x * NS["mm_row"] for x in ms) * (NS["mm_fixed"] if clause == "collapse" else 1.0)
        elems = sum(x * x for x in ms)
        return (m["ROUNDS"] * 2 * (one + NS["region"]) + elems * 3 * NS["init"]) * 1e-9

    if sum(x * x for x in sizes_of(nb * grow)) * 4 * 8 > 400_000_000:
        return None
    fit = _sized(est, {"NB": nb, "ROUNDS": 1}, "ROUNDS", 1, 100_000, goal, lambda m: {"NB": m["NB"] * grow},
                 lambda m: (2 * m["ROUNDS"] * m["NB"] * (m0 if clause == "collapse" else 1), 2 * m["ROUNDS"]))
    if fit is None:
        return None
    sizes, e = fit
    head = "#pragma omp for" if style == "region" else "#pragma omp parallel for"
    if clause == "collapse":
        def prod(src: str, dst: str) -> str:
            return _c("""$HEAD collapse(2)
        for (int b = 0; b < NB; b++)
            for (int i = 0; i < M0; i++) {
                const long o = (long)b * M0 * M0;
                const $T *a = $SRC + o + (long)i * M0, *bb = Bm + o;
                $T *c = $DST + o + (long)i * M0;
                for (int j = 0; j < M0; j++)
                    c[j] = D[o + (long)i * M0 + j];
                for (int k = 0; k < M0; k++) {
                    const $T aik = a[k];
                    for (int j = 0; j < M0; j++)
                        c[j] += aik * bb[k * M0 + j];
                }
            }""", HEAD=head, T=t, SRC=src, DST=dst)
    else:
        def prod(src: str, dst: str) -> str:
            return _c("""$HEAD
        for (int b = 0; b < NB; b++) {
            const int mb = msz[b];
            const $T *a = $SRC + off[b], *bb = Bm + off[b], *d = D + off[b];
            $T *c = $DST + off[b];
            for (int i = 0; i < mb; i++) {
                for (int j = 0; j < mb; j++)
                    c[i * mb + j] = d[i * mb + j];
                for (int k = 0; k < mb; k++) {
                    const $T aik = a[i * mb + k];
                    for (int j = 0; j < mb; j++)
                        c[i * mb + j] += aik * bb[k * mb + j];
                }
            }
        }""", HEAD=head, T=t, SRC=src, DST=dst)
    inner = prod("A", "C") + "\n" + prod("C", "A")
    if style == "region":
        loop = f"#pragma omp parallel\n    for (int r = 0; r < ROUNDS; r++) {{\n{inner}\n    }}"
    else:
        loop = f"    for (int r = 0; r < ROUNDS; r++) {{\n{inner}\n    }}"
    msz = {
        "uniform": "        msz[b] = M0;",
        "random": "        msz[b] = M0 + (int)(next_u32() % (3u * M0));",
        "growing": "        msz[b] = M0 + (3 * M0 * b) / NB;",
        "spikes": "        msz[b] = M0;",
    }[prof]
    spikes = "    for (int s = 0; s < NSPIKE; s++) /* a few large matrices */\n" \
        "        msz[next_u32() % NB] = 4 * M0;\n" \
        if prof == "spikes" else ""
    body = _c("""int main(void)
{
    int *msz = malloc(sizeof(int) * NB);
    long *off = malloc(sizeof(long) * (NB + 1));
    if (!msz || !off)
        return 1;
    for (int b = 0; b < NB; b++)
$MSZ
$SPIKES    off[0] = 0;
    for (int b = 0; b < NB; b++)
        off[b + 1] = off[b] + (long)msz[b] * msz[b];
    const long total = off[NB];
$ALLOC
    for (int b = 0; b < NB; b++) /* B: entries below 0.9 / m, so C = A B + D stays bounded */
        for (long k = off[b]; k < off[b + 1]; k++) {
            A[k] = ($T)next_unit();
            Bm[k] = ($T)(0.9 * next_unit() / msz[b]);
            D[k] = ($T)(0.1 + 0.2 * next_unit());
            C[k] = 0;
        }

$LOOP

$CHK
    free(msz); free(off); free(A); free(Bm); free(C); free(D);
    return 0;
}
""", MSZ=msz, SPIKES=spikes, ALLOC=_alloc(t, [(a_, "total") for a_ in ("A", "Bm", "C", "D")]), T=t, LOOP=loop,
              CHK=_fp_checksum([("A", "total"), ("C", "total")]))
    consts = {"M0": str(m0)}
    if prof == "spikes":
        consts["NSPIKE"] = str(nspike)
    desc = {"uniform": f"all {m0} x {m0}", "random": f"random {m0} ... {4 * m0 - 1}",
            "growing": f"{m0} ... {4 * m0} growing with b", "spikes": f"{m0}, {nspike} of 4 x that"}[prof]
    return _Draft(
        what=f"a batch of NB small products C_b = A_b B_b + D_b then A_b = C_b B_b + D_b ({t}), ROUNDS rounds",
        category=f"batchmm, compute-bound, 3-level nest per matrix; sizes {prof} ({desc}); {t}; "
                 f"{'collapse(2) over (b, i)' if clause == 'collapse' else 'parallel over b'}",
        params={"type": t, "profile": prof, "clause": clause, "style": style, "nesting": 4},
        sizes=sizes, est=e, body=body, consts=consts)


def _gather(rng: random.Random, goal, seed: int, k: int) -> _Draft | None:
    t = _pick(rng, ("float", "double", "int", "unsigned"))
    k = _pick(rng, (1, 2, 4))
    table = (4096, 1 << 20, 65536, 1 << 22)[k % 4]
    loc = ("random", "local")[(k // 4 + k) % 2]
    n = _pick(rng, (10000, 50000, 200000, 1000000))
    block = _pick(rng, (0, 256, 1024, 4096))
    style = _pick(rng, ("pfor", "region"))
    grow = _pick(rng, (1, 2, 4))
    sz = 8 if t == "double" else 4

    def est(m: dict) -> float:
        nn, tb = m["N"], m["TAB"]
        where = "local" if loc == "local" else _where(tb * sz)
        per = nn * (k * NS[f"gather_{where}"] + NS["gather_elem"]) \
            + nn * (2 * sz + 4 * k) * NS[f"byte_{_where(nn * (sz + 4 * k))}"]
        return (m["STEPS"] * (per + NS["region"]) + (nn * k + tb + nn) * NS["init"]) * 1e-9

    if n * k * grow > 8_000_000:
        grow = 1
    def loops(m: dict) -> tuple[float, float]:
        return m["STEPS"] * (m["N"] if not block else -(-m["N"] // block)), m["STEPS"]

    fit = _sized(est, {"N": n, "TAB": table, "STEPS": 1}, "STEPS", 3, 100_000, goal,
                 lambda m: {"N": m["N"] * grow}, loops)
    if fit is None:
        return None
    sizes, e = fit
    fp = t in ("float", "double")
    L = lambda x: _lit(x, t)  # noqa: E731
    if fp:
        s_expr = f"const {t} s = {L(0.1)} + {L(0.05)} * ({t})(t % 3);"
        acc0, add, tinit = f"a[i] * {L(0.5)}", "acc += tab[idx[i * K + k]] * s;", f"({t})next_unit()"
        chk = _fp_checksum([("a", "n")])
    else:
        s_expr = f"const {t} s = ({t})(1 + t % 3);"
        acc0, add, tinit = "a[i] >> 1", "acc += tab[idx[i * K + k]] * s;", f"({t})(next_u32() % 1024u)"
        chk = _int_checksum([("a", "n")])
    if loc == "random":
        idx = "        idx[i] = (int)(next_u32() % (unsigned int)TAB);"
    else:
        idx = "        idx[i] = (int)(((i / K) * (long)(TAB / 64) / N * 64 + next_u32() % 512u) % TAB);"
    head = "#pragma omp for" if style == "region" else "#pragma omp parallel for"
    inner = _blocked(head, "0", "n", f"{t} acc = {acc0};\nfor (int k = 0; k < K; k++)\n    {add}\na[i] = acc;", block)
    if style == "region":
        loop = f"#pragma omp parallel\n    for (int t = 0; t < STEPS; t++) {{\n        {s_expr}\n{inner}\n    }}"
    else:
        loop = f"    for (int t = 0; t < STEPS; t++) {{\n        {s_expr}\n{inner}\n    }}"
    body = _c("""int main(void)
{
    const long n = N;
$ALLOC
    int *idx = malloc(sizeof(int) * (size_t)n * K);
    if (!idx)
        return 1;
    for (long i = 0; i < TAB; i++)
        tab[i] = $TINIT;
    for (long i = 0; i < n * K; i++)
$IDX
    for (long i = 0; i < n; i++)
        a[i] = 0;

$LOOP

$CHK
    free(tab);
    free(a);
    free(idx);
    return 0;
}
""", ALLOC=_alloc(t, [("tab", "TAB"), ("a", "n")]), TINIT=tinit, IDX=idx, LOOP=loop, CHK=chk)
    where = "L1/L2" if table * sz <= L2_BYTES else "L3" if table * sz <= L3_BYTES else "DRAM"
    return _Draft(
        what=f"indirect updates a[i] = a[i]/2 + s sum_k tab[idx[i K + k]] over N elements of {t}, K={k}, STEPS steps",
        category=f"gather, memory-latency-bound; {t}; table of TAB entries ({where} at size 1); {loc} indices; "
                 f"{f'blocks of {block} elements' if block else 'one element per iteration'}; "
                 f"{'one region per step' if style == 'pfor' else 'one region around the time loop'}",
        params={"type": t, "k": k, "indices": loc, "block": block, "style": style, "nesting": 2 if not block else 3},
        sizes=sizes, est=e, body=body, consts={"K": str(k), **({"BLK": str(block)} if block else {})})


def _stencil3d(rng: random.Random, goal, seed: int, k: int) -> _Draft | None:
    t = _pick(rng, ("double", "float"))
    shape = ("cube", "flat", "tall")[k % 3]
    if shape == "cube":
        nz = ny = nx = _pick(rng, (24, 32, 48, 64, 96, 128, 160))
    elif shape == "flat":
        nz = _pick(rng, (6, 8, 10, 12, 16))
        ny = nx = _pick(rng, (100, 128, 200, 256, 400))
    else:
        nz = _pick(rng, (200, 300, 500, 1000))
        ny = nx = _pick(rng, (16, 24, 32, 48))
    clause = ("collapse2", "outer", "collapse3", "private")[k % 4]
    bi = _pick(rng, (16, 32, 64))
    style = _pick(rng, ("pfor", "region"))
    grow = _pick(rng, (1, 2, 3))
    sz = 8 if t == "double" else 4

    def trip(m: dict) -> int:
        k, j = m["NZ"] - 2, m["NY"] - 2
        return {"outer": k, "private": k, "collapse2": k * j, "collapse3": k * j * -(-(m["NX"] - 2) // bi)}[clause]

    def est(m: dict) -> float:
        cells = (m["NZ"] - 2) * (m["NY"] - 2) * (m["NX"] - 2)
        per = NS[f"cell7_{t}"] * _cell_factor(2 * m["NZ"] * m["NY"] * m["NX"] * sz)
        over = trip(m) * NS["collapse_iter"] if clause.startswith("collapse") else 0
        return (m["STEPS"] * 2 * (cells * per + over + NS["region"]) + m["NZ"] * m["NY"] * m["NX"] * NS["init"]) * 1e-9

    fit = _sized(est, {"NZ": nz, "NY": ny, "NX": nx, "STEPS": 1}, "STEPS", 2, 20_000, goal,
                 lambda m: {"NX": m["NX"] * grow}, lambda m: (2 * m["STEPS"] * trip(m), 2 * m["STEPS"]))
    if fit is None:
        return None
    sizes, e = fit
    L = lambda x: _lit(x, t)  # noqa: E731
    base = "#pragma omp for" if style == "region" else "#pragma omp parallel for"
    prag = {"outer": base, "collapse2": f"{base} collapse(2)", "collapse3": f"{base} collapse(3)",
            "private": f"{base} private(j, i)"}[clause]
    jd, idl = ("j", "i") if clause == "private" else ("int j", "int i")

    def sweep(s: str, d: str) -> str:
        if clause == "collapse3":  # collapse(3) over planes, rows and blocks of BI points
            return _c("""$PRAG
        for (int k = 1; k < NZ - 1; k++)
            for (int j = 1; j < NY - 1; j++)
                for (int ib = 0; ib < NIB; ib++) {
                    const int i1 = 1 + (ib + 1) * BI < NX - 1 ? 1 + (ib + 1) * BI : NX - 1;
                    for (int i = 1 + ib * BI; i < i1; i++)
                        $D[IDX(k, j, i)] = $S[IDX(k, j, i)] * $C0
                            + ($S[IDX(k - 1, j, i)] + $S[IDX(k + 1, j, i)] + $S[IDX(k, j - 1, i)]
                               + $S[IDX(k, j + 1, i)] + $S[IDX(k, j, i - 1)] + $S[IDX(k, j, i + 1)]) * $C1;
                }""", PRAG=prag, S=s, D=d, C0=L(0.4), C1=L(0.1))
        return _c("""$PRAG
        for (int k = 1; k < NZ - 1; k++)
            for ($JD = 1; j < NY - 1; j++)
                for ($ID = 1; i < NX - 1; i++)
                    $D[IDX(k, j, i)] = $S[IDX(k, j, i)] * $C0
                        + ($S[IDX(k - 1, j, i)] + $S[IDX(k + 1, j, i)] + $S[IDX(k, j - 1, i)]
                           + $S[IDX(k, j + 1, i)] + $S[IDX(k, j, i - 1)] + $S[IDX(k, j, i + 1)]) * $C1;""",
                  PRAG=prag, JD=jd, ID=idl, S=s, D=d, C0=L(0.4), C1=L(0.1))

    inner = sweep("A", "B") + "\n" + sweep("B", "A")
    if style == "region":
        loop = f"#pragma omp parallel\n    for (int t = 0; t < STEPS; t++) {{\n{inner}\n    }}"
    else:
        loop = f"    for (int t = 0; t < STEPS; t++) {{\n{inner}\n    }}"
    pre = "    int j, i;\n" if clause == "private" else ""
    body = _c("""#define IDX(k, j, i) (((long)(k) * NY + (j)) * NX + (i))

int main(void)
{
$ALLOC
    for (long p = 0; p < (long)NZ * NY * NX; p++)
        A[p] = B[p] = ($T)next_unit();
$PRE
$LOOP

$CHK
    free(A);
    free(B);
    return 0;
}
""", T=t, ALLOC=_alloc(t, [("A", "(long)NZ * NY * NX"), ("B", "(long)NZ * NY * NX")]), PRE=pre.rstrip("\n"),
              LOOP=loop, CHK=_fp_checksum([("A", "(long)NZ * NY * NX")]))
    body = body.replace("\n\n\n", "\n\n")
    how = {"outer": "outer loop only", "collapse2": "collapse(2)",
           "collapse3": f"collapse(3) over planes x rows x blocks of {bi}",
           "private": "outer loop, private(j, i)"}[clause]
    return _Draft(
        what=f"explicit 7-point heat sweeps (B = 0.4 A + 0.1 sum of neighbours, then back) on NZ x NY x NX {t}, "
             f"STEPS double sweeps",
        category=f"stencil3d, 3-level nest; {shape} grid; {t}; "
                 f"{how}; "
                 f"{'one region per sweep' if style == 'pfor' else 'one region around the time loop'}",
        params={"type": t, "shape": shape, "clause": clause, "style": style,
                "nesting": 3 if clause != "collapse3" else 4},
        sizes=sizes, est=e, body=body,
        consts={"BI": str(bi), "NIB": "((NX - 2 + BI - 1) / BI)"} if clause == "collapse3" else {})


KIND_FUNCS: dict[str, Callable[[random.Random, tuple[float, float], int, int], _Draft | None]] = {
    "mathmap": _mathmap, "sparse": _sparse, "triangular": _triangular, "intwork": _intwork, "stream": _stream,
    "timestep": _timestep, "stencil2d": _stencil2d, "allpairs": _allpairs, "escape": _escape, "batchmm": _batchmm,
    "gather": _gather, "stencil3d": _stencil3d,
}
assert tuple(KIND_FUNCS) == KINDS


# ----------------------------------------------------------------------------------------------------------
# rendering and the command line


PRELUDE_U32 = """static unsigned long long rng_state = $SEED;

static inline unsigned int next_u32(void) /* 64-bit LCG, 31 bits out */
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned int)(rng_state >> 33);
}
"""
PRELUDE_UNIT = """
static inline double next_unit(void) /* uniform in [0, 1) */
{
    return (double)(next_u32() >> 7) * (1.0 / 16777216.0);
}
"""


def _prelude(body: str, c_seed: int) -> list[str]:
    """The generator functions the body uses (clang warns about unused static functions)."""
    uses_unit = "next_unit(" in body
    if not uses_unit and "next_u32(" not in body:
        return []
    text = Template(PRELUDE_U32).substitute(SEED=f"0x{c_seed:016x}ULL") + (PRELUDE_UNIT if uses_unit else "")
    return [text]


def _size_text(m: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in m.items())


def render(name: str, d: _Draft, c_seed: int, seed: int, index: int) -> str:
    """The C text of one program from its draft."""
    m1, m2 = d.sizes
    lines = [
        f"/* {name}: {d.what}.",
        f" * Category: {d.category}.",
        f" * Sizes: MIRTUNE_SIZE=1 -> {_size_text(m1)}; MIRTUNE_SIZE=2 -> {_size_text(m2)}. */",
        f"/* {GENERATED} (seed {seed}, program {index}); do not edit, regenerate instead. */",
        "#include <math.h>",
        "#include <stdio.h>",
        "#include <stdlib.h>",
        "",
        "#ifndef MIRTUNE_SIZE",
        "#define MIRTUNE_SIZE 1",
        "#endif",
        "#if MIRTUNE_SIZE >= 2",
        *[f"#define {k} {v}" for k, v in m2.items()],
        "#else",
        *[f"#define {k} {v}" for k, v in m1.items()],
        "#endif",
        *[f"#define {k} {v}" for k, v in d.consts.items()],
        "",
        *_prelude(d.body, c_seed),
        d.body.rstrip("\n"),
        "",
    ]
    return "\n".join(lines)


def generate(count: int = DEFAULT_COUNT, seed: int = DEFAULT_SEED) -> list[Program]:
    """`count` programs, kinds round robin, each drawn with one random.Random(seed); names omp_<kind>_<k>."""
    rng = random.Random(seed)
    per_kind: dict[str, int] = {}
    out: list[Program] = []
    for index in range(count):
        kind = KINDS[index % len(KINDS)]
        k = per_kind.get(kind, 0)
        for attempt in range(MAX_DRAWS):
            goal = (rng.uniform(*TARGET_S), rng.uniform(*LARGE_FACTOR))
            c_seed = rng.getrandbits(64)
            # the main knob goes round robin (k); a combination that keeps failing moves on to the next values
            draft = KIND_FUNCS[kind](rng, goal, c_seed, k if attempt < MAX_DRAWS // 2 else k + attempt)
            if draft is not None:
                break
        else:  # pragma: no cover - the kinds always fit within a few draws
            raise RuntimeError(f"could not fit a {kind} program in {MAX_DRAWS} draws")
        per_kind[kind] = k + 1
        name = f"omp_{kind}_{k}"
        out.append(Program(name, kind, dict(draft.params), draft.sizes, draft.est,
                           render(name, draft, c_seed, seed, index)))
    return out


def readme(programs: list[Program], seed: int = DEFAULT_SEED) -> str:
    """README.md for a generated set: the kinds, the conventions, and one row per program."""
    from collections import Counter

    kinds = Counter(p.kind for p in programs)
    doc = __doc__ or ""
    space = doc[doc.index("The space of programs"):doc.index("    python -m")].strip()
    rows = []
    for p in programs:
        first = p.source.splitlines()[1].removeprefix(" * Category: ").rstrip(".")
        rows.append(f"| {p.name} | {first} | {_size_text(p.sizes[0])} | {_size_text(p.sizes[1])} | "
                    f"{p.est_s[0]:.2f} / {p.est_s[1]:.2f} |")
    count_line = ", ".join(f"{k} {kinds[k]}" for k in KINDS if kinds[k])
    return "\n".join([
        "# Generated OpenMP programs",
        "",
        f"Written by `collectors/ompgen.py` (seed {seed}, {len(programs)} programs); do not edit the programs by hand.",
        f"Kinds: {count_line}.",
        "",
        "Regenerate (this also removes stale generated programs and rewrites this file) or verify:",
        "",
        "    python -m collectors.ompgen [--out DIR] [--count N] [--seed S]",
        "    python -m collectors.ompgen --check",
        "",
        "They follow the conventions of `collectors/programs/openmp` (see its README): one self-contained C11 file,",
        "no input files or arguments, `-DMIRTUNE_SIZE=1` (small, default) or `-DMIRTUNE_SIZE=2` (large, 3-4.5x the",
        "work), exactly one stdout line `checksum: <value>` (`%.12e` or `%llu`), exit 0. The checksum is bitwise the",
        "same for every `OMP_NUM_THREADS` and `OMP_SCHEDULE`: parallel loops write disjoint elements, each computed",
        "in a fixed order by one thread; floating-point sums over elements are sequential, after the parallel part;",
        "reductions inside parallel loops are over unsigned integers only. No loop has a schedule clause, so the",
        "collector's `schedule(runtime)` rewrite makes every one tunable. Each file starts with a 3-line comment",
        "(what it computes; its kind and parameters; its two sizes) and a line saying it is generated.",
        "",
        "Build: `clang-14 -O2 -march=native -fopenmp -DMIRTUNE_SIZE=1 omp_stream_0.c -o omp_stream_0 -lm`.",
        "",
        "## The space",
        "",
        space,
        "",
        "## Programs",
        "",
        "The last column is the cost model's estimate of the 1-thread seconds at size 1 / size 2 on the 2-core",
        "development VM (AMD EPYC Zen 2, clang-14 -O2 -march=native). Measured CPU times of the default set on",
        "that VM were within about 0.6-1.4x of the estimates (see NS in the generator).",
        "",
        "| program | kind and parameters | size 1 | size 2 | model s (1 thread) |",
        "|---|---|---|---|---|",
        *rows,
        "",
    ])


def _is_generated(path: Path) -> bool:
    try:
        with path.open(errors="replace") as f:
            head = f.read(2048)
    except OSError:
        return False
    return GENERATED in head


def write(out: str | Path = DEFAULT_OUT, count: int = DEFAULT_COUNT, seed: int = DEFAULT_SEED) -> list[Path]:
    """Write the programs into `out` as <name>.c plus README.md; remove generated programs no longer produced."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    programs = generate(count, seed)
    names = {f"{p.name}.c" for p in programs}
    for old in out.glob("*.c"):
        if old.name not in names and _is_generated(old):
            old.unlink()
    paths = []
    files = [(out / f"{p.name}.c", p.source) for p in programs] + [(out / "README.md", readme(programs, seed))]
    for path, text in files:
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        paths.append(path)
    return paths


def check(out: str | Path = DEFAULT_OUT, count: int = DEFAULT_COUNT, seed: int = DEFAULT_SEED) -> list[str]:
    """Differences between the files in `out` and what the generator produces (empty: identical)."""
    out = Path(out)
    programs = generate(count, seed)
    problems = []
    files = [(f"{p.name}.c", p.source) for p in programs] + [("README.md", readme(programs, seed))]
    for fname, text in files:
        p = out / fname
        if not p.exists():
            problems.append(f"missing {fname}")
        elif p.read_text() != text:
            problems.append(f"differs {fname}")
    names = {f"{p.name}.c" for p in programs}
    problems += [f"extra {p.name}" for p in sorted(out.glob("*.c")) if p.name not in names]
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m collectors.ompgen",
                                 description=(__doc__ or "").strip().splitlines()[0])
    ap.add_argument("--out", default=str(DEFAULT_OUT), help="directory for the programs")
    ap.add_argument("--count", type=int, default=DEFAULT_COUNT, help="how many programs")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the seed of random.Random")
    ap.add_argument("--check", action="store_true", help="verify the files instead of writing them")
    args = ap.parse_args(argv)
    if args.count < 1:
        ap.error("--count must be at least 1")
    if args.check:
        problems = check(args.out, args.count, args.seed)
        for p in problems[:20]:
            print(p, file=sys.stderr)
        print(f"{args.count} programs; {len(problems)} difference(s)")
        return 1 if problems else 0
    paths = write(args.out, args.count, args.seed)
    print(f"wrote {len(paths) - 1} programs and README.md to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
