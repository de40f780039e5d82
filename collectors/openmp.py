"""The OpenMP sweep: the MIREncoder paper's Table 4 space over OpenMP applications and two input sizes.

Space (each `--space key=v1,v2` replaces one dimension's values):
- power: 75, 100, 120, 150 W (RAPL package limit), only where the timed-run node can set it; otherwise the
  dimension is dropped and the reason goes into every row's `power_reason`;
- threads: 1, 4, 8, 16, 32, 64 clipped to the node's logical cores, always with 1 and all the cores;
- schedule: static, dynamic, guided; chunk: 1, 8, 32, 64, 128, 256, 512.
A configuration is applied through OMP_NUM_THREADS and OMP_SCHEDULE="<schedule>,<chunk>" (plus the power
limit held during the run). Each (application, input size) also has the default configuration: all cores,
OMP_SCHEDULE unset (the runtime's static schedule with the compiler's chunk), full power. It is the baseline
and its checksum is the reference every other configuration must reproduce.

Every program is built from a copy rewritten by `mirtune.source.openmp.make_schedule_runtime` (worksharing
loops without a schedule clause get `schedule(runtime)`, so OMP_SCHEDULE reaches them); the copy lives in the
build cache, the user's file is never touched. Rows record how many loops were tunable and fixed, and the
rewriter's problems. The project's programs read their input size from -DMIRTUNE_SIZE=<n> and print
`checksum: <value>`; an ordinary program (neither) runs once per configuration with the arguments and input
files given, and its whole stdout is compared with the default configuration's (or what `--check` says);
a manifest (`collectors.manifest`) lists such programs with their argument vectors and input files.

A program of several files (`--together`, or a manifest entry whose "source" is a list): its files are rewritten
each, compiled each and linked into one binary (`mirtune.measure.build.BuildSpec.units`); its rows are one program's,
named after its first file, whose sha256 covers every file.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from collectors.sweep import BuildJob, Summary, SweepPlan, run_sweep
from mirtune.errors import UsageError
from mirtune.measure.build import BuildSpec
from mirtune.measure.check import OutputCheck
from mirtune.measure.openmp import (COLUMNS, DIMENSIONS, merged_rewrite_columns, rewrite_for_runtime_schedule,
                                    thread_counts)
from mirtune.measure.records import Point, run_variant
from mirtune.measure.sandbox import RunLimits
from mirtune.measure.space import parse_space, resolve

SWEEP = "openmp"
DEFAULT_SIZES = (1, 2)
SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx")


@dataclass(frozen=True)
class Program:
    """A benchmark program: its name (file stem), where it is, its text and the text's hash. A program of several
    files: `source` and `path` are its first file's, `units` the others as (name in the build folder, text, path),
    `include_dirs` its header folders, `depends` a digest of the headers its files include, and `sha256` covers
    every file."""

    name: str
    path: str
    source: str
    sha256: str
    units: tuple[tuple[str, str, str], ...] = ()
    include_dirs: tuple[str, ...] = ()
    depends: str = ""

    @property
    def texts(self) -> list[str]:
        """The text of every file, the first one first."""
        return [self.source, *(t for _, t, _ in self.units)]


def find_programs(paths: Iterable[str | os.PathLike]) -> list[Program]:
    """The C/C++ programs named by `paths` (files, or directories whose sources are taken, not recursively).

    UsageError for a missing path, a file that is not C/C++, no program at all, or two programs with one name.
    """
    found: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise UsageError("no such file or directory", str(p))
        if p.is_dir():
            found += sorted(f for f in p.iterdir() if f.is_file() and f.suffix in SOURCE_SUFFIXES)
        elif p.suffix in SOURCE_SUFFIXES:
            found.append(p)
        else:
            raise UsageError(f"not a C/C++ source file ({', '.join(SOURCE_SUFFIXES)})", str(p))
    if not found:
        raise UsageError(f"no C/C++ programs found in {', '.join(map(str, paths))}")
    programs: dict[str, Program] = {}
    for f in found:
        if f.stem in programs:
            if Path(programs[f.stem].path) == f.resolve():
                continue
            raise UsageError(f"two programs named {f.stem!r}: {programs[f.stem].path} and {f.resolve()}")
        text = f.read_text(errors="replace")
        programs[f.stem] = Program(f.stem, str(f.resolve()), text, hashlib.sha256(text.encode()).hexdigest())
    return list(programs.values())


def one_program(paths: Sequence[str | os.PathLike], include_dirs: Sequence[str | os.PathLike] = ()) -> Program:
    """The program whose files are `paths` (compiled each and linked together), its headers in `include_dirs`;
    UsageError for a missing file, one that is not C/C++, one given twice, or an include folder that is not one."""
    from mirtune.ir.frontend import headers_digest
    from mirtune.measure.build import unit_names

    files = [Path(p) for p in paths]
    if not files:
        raise UsageError("no C/C++ source given")
    seen: set[Path] = set()
    for f in files:
        if not f.is_file():
            raise UsageError("no such file" if not f.exists() else "not a file (the files of one program are named "
                             "one by one)", str(f))
        if f.suffix not in SOURCE_SUFFIXES:
            raise UsageError(f"not a C/C++ source file ({', '.join(SOURCE_SUFFIXES)})", str(f))
        if f.resolve() in seen:
            raise UsageError("given twice", str(f))
        seen.add(f.resolve())
    for d in include_dirs:
        if not Path(d).is_dir():
            raise UsageError("--include: no such folder", str(d))
    texts = [f.read_text(errors="replace") for f in files]
    blob = json.dumps([[f.name, hashlib.sha256(t.encode()).hexdigest()] for f, t in zip(files, texts)])
    names = unit_names(files)
    units = tuple((n, t, str(f.resolve())) for n, t, f in zip(names[1:], texts[1:], files[1:]))
    return Program(files[0].stem, str(files[0].resolve()), texts[0], hashlib.sha256(blob.encode()).hexdigest(),
                   units, tuple(str(Path(d).resolve()) for d in include_dirs), headers_digest(files, include_dirs))


def probe_node(rapl_root: str | None = None) -> dict[str, Any]:
    """What a timed-run node offers: its logical cores and which power domains it can set (and if none, why)."""
    from collectors import power
    from mirtune.measure.host import logical_cores

    avail = power.available("cpu", rapl_root=rapl_root or power.DEFAULT_POWERCAP_ROOT)
    return {"cores": logical_cores(), "power_domains": list(avail.domains), "power_reason": avail.reason}


def answer_check(source: str, check: OutputCheck | None) -> OutputCheck | None:
    """The output check of a program: `check` when given, else its `checksum:` line when its source prints one
    (None: the runner's checksum check), else the whole stdout (an ordinary program)."""
    if check is not None:
        return check
    return None if "checksum:" in source else OutputCheck("stdout", rtol=1e-6)


def plan_openmp(programs: Sequence[Program], *, cores: int, sizes: Sequence[int] = DEFAULT_SIZES,
                restrict: dict[str, tuple[Any, ...]] | None = None, power_reason: str | None = None,
                args: Sequence[str] = (), check: OutputCheck | None = None, variant: str = "") -> SweepPlan:
    """The points of the OpenMP sweep. `power_reason` None means power limits can be set here.

    A program that neither reads MIRTUNE_SIZE nor prints a checksum line is an ordinary one: it runs once per configuration with `args` (input
    size 0, no define) and its answer is checked with `answer_check`; `variant` tells its runs apart (arguments,
    input files, check) in the point ids."""
    restrict = dict(restrict or {})
    values = resolve(DIMENSIONS, restrict)
    threads = values["threads"] if "threads" in restrict else thread_counts(cores)
    notes = []
    if power_reason is not None:
        powers: tuple[float | None, ...] = (None,)
        notes.append(f"power dimension dropped: {power_reason}")
    else:
        powers = values["power"]
    builds: dict[str, BuildJob] = {}
    points: list[Point] = []
    for prog in programs:
        text, cols, failure = rewrite_for_runtime_schedule(prog.source)
        units = prog.units
        if units:
            done = [rewrite_for_runtime_schedule(t) for _, t, _ in units]
            cols = merged_rewrite_columns([cols, *(c for _, c, _ in done)],
                                          [Path(prog.path).name, *(n for n, _, _ in units)])
            failure = failure or next((f"{n}: {f}" for (n, _, _), (_, _, f) in zip(units, done) if f), None)
            units = tuple((n, t, origin) for (n, _, origin), (t, _, _) in zip(units, done))
        whole = "\n".join(prog.texts)
        sized = "MIRTUNE_SIZE" in whole or "checksum:" in whole  # written for the collector
        prog_check = answer_check(whole, check)
        for size in (sizes if sized else (0,)):
            spec = BuildSpec(name=prog.name, source=text, suffix=Path(prog.path).suffix,
                             defines={"MIRTUNE_SIZE": str(size)} if sized else {}, openmp=True, opt=2,
                             include_dirs=(str(Path(prog.path).parent), *prog.include_dirs), units=units,
                             depends=prog.depends)
            job = BuildJob(spec, columns=cols, failure=failure)
            builds[job.key] = job

            def point(params: dict[str, Any], env: dict[str, Any], default: bool) -> Point:
                return Point(sweep=SWEEP, program=prog.name, program_path=prog.path, program_sha256=prog.sha256,
                             input_size=int(size), params=params, is_default=default, env=env,
                             build_key=job.key, power_w=params["power_w"], args=tuple(args),
                             columns={"omp_schedule": env.get("OMP_SCHEDULE"), "power_reason": power_reason,
                                      "variant": variant or None},
                             variant=variant, check=prog_check)

            points.append(point({"power_w": None, "threads": cores, "schedule": "static", "chunk": None},
                                {"OMP_NUM_THREADS": cores}, True))
            for pw, t, s, c in itertools.product(powers, threads, values["schedule"], values["chunk"]):
                points.append(point({"power_w": pw, "threads": t, "schedule": s, "chunk": c},
                                    {"OMP_NUM_THREADS": t, "OMP_SCHEDULE": f"{s},{c}"}, False))
    return SweepPlan(sweep=SWEEP, builds=builds, points=points, columns=COLUMNS,
                     power_kind="cpu" if power_reason is None else None, notes=notes)


def parse_sizes(text: str | Sequence[int] | None) -> tuple[int, ...]:
    """'1,2' -> (1, 2); UsageError for anything but positive integers."""
    if text is None:
        return DEFAULT_SIZES
    parts = text.split(",") if isinstance(text, str) else list(text)
    out: list[int] = []
    for p in parts:
        try:
            v = int(str(p).strip())
        except ValueError:
            raise UsageError(f"--sizes: {str(p).strip()!r} is not an integer") from None
        if v < 1:
            raise UsageError(f"--sizes: input sizes are positive, got {v}")
        if v not in out:
            out.append(v)
    if not out:
        raise UsageError("--sizes: no input size given")
    return tuple(out)


def collect_openmp(programs: Sequence[str | os.PathLike], out_dir: str | os.PathLike, *,
                   space: Sequence[str] | str | None = None, sizes: str | Sequence[int] | None = None,
                   repeats: int = 3, warmup: int = 1, timeout: float = 300.0, address: str | None = None,
                   cache_dir: str | os.PathLike | None = None, max_points: int | None = None,
                   rtol: float = 1e-9, progress: bool = True, rapl_root: str | None = None,
                   flush_every: int = 16, flush_seconds: float = 30.0,
                   log: Callable[[str], None] | None = None, args: Sequence[str] = (),
                   inputs: Sequence[str | os.PathLike] = (), check: OutputCheck | None = None,
                   together: bool = False, include_dirs: Sequence[str | os.PathLike] = ()) -> Summary:
    """Run the OpenMP sweep; the same function behind `mirtune collect openmp` and jobs/collect_openmp.py.

    Ordinary programs (no MIRTUNE_SIZE, no checksum line) run with `args`, find `inputs` in their working folder
    and are checked with `check` (default: the whole stdout; see `plan_openmp`). `together`: `programs` are the
    files of one program (`one_program`); `include_dirs` are header folders (clang's -I) of every program.

    Bad input (missing paths, no programs, an unknown space key or value) raises UsageError before Ray starts.
    `rapl_root` (else $MIRTUNE_POWERCAP_ROOT, else /sys/class/powercap) is where the nodes look for RAPL.
    """
    import ray

    from mirtune.cluster import TIMED_RUN_RESOURCE, ensure_ray, shutdown_ray, timed_capacity
    from mirtune.measure.sandbox import read_inputs

    if together:
        progs = [one_program(programs, include_dirs)]
    else:
        progs = find_programs(programs)
        if include_dirs:
            for d in include_dirs:
                if not Path(d).is_dir():
                    raise UsageError("--include: no such folder", str(d))
            from mirtune.ir.frontend import headers_digest

            dirs = tuple(str(Path(d).resolve()) for d in include_dirs)
            progs = [Program(p.name, p.path, p.source, p.sha256, include_dirs=dirs,
                             depends=headers_digest([Path(p.path)], dirs)) for p in progs]
    restrict = parse_space(space, DIMENSIONS)
    files = read_inputs(inputs)
    variant = run_variant(args, files, check) if (args or files or check) else ""
    size_list = parse_sizes(sizes)
    if timeout <= 0:
        raise UsageError("--timeout must be positive")
    if repeats < 1 or warmup < 0:
        raise UsageError("--repeats must be at least 1 and --warmup at least 0")
    rapl_root = rapl_root or os.environ.get("MIRTUNE_POWERCAP_ROOT") or None  # resolved here, used on the nodes
    started = ensure_ray(address)
    try:
        timed_capacity()
        probe = ray.remote(probe_node).options(num_cpus=0, resources={TIMED_RUN_RESOURCE: 1})
        facts = ray.get(probe.remote(rapl_root))
        power_reason = None if facts["power_domains"] else (facts["power_reason"] or "no power domain")
        if power_reason is not None and "power" in restrict:
            raise UsageError(f"--space power=...: power limits cannot be set here: {power_reason}")
        plan = plan_openmp(progs, cores=int(facts["cores"]), sizes=size_list, restrict=restrict,
                           power_reason=power_reason, args=args, check=check, variant=variant)
        kwargs: dict[str, Any] = {}
        if log is not None:
            kwargs["log"] = log
        return run_sweep(plan, out_dir, repeats=repeats, warmup=warmup, limits=RunLimits(timeout_s=timeout),
                         rtol=rtol, cache_dir=cache_dir, max_points=max_points, progress=progress,
                         rapl_root=rapl_root, flush_every=flush_every, flush_seconds=flush_seconds,
                         inputs=files, **kwargs)
    finally:
        if started:
            shutdown_ray()


def collect_manifest(manifest: str | os.PathLike, out_dir: str | os.PathLike, *,
                     log: Callable[[str], None] | None = None, address: str | None = None,
                     max_points: int | None = None, **options: Any) -> Summary:
    """Sweep every run (argument vector) of every program of a manifest into `out_dir`, one `collect_openmp`
    per run on one Ray cluster; `options` are collect_openmp's, `max_points` bounds the new points of all runs
    together. The whole manifest is read and checked before anything runs."""
    from collectors.manifest import read_manifest
    from mirtune.cluster import ensure_ray, shutdown_ray

    runs = read_manifest(manifest)
    say = log or print
    started = ensure_ray(address)
    total = Summary(out_dir=str(out_dir))
    try:
        for i, run in enumerate(runs, 1):
            left = None if max_points is None else max_points - total.measured
            if left is not None and left <= 0:
                break
            say(f"[run {i}/{len(runs)}] {run.name} {' '.join(run.args)}")
            extra = {"log": log} if log is not None else {}
            total.add(collect_openmp([run.source, *run.extra_sources], out_dir, args=run.args, inputs=run.inputs,
                                     max_points=left, together=bool(run.extra_sources),
                                     include_dirs=run.include_dirs, **options, **extra))
    finally:
        if started:
            shutdown_ray()
    return total
