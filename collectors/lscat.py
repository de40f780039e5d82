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
recursively for main.cu); a kernel's name is its path below the folder given. Headers beside the kernel
directories (collectors/programs/cuda/harness.cuh) are found with -I. Every main.cu is run as
`prog XSIZE YSIZE BLOCKX BLOCKY` and prints `kernel_ms: <ms>` and `checksum: <value>`.

Each kernel is built once with nvcc (in parallel through the sweep's build stage; -O3 and the --arch given, by
default nvcc's own, whose PTX the driver JIT-compiles for newer GPUs). Timed runs need a GPU: each asks Ray
for num_gpus=1 besides the node's one timed-run slot, and runs without an address-space limit (CUDA reserves
far more address space than memory). On a cluster without GPUs the sweep only builds: kernels that fail to
build become `build_failed` rows, nothing else is written (no fake times), and the summary says that nothing
can be timed. The points stay unmeasured, so the same command on a cluster with GPU nodes measures them.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import pyarrow as pa

from collectors.runner import BuildSpec, RunLimits
from collectors.space import Dimension, parse_space, resolve
from collectors.sweep import BuildJob, Point, Summary, SweepPlan, run_sweep
from mirtune.errors import UsageError

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
    "nvcc_flags": pa.list_(pa.string()),
}
_SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".c", ".cpp")


@dataclass(frozen=True)
class CudaKernel:
    """A kernel directory: its name, where it is, main.cu's text, and a hash of every source it can include."""

    name: str
    path: str
    main: str
    sha256: str
    include_dirs: tuple[str, ...]


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
                                sha256=_sources_hash(includes), include_dirs=tuple(str(p) for p in includes))
            if name in found and found[name].path != kernel.path:
                raise UsageError(f"two kernels named {name!r}: {found[name].path} and {kernel.path}")
            found[name] = kernel
    if not found:
        raise UsageError(f"no CUDA kernel directory (holding main.cu) in {', '.join(map(str, paths))}")
    return list(found.values())


def build_spec(kernel: CudaKernel, arch: str | None = None, nvcc_flags: Sequence[str] = ()) -> BuildSpec:
    """How one kernel is built: main.cu with nvcc -O3, its folders on the include path."""
    extra = tuple(([f"-arch={arch}"] if arch else []) + list(nvcc_flags))
    # The spec's file is written into the build cache as main.cu; the hash of every source the kernel can
    # include is a define, so that changing any of them changes the build key.
    return BuildSpec(name="main", source=kernel.main, suffix=".cu", compiler="nvcc", opt=3, extra=extra,
                     include_dirs=kernel.include_dirs, defines={"MIRTUNE_SOURCES_SHA256": kernel.sha256[:16]})


def plan_lscat(kernels: Sequence[CudaKernel], *, restrict: dict[str, tuple[Any, ...]] | None = None,
               arch: str | None = None, nvcc_flags: Sequence[str] = ()) -> SweepPlan:
    """The points of the block-size sweep: per kernel and matrix size, (16,16) first, then every other block."""
    values = resolve(DIMENSIONS, dict(restrict or {}))
    blocks = [parse_block(b) for b in values["block"]]
    builds: dict[str, BuildJob] = {}
    points: list[Point] = []
    for k in kernels:
        spec = build_spec(k, arch, nvcc_flags)
        job = BuildJob(spec, columns={"nvcc_flags": ["-O3", *spec.extra]})
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
    from collectors.sweep import ensure_ray
    from mirtune.cluster import shutdown_ray

    kernels = find_cuda_kernels(programs)
    restrict = parse_space(space, DIMENSIONS)
    for b in restrict.get("block", ()):
        parse_block(b)
    if timeout <= 0:
        raise UsageError("--timeout must be positive")
    if repeats < 1 or warmup < 0:
        raise UsageError("--repeats must be at least 1 and --warmup at least 0")
    plan = plan_lscat(kernels, restrict=restrict, arch=arch, nvcc_flags=list(nvcc_flags or ()))
    started = ensure_ray(address)
    try:
        gpus = cluster_gpus()
        kwargs: dict[str, Any] = {}
        if log is not None:
            kwargs["log"] = log
        summary = run_sweep(plan, out_dir, repeats=repeats, warmup=warmup,
                            limits=RunLimits(timeout_s=timeout, limit_address_space=False), rtol=0.0,
                            cache_dir=cache_dir, max_points=max_points, progress=progress and gpus > 0,
                            flush_every=flush_every, flush_seconds=flush_seconds, time_points=gpus > 0, **kwargs)
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
