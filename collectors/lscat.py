"""The CUDA thread-block sweep: kernels in the LS-CAT layout x the paper's Table 5 matrix and block sizes.

Space (each `--space key=v1,v2` replaces one dimension's values):
- matrix: 240, 496, 784, 1016, 1232, 1680, 2024 (XSIZE = YSIZE), the matrix sizes of LS-CAT / MIREncoder Table 5;
- block: (8,8), (16,16), (24,24), (32,32), (1,64), (1,128), ..., (1,1024) in steps of 64: 20 (BLOCKX, BLOCKY)
  shapes, written `8x8`, `1x64` ... on the command line.
The default configuration of every (kernel, matrix) is block (16,16): its checksum is the reference the other
block shapes must reproduce. The label a predictor learns from is `reported_median`, the kernel's own time in
milliseconds per launch (CUDA events, printed by the program as `kernel_ms:`); `median_s` is the whole process
and is dominated by creating the CUDA context.

Layout (as in an LS-CAT checkout, `data/kernels/<Repo>/<underdirectory>/`): a directory per kernel holding
`main.cu` and the kernel source it includes. `--programs` names kernel directories or folders of them (searched
recursively for main.cu; an LS-CAT checkout's root stands for its `data/kernels`); a kernel's name is its path
below the folder given, whose first part is the `source_repo` column (LS-CAT's repository id). Headers beside
the kernel directories (collectors/programs/cuda/harness.cuh) are found with -I. A kernel directory is in one of
two forms (`kernel_form`):
- points (mirtune's harness.cuh): main.cu is run once per point as `prog XSIZE YSIZE BLOCKX BLOCKY` and prints
  `kernel_ms: <ms>` and `checksum: <value>`; each point is a timed run of the sweep (`--repeats`, `--warmup`).
- harness (LS-CAT's own main.cu, and collectors/cudagen.py's): `prog N` loops itself over the first N matrix
  sizes and the 20 blocks and prints `[<us for 1000 launches>,(BX,BY),(X,Y)]` per point. It is built as LS-CAT
  builds it (nvcc on main.cu in its own folder), run ONCE per kernel under `--timeout` (the whole run), and its
  lines become rows (`collectors.lscat_lines.harness_rows`); a kernel whose points are all in the output folder
  is not run again. A kernel that does not build, hangs, faults or prints nothing gets rows whose status says so.

Each kernel is built once with nvcc (in parallel through Ray Data, the sweep's build stage; -O3 and the --arch given, by
default nvcc's own, whose PTX the driver JIT-compiles for newer GPUs). Timed runs need a GPU: each asks Ray
for num_gpus=1 besides the node's one timed-run slot, and runs without an address-space limit (CUDA reserves
far more address space than memory). On a cluster without GPUs the sweep only builds: kernels that fail to
build become `build_failed` rows, nothing else is written (no fake times), and the summary says that nothing
can be timed. The points stay unmeasured, so the same command on a cluster with GPU nodes measures them.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import pyarrow as pa

from collectors.sweep import BuildJob, Summary, SweepPlan, cancel_all, run_sweep
from mirtune.errors import UsageError
from mirtune.measure.build import BuildSpec
from mirtune.measure.records import Point
from mirtune.measure.sandbox import RunLimits
from mirtune.measure.space import Dimension, parse_space, resolve

SWEEP = "lscat"
MATRICES = (240, 496, 784, 1016, 1232, 1680, 2024)
BLOCKS: tuple[tuple[int, int], ...] = ((8, 8), (16, 16), (24, 24), (32, 32)) + tuple((1, 64 * k) for k in range(1, 17))
DEFAULT_BLOCK = (16, 16)
REPORT_KEY = "kernel_ms"
DEFAULT_PROGRAMS = Path(__file__).resolve().parent / "programs" / "cuda"
DIMENSIONS: dict[str, Dimension] = {
    "matrix": Dimension("matrix", int, MATRICES, help="XSIZE = YSIZE"),
    "block": Dimension("block", str, tuple(f"{x}x{y}" for x, y in BLOCKS), help="BLOCKXxBLOCKY"),
}
COLUMNS: dict[str, pa.DataType] = {
    "block_x": pa.int64(), "block_y": pa.int64(), "block_threads": pa.int64(),
    "matrix_x": pa.int64(), "matrix_y": pa.int64(),
    "reported": pa.list_(pa.float64()), "reported_median": pa.float64(), "reported_key": pa.string(),
    "nvcc_flags": pa.list_(pa.string()), "source_repo": pa.string(),
}
_SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".c", ".cpp")
POINTS, HARNESS = "points", "harness"
_READS_N = re.compile(r"\b(?:atoi|atol|strtol|strtoul|stoi)\s*\(\s*argv\s*\[\s*1\s*\]")
_PRINTS_POINT_LINE = re.compile(r"""<<\s*'\['|printf\s*\(\s*"\[(?:%|error)""")
_QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


@dataclass(frozen=True)
class CudaKernel:
    """A kernel directory: its name, where it is, main.cu's text, and a hash of every source it can include."""

    name: str
    path: str
    main: str
    sha256: str
    include_dirs: tuple[str, ...]
    form: str = POINTS

    @property
    def source_repo(self) -> str:
        """The first part of the kernel's name: LS-CAT's source repository id (the kernel itself in a flat folder)."""
        return self.name.split("/", 1)[0]


def parse_block(text: str) -> tuple[int, int]:
    """'16x16' -> (16, 16); UsageError unless both are positive and the block has at most 1024 threads."""
    parts = text.lower().replace("(", "").replace(")", "").replace(",", "x").split("x")
    try:
        bx, by = (int(p) for p in parts)
    except ValueError:
        raise UsageError(f"--space block={text}: expected BLOCKXxBLOCKY, e.g. 16x16 or 1x64") from None
    if bx < 1 or by < 1:
        raise UsageError(f"--space block={text}: block dimensions must be positive")
    if bx * by > 1024:
        raise UsageError(f"--space block={text}: a CUDA block holds at most 1024 threads, not {bx * by}")
    return bx, by


def _sources_hash(folders: Sequence[Path]) -> str:
    h = hashlib.sha256()
    for folder in folders:
        for f in sorted(folder.iterdir()):
            if f.is_file() and f.suffix in _SOURCE_SUFFIXES:
                h.update(f"{f.name}\0".encode())
                h.update(f.read_bytes())
                h.update(b"\0")
    return h.hexdigest()


def kernel_form(folder: Path, include_dirs: Sequence[str | os.PathLike]) -> str:
    """HARNESS when main.cu is LS-CAT's form of harness, else POINTS (mirtune's harness.cuh form).

    Read in main.cu and every header it includes with quotes (found beside the including file, then in
    `include_dirs`, recursively): LS-CAT's form reads N from argv[1] (atoi/strtol/stoi(argv[1])) and prints its
    point lines itself (`cout << '['` or `printf("[%...` / `printf("[error...`); harness.cuh's form reads XSIZE from
    argv[1] too but prints `kernel_ms:` lines, never a bracket."""
    texts, seen, todo = [], set(), [folder / "main.cu"]
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        text = f.read_text(errors="replace")
        texts.append(text)
        for inc in _QUOTED_INCLUDE.findall(text):
            where = [f.parent, *map(Path, include_dirs)]
            found = next((d / inc for d in where if (d / inc).is_file()), None)
            if found is not None:
                todo.append(found.resolve())
    code = "\n".join(texts)
    return HARNESS if _READS_N.search(code) and _PRINTS_POINT_LINE.search(code) else POINTS


def find_cuda_kernels(paths: Sequence[str | os.PathLike]) -> list[CudaKernel]:
    """The kernel directories (holding main.cu) named by `paths`, or found below them.

    UsageError for a missing path, no kernel at all, or two kernels with one name.
    """
    found: dict[str, CudaKernel] = {}
    for raw in paths:
        root = Path(raw)
        if not root.exists():
            raise UsageError("no such file or directory", str(root))
        if root.is_file():
            if root.name != "main.cu":
                raise UsageError("expected a kernel directory (holding main.cu) or a folder of them", str(root))
            root = root.parent
        if not (root / "main.cu").is_file() and (root / "data" / "kernels").is_dir():
            root = root / "data" / "kernels"  # an LS-CAT checkout: kernels are named <Repo>/<underdirectory>
        if (root / "main.cu").is_file():
            dirs, base = [root], root.parent
        else:
            dirs, base = sorted(p.parent for p in root.rglob("main.cu")), root
        for d in dirs:
            d = d.resolve()
            name = d.relative_to(base.resolve()).as_posix()
            # headers may live beside the kernel directories, up to the folder that was given
            includes = [d]
            up = d.parent
            while True:
                includes.append(up)
                if up == base.resolve() or up == up.parent:
                    break
                up = up.parent
            kernel = CudaKernel(name=name, path=str(d), main=(d / "main.cu").read_text(errors="replace"),
                                sha256=_sources_hash(includes), include_dirs=tuple(str(p) for p in includes),
                                form=kernel_form(d, includes[1:]))
            if name in found and found[name].path != kernel.path:
                raise UsageError(f"two kernels named {name!r}: {found[name].path} and {kernel.path}")
            found[name] = kernel
    if not found:
        raise UsageError(f"no CUDA kernel directory (holding main.cu) in {', '.join(map(str, paths))}")
    return list(found.values())


def build_spec(kernel: CudaKernel, arch: str | None = None, nvcc_flags: Sequence[str] = ()) -> BuildSpec:
    """How one kernel is built: main.cu with nvcc -O3, its folders on the include path (the harness form: main.cu
    in place, as LS-CAT builds it, so that a kernel folder's own cuda.h or stdlib.h hides no system header)."""
    extra = tuple(([f"-arch={arch}"] if arch else []) + list(nvcc_flags))
    # The spec's file is written into the build cache as main.cu; the hash of every source the kernel can
    # include is a define, so that changing any of them changes the build key.
    if kernel.form == HARNESS:
        main = Path(kernel.path) / "main.cu"
        source, include_dirs = f'#include "{main}"\n', kernel.include_dirs[1:]
    else:
        source, include_dirs = kernel.main, kernel.include_dirs
    return BuildSpec(name="main", source=source, suffix=".cu", compiler="nvcc", opt=3, extra=extra,
                     include_dirs=include_dirs, defines={"MIRTUNE_SOURCES_SHA256": kernel.sha256[:16]})


def plan_lscat(kernels: Sequence[CudaKernel], *, restrict: dict[str, tuple[Any, ...]] | None = None,
               arch: str | None = None, nvcc_flags: Sequence[str] = ()) -> SweepPlan:
    """The points of the block-size sweep: per kernel and matrix size, (16,16) first, then every other block.
    (Points of a harness-form kernel carry its build but are measured by one run of it: `collect_harness`.)"""
    values = resolve(DIMENSIONS, dict(restrict or {}))
    blocks = [parse_block(b) for b in values["block"]]
    builds: dict[str, BuildJob] = {}
    points: list[Point] = []
    for k in kernels:
        spec = build_spec(k, arch, nvcc_flags)
        job = BuildJob(spec, columns={"nvcc_flags": ["-O3", *spec.extra], "source_repo": k.source_repo})
        builds[job.key] = job
        for m in values["matrix"]:
            shapes = [DEFAULT_BLOCK] + [b for b in blocks if b != DEFAULT_BLOCK]
            for bx, by in shapes:
                points.append(Point(sweep=SWEEP, program=k.name, program_path=k.path, program_sha256=k.sha256,
                                    input_size=int(m), params={"block_x": bx, "block_y": by},
                                    is_default=(bx, by) == DEFAULT_BLOCK, env={}, build_key=job.key,
                                    args=(str(m), str(m), str(bx), str(by)),
                                    columns={"block_threads": bx * by, "matrix_x": int(m), "matrix_y": int(m),
                                             "reported_key": REPORT_KEY}))
    return SweepPlan(sweep=SWEEP, builds=builds, points=points, columns=COLUMNS, num_gpus=1.0, report=REPORT_KEY)


def run_harness(exe: str, kernel: CudaKernel, matrices: Sequence[int], blocks: Sequence[tuple[int, int]],
                limits: RunLimits, columns: dict[str, Any], env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Run a built harness-form kernel once (`exe N`, N from `matrices`) under `limits`; one row per (matrix,
    block) point, from the lines it printed or, for the points it did not print, why (timeout, crash, nothing)."""
    from collectors.lscat_lines import harness_rows
    from mirtune.measure.sandbox import run_once

    run = run_once([exe, str(harness_n(matrices))], env, limits)
    return harness_rows(program=kernel.name, program_path=kernel.path, program_sha256=kernel.sha256, run=run,
                        matrices=matrices, blocks=blocks, columns={**columns, "timeout_s": limits.timeout_s})


def harness_task(kernel: CudaKernel, spec_json: str, build: dict[str, Any],
                 job: dict[str, Any]) -> list[dict[str, Any]]:
    """The Ray task of one harness-form kernel on a GPU node: install its binary there, then `run_harness`."""
    import ray

    from mirtune.measure.build import install
    from mirtune.measure.host import host_info, timestamp

    res = install(BuildSpec.from_json(spec_json), build.get("exe_bytes"), build.get("tag"), job["cache_dir"])
    if res.status != "ok" or res.exe is None:  # built on the driver's node, not on this one: a rerun retries
        raise RuntimeError(f"not built on this node: {res.reason}")
    env = {"CUDA_VISIBLE_DEVICES": os.environ["CUDA_VISIBLE_DEVICES"]} if "CUDA_VISIBLE_DEVICES" in os.environ else {}
    columns = {**job["columns"], **host_info().row(), "repeats": 1, "warmup": 0, "build_key": res.key,
               "build_s": build.get("seconds"), "build_cached": build.get("cached"),
               "node_id": ray.get_runtime_context().get_node_id(), "timestamp": timestamp()}
    return run_harness(res.exe, kernel, job["matrices"], job["blocks"], job["limits"], columns, env)


def harness_n(matrices: Sequence[int]) -> int:
    """LS-CAT's N for these matrix sizes: a harness runs the first N of MATRICES; UsageError for another size."""
    other = [m for m in matrices if m not in MATRICES]
    if other:
        raise UsageError(f"--space matrix={','.join(map(str, other))}: an LS-CAT harness runs only the sizes "
                         f"{', '.join(map(str, MATRICES))}")
    return max(MATRICES.index(m) for m in matrices) + 1


def collect_harness(plan: SweepPlan, kernels: Sequence[CudaKernel], out_dir: str | os.PathLike, *,
                    timeout: float, cache_dir: str | os.PathLike | None = None, max_points: int | None = None,
                    time_points: bool = True, flush_every: int = 32, flush_seconds: float = 30.0,
                    log: Callable[[str], None] | None = None) -> Summary:
    """Measure the harness-form `kernels` (their points are in `plan`): build them through Ray Data, run each
    kernel whose points are not all in `out_dir` once on a GPU node, write its rows (only the missing ones).

    `time_points=False` only builds: kernels that fail to build get build_failed rows, the rest are counted in
    `summary.not_timed`. `max_points` stops taking kernels once that many new points are taken."""
    from collectors.sweep import run_builds, signals_interrupt
    from mirtune.cluster import timed_capacity
    from mirtune.measure.host import host_info
    from mirtune.measure.measurement import failed
    from mirtune.measure.records import PartWriter, dir_lock, point_row, read_rows, schema_for

    t0 = time.monotonic()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    points: dict[str, list[Point]] = {}
    for p in plan.points:
        points.setdefault(p.program, []).append(p)
    summary = Summary(out_dir=str(out), total=sum(len(points[k.name]) for k in kernels))
    with dir_lock(out), signals_interrupt():  # a stopped run writes the rows it has
        existing = read_rows(out)
        done = set(existing["point_id"]) if len(existing) else set()
        todo: list[tuple[CudaKernel, list[Point], list[Point]]] = []  # kernel, its points, those missing
        room = max_points
        for k in kernels:
            missing = [p for p in points[k.name] if p.point_id not in done]
            summary.already_done += len(points[k.name]) - len(missing)
            if missing and (room is None or room > 0):
                todo.append((k, points[k.name], missing))
                room = None if room is None else room - len(missing)
        if not todo:
            summary.wall_s = time.monotonic() - t0
            return summary
        keys = sorted({pts[0].build_key for _, pts, _ in todo})
        tb = time.monotonic()
        builds = run_builds(plan, keys, str(cache_dir) if cache_dir else None)
        summary.builds, summary.build_s = len(keys), time.monotonic() - tb
        summary.build_failures = sum(1 for b in builds.values() if b["status"] != "ok")
        settings = {"repeats": 1, "warmup": 0, "limits": RunLimits(timeout_s=timeout, limit_address_space=False)}
        host = host_info().row()
        writer = PartWriter(out, schema_for(plan.columns), flush_every, flush_seconds)
        runs: list[tuple[CudaKernel, list[Point], list[Point], dict[str, Any]]] = []
        try:
            for k, pts, missing in todo:
                b = builds[missing[0].build_key]
                if b.get("transient"):  # not the kernel's fault: a rerun retries it
                    summary.errors += [(p.point_id, f"{k.name}: not built: {b.get('reason')}") for p in missing]
                elif b["status"] != "ok":
                    for p in missing:
                        writer.add(point_row(p, failed("build_failed", b.get("reason") or "not built"), b,
                                        plan.builds[p.build_key].columns, settings, host, None))
                    summary.by_status["build_failed"] += len(missing)
                elif not time_points:
                    summary.not_timed += len(missing)
                else:
                    runs.append((k, pts, missing, b))
            if runs:
                _run_harnesses(plan, runs, writer, summary, settings, str(cache_dir) if cache_dir else None,
                               timed_capacity(), log)
        finally:
            writer.flush()
            summary.measured = writer.written
            summary.files = [str(f) for f in writer.files]
            summary.wall_s = time.monotonic() - t0
    return summary


def _run_harnesses(plan: SweepPlan, runs: list[tuple[CudaKernel, list[Point], list[Point], dict[str, Any]]],
                   writer: Any, summary: Summary, settings: dict[str, Any], cache_dir: str | None, capacity: int,
                   log: Callable[[str], None] | None) -> None:
    """Run the built harness kernels on GPU nodes, at most two per timed-run slot in flight; write their rows."""
    import ray

    from mirtune.cluster import TIMED_RUN_RESOURCE

    remote = ray.remote(harness_task).options(num_cpus=1, num_gpus=1, resources={TIMED_RUN_RESOURCE: 1},
                                              max_retries=2, retry_exceptions=False, name="mirtune_lscat_harness")
    build_refs: dict[str, Any] = {}
    inflight: dict[Any, tuple[CudaKernel, list[Point]]] = {}
    queue = list(runs)
    tr, finished = time.monotonic(), 0
    try:
        while queue or inflight:
            while queue and len(inflight) < max(2, 2 * capacity):
                k, pts, missing, b = queue.pop(0)
                key = missing[0].build_key
                if key not in build_refs:
                    build_refs[key] = ray.put(b)
                matrices = list(dict.fromkeys(p.input_size for p in pts))
                blocks = list(dict.fromkeys((p.params["block_x"], p.params["block_y"]) for p in pts))
                job = {"matrices": matrices, "blocks": blocks, "limits": settings["limits"], "cache_dir": cache_dir,
                       "columns": plan.builds[key].columns}
                inflight[remote.remote(k, plan.builds[key].spec.to_json(), build_refs[key], job)] = (k, missing)
            done, _ = ray.wait(list(inflight), num_returns=1, timeout=30.0)
            for ref in done:
                k, missing = inflight.pop(ref)
                finished += 1
                try:
                    rows = ray.get(ref)
                except Exception as exc:  # RayTaskError, WorkerCrashedError after retries, ...
                    msg = f"{k.name}: {type(exc).__name__}: " + (str(exc).strip().splitlines() or [""])[-1][:300]
                    summary.errors += [(p.point_id, msg) for p in missing]
                    if log is not None:
                        log(f"[{finished}/{len(runs)}] {msg}")
                    continue
                wanted = {p.point_id for p in missing}
                counts: dict[str, int] = {}
                for row in rows:
                    if row["point_id"] in wanted:
                        writer.add(row)
                        summary.by_status[row["status"]] += 1
                        counts[row["status"]] = counts.get(row["status"], 0) + 1
                if log is not None:
                    log(f"[{finished}/{len(runs)}] {k.name}: "
                        + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
            writer.maybe_flush()
    except BaseException:
        cancel_all(inflight)
        raise
    finally:
        summary.run_s += time.monotonic() - tr


def cluster_gpus() -> float:
    """GPUs in the Ray cluster (0 when there are none)."""
    import ray

    return float(ray.cluster_resources().get("GPU", 0.0))


def collect_lscat(programs: Sequence[str | os.PathLike], out_dir: str | os.PathLike, *,
                  space: Sequence[str] | str | None = None, repeats: int = 3, warmup: int = 0,
                  timeout: float = 120.0, arch: str | None = None, nvcc_flags: Sequence[str] | None = None,
                  address: str | None = None, cache_dir: str | os.PathLike | None = None,
                  max_points: int | None = None, progress: bool = True, flush_every: int = 32,
                  flush_seconds: float = 30.0, log: Callable[[str], None] | None = None) -> Summary:
    """Run the block-size sweep (GPU nodes), or only build every kernel when the cluster has no GPU.

    The same function behind `mirtune collect lscat` and jobs/collect_lscat.py. Bad input raises UsageError
    before Ray starts.
    """
    from collectors.sweep import stderr_line
    from mirtune.cluster import ensure_ray
    from mirtune.cluster import shutdown_ray

    kernels = find_cuda_kernels(programs)
    restrict = parse_space(space, DIMENSIONS)
    for b in restrict.get("block", ()):
        parse_block(b)
    if timeout <= 0:
        raise UsageError("--timeout must be positive")
    if repeats < 1 or warmup < 0:
        raise UsageError("--repeats must be at least 1 and --warmup at least 0")
    per_point = [k for k in kernels if k.form == POINTS]
    harness = [k for k in kernels if k.form == HARNESS]
    if harness:
        harness_n(resolve(DIMENSIONS, dict(restrict))["matrix"])
    flags = list(nvcc_flags or ())
    started = ensure_ray(address)
    try:
        gpus = cluster_gpus()
        kwargs: dict[str, Any] = {}
        if log is not None:
            kwargs["log"] = log
        summary = Summary(out_dir=str(out_dir))
        if per_point:
            summary.add(run_sweep(plan_lscat(per_point, restrict=restrict, arch=arch, nvcc_flags=flags), out_dir,
                                  repeats=repeats, warmup=warmup,
                                  limits=RunLimits(timeout_s=timeout, limit_address_space=False), rtol=0.0,
                                  cache_dir=cache_dir, max_points=max_points, progress=progress and gpus > 0,
                                  flush_every=flush_every, flush_seconds=flush_seconds, time_points=gpus > 0,
                                  **kwargs))
        if harness:
            left = None if max_points is None else max(0, max_points - summary.measured - len(summary.errors))
            shown = (log or stderr_line) if progress and gpus > 0 else None
            summary.add(collect_harness(plan_lscat(harness, restrict=restrict, arch=arch, nvcc_flags=flags),
                                        harness, out_dir, timeout=timeout, cache_dir=cache_dir, max_points=left,
                                        time_points=gpus > 0, flush_every=flush_every, flush_seconds=flush_seconds,
                                        log=shown))
        if gpus <= 0:
            if summary.builds:
                built = summary.builds - summary.build_failures
                what = (f"{built} of {summary.builds} kernel(s) built, {summary.build_failures} failed to build; "
                        f"{summary.not_timed} point(s) left for a cluster with GPU nodes")
            else:
                what = "no point is left to build or time"
            summary.notes.append(f"nothing can be timed: the Ray cluster has no GPU ({what})")
        return summary
    finally:
        if started:
            shutdown_ray()
