"""Run the LS-CAT block-size sweep on one GPU machine without Ray, in this process, one point at a time.

    python scripts/collect_lscat_without_ray.py --out DIR [--programs collectors/programs/cuda]
        [--space matrix=240,1016 ...] [--arch sm_90] [--repeats 3] [--warmup 0] [--deadline SECONDS]

For a GPU machine where Ray cannot be installed (a machine lent without network access, say). It runs the
sweep's own pieces: `plan_lscat` for the points and their ids, `sweep.build_item` (nvcc, in parallel threads) for
the binaries, `sweep.timed_point` for each measurement, `PartWriter` for the Parquet parts. So the rows are
exactly those of `mirtune collect lscat`: the same loaders read them, and `mirtune collect lscat` on the same
folder later measures only what is missing. Groups (kernel, matrix size) run one after the other, each with its
default block (16,16) first, whose checksum the other blocks must reproduce; runs never overlap on the GPU.
`--deadline` stops before a group that would start after that many seconds (the group in hand is finished), so
that a time-limited session keeps only whole groups. On a machine without a GPU it says so in one line, exits 2
and writes nothing. Kernels in LS-CAT's harness form (`collectors.lscat.kernel_form`) are refused in one line.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from collectors.lscat import DEFAULT_PROGRAMS, DIMENSIONS, HARNESS, MATRICES, find_cuda_kernels, plan_lscat  # noqa: E402
from collectors.sweep import build_item, default_references, timed_point  # noqa: E402
from mirtune.errors import MirtuneError  # noqa: E402
from mirtune.measure.host import host_info  # noqa: E402
from mirtune.measure.measurement import failed  # noqa: E402
from mirtune.measure.records import PartWriter, Point, compact, point_row, read_rows, schema_for  # noqa: E402
from mirtune.measure.sandbox import RunLimits  # noqa: E402
from mirtune.measure.space import parse_space  # noqa: E402


def group_order(points: list[Point], matrices: list[int]) -> list[list[Point]]:
    """Points by group, default first; groups spread over matrix sizes (every kernel at one size, then the next
    size), sizes in `matrices`' order, so that a stopped run covers kernels evenly."""
    groups: dict[str, list[Point]] = defaultdict(list)
    for p in points:
        groups[p.group].append(p)
    rank = {m: i for i, m in enumerate(matrices)}
    ordered = sorted(groups.values(), key=lambda g: (rank.get(g[0].input_size, len(rank)), g[0].program))
    return [sorted(g, key=lambda p: not p.is_default) for g in ordered]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--programs", nargs="+", default=[str(DEFAULT_PROGRAMS)])
    ap.add_argument("--out", required=True)
    ap.add_argument("--space", nargs="*", default=None)
    ap.add_argument("--arch", default=None)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--deadline", type=float, default=None, help="seconds; no group starts after it")
    ap.add_argument("--flush-seconds", type=float, default=30.0, help="write a part file at least this often")
    ap.add_argument("--sizes-order", default="1016,240,2024,496,1680,784,1232",
                    help="the order in which matrix sizes are visited")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    try:
        kernels = find_cuda_kernels(args.programs)
        harness = [k.name for k in kernels if k.form == HARNESS]
        if harness:
            raise MirtuneError(f"{len(harness)} kernel(s) in LS-CAT's harness form ({harness[0]}, ...): this "
                               "script runs one point at a time; use `mirtune collect lscat` (or "
                               "scripts/collect_cudagen_gpu.py for the generated kernels)")
        plan = plan_lscat(kernels, restrict=parse_space(args.space, DIMENSIONS), arch=args.arch)
    except MirtuneError as exc:
        print(f"collect_lscat_without_ray: {exc.line()}", file=sys.stderr)
        return exc.exit_code
    host = host_info()
    if host.gpu_count < 1:  # nothing can be timed: write nothing rather than rows of failed runs
        print(f"collect_lscat_without_ray: no GPU on this machine ({host.gpu_reason or 'NVML sees none'}); "
              "nothing can be timed", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    existing = read_rows(out)
    done = set(existing["point_id"]) if len(existing) else set()
    todo = [p for p in plan.points if p.point_id not in done]
    print(f"{len(kernels)} kernels, {len(plan.points)} points, {len(todo)} to measure", flush=True)

    keys = sorted({p.build_key for p in todo})
    spec_json = {k: plan.builds[k].spec.to_json() for k in keys}
    with ThreadPoolExecutor(max_workers=8) as pool:
        built = list(pool.map(lambda k: build_item({"spec_json": spec_json[k], "cache_dir": ""}), keys))
    builds = {b["key"]: b for b in built}
    bad = [b for b in built if b["status"] != "ok"]
    print(f"built {len(built) - len(bad)} of {len(built)} in {time.monotonic() - t0:.1f} s", flush=True)
    for b in bad:
        print(f"  build failed: {b['reason'][:300]}", flush=True)

    limits = RunLimits(timeout_s=args.timeout, limit_address_space=False)
    settings = {"repeats": args.repeats, "warmup": args.warmup, "limits": limits, "rtol": 0.0, "cache_dir": None,
                "power_kind": None, "rapl_root": None, "report": plan.report, "num_gpus": plan.num_gpus,
                "inputs": None, "columns": {k: job.columns for k, job in plan.builds.items()}}
    references = default_references(existing, plan.points)
    sizes = list(dict.fromkeys([int(s) for s in args.sizes_order.split(",")] + list(MATRICES)))
    writer = PartWriter(out, schema_for(plan.columns), flush_every=100_000, flush_seconds=args.flush_seconds)
    status: Counter[str] = Counter()
    groups = group_order(todo, sizes)
    try:
        for i, group in enumerate(groups):
            if args.deadline is not None and time.monotonic() - t0 > args.deadline:
                print(f"deadline: stopped before group {i + 1} of {len(groups)}", flush=True)
                break
            tg = time.monotonic()
            for p in group:
                b = builds[p.build_key]
                ref_status, ref_sum = references.get(p.group, ("ok", None))
                if p.is_default:
                    row = timed_point(p, spec_json[p.build_key], b, None, settings)
                    references[p.group] = (row["status"], row.get("checksum"))
                elif ref_status != "ok" or ref_sum is None:
                    row = point_row(p, failed("unsupported", "no reference checksum: the default configuration ended "
                                         f"as {ref_status}"), b, settings["columns"][p.build_key], settings,
                               host.row(), None)
                else:
                    row = timed_point(p, spec_json[p.build_key], b, ref_sum, settings)
                writer.add(row)
                status[row["status"]] += 1
            writer.maybe_flush()
            print(f"[{i + 1}/{len(groups)}] {group[0].program} {group[0].input_size}: {len(group)} points in "
                  f"{time.monotonic() - tg:.1f} s; so far {dict(status)}", flush=True)
    finally:
        writer.flush()
    compact(out)  # one part file: fewer files to carry off a machine
    print(f"wrote {writer.written} rows in {time.monotonic() - t0:.0f} s: {dict(status)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
