"""The loop vectorization sweep: vectorization factor (VF) x interleave count (IF) over marked loop kernels.

Space (each `--space key=v1,v2` replaces one dimension's values):
- vf: 1, 2, 4, 8, 16, 32, 64 and if: 1, 2, 4, 8, 16 (the MIREncoder / NeuroVectorizer space), applied as
  `#pragma clang loop vectorize_width(VF) interleave_count(IF)` on the kernel's marked innermost loop;
- plus the baseline: the kernel as it stands, no pragma, LLVM's own choice. It is the default configuration:
  the reference checksum every (VF, IF) build must reproduce, and the denominator of the task's speedups.

A kernel is a C program whose innermost loop is preceded by the macro `MIRTUNE_LOOP_PRAGMA` (empty unless
defined), as the kernels of collectors/loopgen.py are; the sweep defines it as
`_Pragma("clang loop vectorize_width(VF) interleave_count(IF)")` with -D, so one source file (one hash, one
IR for the encoder) serves every configuration and each configuration is its own binary (-O2 -march=native,
built in parallel by the sweep's build stage). LLVM may decline a forced factor (an unsafe dependence, an
unvectorisable loop) and build the loop as it would anyway; the row is then an honest measurement of what the
pragma produced. Where a forced factor produces wrong code (clang 14 does, for example, when VF x IF exceeds
a loop-carried dependence distance), the checksum differs and the row is `wrong_output`, never fast.

Rows carry the kernel's own description when the file has the generator's header comment (template, element
type, trip count, outer trip count, whether the trip count is known at compile time, restrict, stride,
dependence distance); `input_size` is the inner trip count (0 when unknown). Programs made from GCC's vectorizer
tests (collectors/gccvect_build.py) carry `origin`: the package, its version and the test's path in it.
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path
from typing import Any, Callable, Sequence

from collectors.sweep import BuildJob, Summary, SweepPlan, run_sweep
from mirtune.errors import UsageError
from mirtune.measure.build import BuildSpec
from mirtune.measure.records import Point
from mirtune.measure.sandbox import RunLimits
from mirtune.measure.space import parse_space, resolve
from mirtune.measure.vectorize import COLUMNS, DIMENSIONS, pragma

SWEEP = "vectorize"
MARKER = "MIRTUNE_LOOP_PRAGMA"
DEFAULT_PROGRAMS = Path(__file__).resolve().parent / "programs" / "vectorize" / "kernels"
_META_RE = re.compile(r"template: (?P<template>\w+); type: (?P<type>\w+); trip: (?P<trip>\d+); outer: (?P<outer>\d+); "
                      r"trip known at compile time: (?P<known>yes|no); restrict: (?P<restrict>yes|no); "
                      r"stride: (?P<stride>\d+); distance: (?P<distance>\d+)")
_ORIGIN_RE = re.compile(r"mirtune gccvect: origin: (?P<origin>[^;]+);")


def kernel_meta(source: str) -> dict[str, Any]:
    """The generator's description of a kernel (row columns; None values for a kernel written by hand), and the
    `origin` of a program made from a GCC test (collectors/gccvect_build.py: package, version, path)."""
    m = _META_RE.search(source)
    origin = _ORIGIN_RE.search(source)
    meta: dict[str, Any] = {"origin": origin["origin"].strip() if origin else None}
    if m is None:
        return {**{k: None for k in ("template", "elem_type", "trip", "outer", "trip_known", "restrict", "stride",
                                     "distance")}, **meta}
    return {"template": m["template"], "elem_type": m["type"], "trip": int(m["trip"]), "outer": int(m["outer"]),
            "trip_known": m["known"] == "yes", "restrict": m["restrict"] == "yes", "stride": int(m["stride"]),
            "distance": int(m["distance"]), **meta}


def find_kernels(paths: Sequence[str | os.PathLike]):
    """The C kernels named by `paths` (files or directories); UsageError for one without the marker."""
    from collectors.openmp import find_programs

    progs = find_programs(paths)
    unmarked = [p.path for p in progs if MARKER not in p.source]
    if unmarked:
        more = f" (and {len(unmarked) - 1} more)" if len(unmarked) > 1 else ""
        raise UsageError(f"no {MARKER} marker before an innermost loop: mark the loop to tune, e.g. "
                         f"'{MARKER}' on the line before it, and '#ifndef {MARKER} / #define {MARKER} / #endif' "
                         f"at the top{more}", unmarked[0])
    return progs


def plan_vectorize(programs: Sequence[Any], *, restrict: dict[str, tuple[Any, ...]] | None = None,
                   opt: int = 2) -> SweepPlan:
    """The points of the VF/IF sweep: per kernel the baseline, then every (vf, if) of the space."""
    values = resolve(DIMENSIONS, dict(restrict or {}))
    builds: dict[str, BuildJob] = {}
    points: list[Point] = []
    for prog in programs:
        meta = kernel_meta(prog.source)
        size = int(meta["trip"] or 0)
        configs: list[tuple[int | None, int | None]] = [(None, None)]
        configs += list(itertools.product(values["vf"], values["if"]))
        for vf, ic in configs:
            text = pragma(vf, ic) if vf is not None else None
            spec = BuildSpec(name=prog.name, source=prog.source, suffix=Path(prog.path).suffix,
                             defines={MARKER: text} if text else {}, opt=opt,
                             include_dirs=(str(Path(prog.path).parent),))
            job = BuildJob(spec, columns={**meta, "opt": opt})
            builds[job.key] = job
            points.append(Point(sweep=SWEEP, program=prog.name, program_path=prog.path,
                                program_sha256=prog.sha256, input_size=size, params={"vf": vf, "if": ic},
                                is_default=vf is None, env={}, build_key=job.key,
                                columns={"pragma": text}))
    return SweepPlan(sweep=SWEEP, builds=builds, points=points, columns=COLUMNS)


def collect_vectorize(programs: Sequence[str | os.PathLike], out_dir: str | os.PathLike, *,
                      space: Sequence[str] | str | None = None, repeats: int = 3, warmup: int = 1,
                      timeout: float = 60.0, opt: int = 2, address: str | None = None,
                      cache_dir: str | os.PathLike | None = None, max_points: int | None = None,
                      rtol: float = 0.0, progress: bool = True, flush_every: int = 32, flush_seconds: float = 30.0,
                      log: Callable[[str], None] | None = None, build_only: bool = False) -> Summary:
    """Run the VF/IF sweep; the same function behind `mirtune collect vectorize` and jobs/collect_vectorize.py.

    Bad input (missing paths, unmarked kernels, an unknown space key or value) raises UsageError before Ray
    starts. Checksums must match exactly (`rtol` 0): the kernels print integers. `build_only` fills the build
    cache and times nothing (builds need not run alone; the timed sitting then starts measuring at once).
    """
    from mirtune.cluster import ensure_ray, shutdown_ray

    progs = find_kernels(programs)
    restrict = parse_space(space, DIMENSIONS)
    if timeout <= 0:
        raise UsageError("--timeout must be positive")
    if repeats < 1 or warmup < 0:
        raise UsageError("--repeats must be at least 1 and --warmup at least 0")
    if opt not in (1, 2, 3):
        raise UsageError("--opt must be 1, 2 or 3")
    plan = plan_vectorize(progs, restrict=restrict, opt=opt)
    started = ensure_ray(address)
    try:
        kwargs: dict[str, Any] = {}
        if log is not None:
            kwargs["log"] = log
        return run_sweep(plan, out_dir, repeats=repeats, warmup=warmup, limits=RunLimits(timeout_s=timeout),
                         rtol=rtol, cache_dir=cache_dir, max_points=max_points, progress=progress,
                         flush_every=flush_every, flush_seconds=flush_seconds, time_points=not build_only,
                         **kwargs)
    finally:
        if started:
            shutdown_ray()
