"""Measure the next batch of generated CUDA kernels on one GPU machine, in one process, before a deadline.

    python3 scripts/collect_cudagen_gpu.py --out DIR [--deadline 480] [--workers 12] [--arch sm_90]

For the lent GPU machine (no network, no Ray, minutes of time): it takes the kernels of `collectors.cudagen` in
their fixed order, skips those already measured on this GPU model (the rows under `datasets/cuda-<gpu>/`), builds
the rest with nvcc on a pool of threads while the GPU runs earlier ones, and runs one kernel at a time: each
harness run covers 7 matrix sizes x 20 block shapes (LS-CAT's form) and becomes 140 rows of the `lscat` sweep
(`collectors.lscat_lines`). Every 20th kernel of the order is run a second time ten kernels later, into a separate
file, to measure the noise. Rows are written to DIR every 30 s and at the end (`cudagen-<gpu>-<time>.parquet`,
`...-repeats.parquet`), with `...-summary.json` (the machine, counts, where the time went); merge them with
`python scripts/merge_gpu_rows.py DIR` into `datasets/cuda-<gpu>/` and commit. No kernel starts after `--deadline`
seconds; the one in hand finishes (a harness run is limited by `--timeout`). On a machine without a GPU it says
so in one line and exits 2, unless `--no-gpu-ok` (tests: the rows are then the harness's failures).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pyarrow as pa
import pyarrow.parquet as pq

from collectors import cudagen
from collectors.lscat import BLOCKS, COLUMNS, MATRICES, SWEEP
from collectors.lscat_lines import harness_rows
from mirtune.measure.build import BuildResult, BuildSpec, build  # noqa: E402
from mirtune.measure.host import host_info, timestamp
from mirtune.measure.records import point_id, schema_for
from mirtune.measure.sandbox import RunLimits, run_once

REPO = Path(__file__).resolve().parents[1]
EXTRA_COLUMNS = {"family": pa.string(), "generator_version": pa.int64(), "order": pa.int64(), "run": pa.int64(),
                 "harness_s": pa.float64()}
SCHEMA = schema_for({**COLUMNS, **EXTRA_COLUMNS})
REPEAT_EVERY, REPEAT_AFTER = 20, 10


def gpu_tag(model: str | None) -> str:
    """A short folder tag for a GPU model: 'NVIDIA H200' -> 'h200', 'NVIDIA H100 80GB HBM3' -> 'h100'."""
    if not model:
        return "nogpu"
    words = [w for w in re.split(r"[^a-z0-9]+", model.lower()) if w and w not in ("nvidia", "tesla", "geforce")]
    return words[0] if words else "gpu"


def measured(folders: list[Path]) -> set[tuple[str, str]]:
    """(program, program_sha256) of every kernel with rows under `folders`."""
    done: set[tuple[str, str]] = set()
    for folder in folders:
        for f in sorted(folder.rglob("*.parquet")) if folder.is_dir() else []:
            t = pq.read_table(f, columns=["program", "program_sha256"])
            done |= set(zip(t.column("program").to_pylist(), t.column("program_sha256").to_pylist()))
    return done


def spec_of(k: cudagen.GenKernel, kernel_dir: Path, arch: str) -> BuildSpec:
    """How a generated kernel is built: its main.cu with nvcc -O3, its folder and its family's on the path."""
    return BuildSpec(name="main", source=k.main_source, suffix=".cu", compiler="nvcc", opt=3,
                     extra=(f"-arch={arch}",), include_dirs=(str(kernel_dir), str(kernel_dir.parent)))


class Writer:
    """The rows of this run in one Parquet file, rewritten whole (atomically) at every flush."""

    def __init__(self, path: Path) -> None:
        self.path, self.rows, self.written = path, [], 0

    def flush(self) -> None:
        if len(self.rows) == self.written:
            return
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        pq.write_table(pa.Table.from_pylist(self.rows, schema=SCHEMA), tmp, compression="zstd")
        tmp.replace(self.path)
        self.written = len(self.rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for the Parquet rows and the summary")
    ap.add_argument("--deadline", type=float, default=480.0, help="seconds; no kernel starts after it")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds for one kernel's harness run")
    ap.add_argument("--workers", type=int, default=12, help="nvcc builds at a time")
    ap.add_argument("--arch", default="sm_90", help="nvcc -arch (sm_90: H100 and H200)")
    ap.add_argument("--sizes", type=int, default=7, help="matrix sizes per kernel (LS-CAT's N, 1..7)")
    ap.add_argument("--max-kernels", type=int, default=None, help="at most this many kernels")
    ap.add_argument("--done", nargs="*", default=None,
                    help="folders of rows already measured (default: datasets/cuda-<gpu>)")
    ap.add_argument("--no-gpu-ok", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    if not 1 <= args.sizes <= len(MATRICES):
        print(f"collect_cudagen_gpu: --sizes must be 1..{len(MATRICES)}", file=sys.stderr)
        return 2
    host = host_info()
    if host.gpu_count < 1 and not args.no_gpu_ok:
        print(f"collect_cudagen_gpu: no GPU on this machine ({host.gpu_reason or 'NVML sees none'}); nothing can "
              "be timed", file=sys.stderr)
        return 2
    tag = gpu_tag(host.gpu_model)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    done = measured([Path(d) for d in (args.done if args.done is not None else [REPO / "datasets" / f"cuda-{tag}"])])
    order = cudagen.kernels()
    position = {k.name: i for i, k in enumerate(order)}
    fresh = [k for k in order if (f"{k.family}/{k.name}", k.sha256) not in done]
    todo = fresh[: args.max_kernels]
    print(f"{host.gpu_model or 'no GPU'} ({tag}): {len(order)} generated kernels, {len(order) - len(fresh)} "
          f"measured before, {len(todo)} to go; deadline {args.deadline:.0f} s", flush=True)
    work = Path(tempfile.mkdtemp(prefix="mirtune-cudagen-"))
    dirs = cudagen.write_kernels(work, todo)
    stamp = timestamp().replace(":", "").replace("-", "").replace("+0000", "")[:15]
    first = Writer(out / f"cudagen-{tag}-{stamp}.parquet")
    again = Writer(out / f"cudagen-{tag}-{stamp}-repeats.parquet")
    matrices, blocks = list(MATRICES[: args.sizes]), list(BLOCKS)
    limits = RunLimits(timeout_s=args.timeout, limit_address_space=False)
    status: Counter[str] = Counter()
    spent = {"build_s": 0.0, "harness_s": 0.0, "wait_for_build_s": 0.0}
    kernels_run, repeats_run, last_flush = 0, 0, time.monotonic()
    pending_repeats: list[tuple[int, int]] = []  # (run it when this many kernels are done, index into todo)
    pool = ThreadPoolExecutor(max_workers=max(1, args.workers))
    futures: list[Future[BuildResult]] = [pool.submit(build, spec_of(k, d, args.arch)) for k, d in zip(todo, dirs)]

    def run_kernel(i: int, run: int) -> None:
        nonlocal last_flush
        k, d = todo[i], dirs[i]
        tw = time.monotonic()
        res = futures[i].result()
        spent["wait_for_build_s"] += time.monotonic() - tw
        if run == 0:
            spent["build_s"] += res.seconds
        common: dict[str, Any] = {
            **host.row(), "family": k.family, "generator_version": cudagen.GENERATOR_VERSION,
            "order": position[k.name], "run": run, "source_repo": k.family, "build_key": res.key,
            "build_s": res.seconds, "build_cached": res.cached, "nvcc_flags": ["-O3", f"-arch={args.arch}"],
            "repeats": 3, "warmup": 1, "timeout_s": args.timeout, "timestamp": timestamp()}
        program = f"{k.family}/{k.name}"
        if res.status != "ok":
            rows = [{"point_id": point_id(SWEEP, program, k.sha256, m, {}, True), "sweep": SWEEP, "program": program,
                     "program_path": str(d), "program_sha256": k.sha256, "input_size": m, "is_default": True,
                     "status": "build_failed", "reason": res.reason[:500], **common} for m in matrices]
            line = f"build failed: {res.reason[:200]}"
        else:
            tr = time.monotonic()
            proc = run_once([res.exe, str(args.sizes)], limits=limits)
            spent["harness_s"] += time.monotonic() - tr
            rows = harness_rows(program=program, program_path=str(d), program_sha256=k.sha256, run=proc,
                                matrices=matrices, blocks=blocks, columns={**common, "harness_s": proc.seconds})
            counts = Counter(r["status"] for r in rows)
            line = f"{proc.seconds:.1f} s, " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        (first if run == 0 else again).rows.extend(rows)
        if run == 0:
            status.update(r["status"] for r in rows)
        print(f"[{i + 1}/{len(todo)}{' repeat' if run else ''}] {program}: {line}; {time.monotonic() - t0:.0f} s",
              flush=True)
        if time.monotonic() - last_flush > 30:
            first.flush()
            again.flush()
            last_flush = time.monotonic()

    stopped = ""
    try:
        for i in range(len(todo)):
            if time.monotonic() - t0 > args.deadline:
                stopped = f"deadline: stopped before kernel {i + 1} of {len(todo)}"
                break
            run_kernel(i, 0)
            kernels_run += 1
            if kernels_run == 3 and not status["ok"] and not args.no_gpu_ok:
                stopped = "stopped: the first 3 kernels measured no point cleanly (see their reasons)"
                break
            if position[todo[i].name] % REPEAT_EVERY == 0:
                pending_repeats.append((kernels_run + REPEAT_AFTER, i))
            while pending_repeats and pending_repeats[0][0] <= kernels_run and time.monotonic() - t0 <= args.deadline:
                run_kernel(pending_repeats.pop(0)[1], 1)
                repeats_run += 1
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        first.flush()
        again.flush()
    wall = time.monotonic() - t0
    summary = {"host": host.row(), "gpu_tag": tag, "generator_version": cudagen.GENERATOR_VERSION,
               "kernels_total": len(order), "measured_before": len(order) - len(fresh), "kernels_run": kernels_run,
               "repeats_run": repeats_run, "rows": len(first.rows), "status": dict(status), "wall_s": round(wall, 1),
               "kernels_per_minute": round(60 * kernels_run / wall, 1) if wall > 0 else None,
               **{k: round(v, 1) for k, v in spent.items()}, "workers": args.workers, "arch": args.arch,
               "sizes": matrices, "stopped": stopped, "files": [first.path.name, again.path.name]}
    (out / f"cudagen-{tag}-{stamp}-summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(stopped or "all kernels measured", flush=True)
    print(f"{kernels_run} kernels ({repeats_run} repeats) in {wall:.0f} s: {dict(status)}; builds "
          f"{spent['build_s']:.0f} s of nvcc on {args.workers} threads, harness {spent['harness_s']:.0f} s, "
          f"waiting for builds {spent['wait_for_build_s']:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
