"""`mirtune collect`: measure configurations of benchmark programs across a Ray cluster into Parquet.

    mirtune collect openmp --programs collectors/programs/openmp --out data/openmp \\
        [--space threads=1,2 schedule=static chunk=1,64] [--repeats 3] [--warmup 1] [--timeout 300] \\
        [--sizes 1,2] [--address ADDR]

Rows are written as part files into the --out directory as points complete; running the same command again
measures only the points that are missing. Read the result with `collectors.sweep.read_rows(DIR)` or any
Parquet reader (one row per point id).
"""

from __future__ import annotations

import argparse
import sys

from mirtune.errors import UsageError


def add_openmp_arguments(p: argparse.ArgumentParser) -> None:
    """The options of the OpenMP sweep (shared with jobs/collect_openmp.py)."""
    p.add_argument("--programs", nargs="+", required=True, metavar="PATH",
                   help="C/C++ OpenMP programs, or directories holding them")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory for the Parquet part files")
    p.add_argument("--space", nargs="+", action="extend", default=None, metavar="KEY=V1,V2",
                   help="restrict the space: power=W,... threads=N,... schedule=static|dynamic|guided,... "
                        "chunk=N,...")
    p.add_argument("--repeats", type=int, default=3, metavar="R", help="timed runs per point (default 3)")
    p.add_argument("--warmup", type=int, default=1, metavar="W", help="untimed runs first (default 1)")
    p.add_argument("--timeout", type=float, default=300.0, metavar="S",
                   help="seconds one run may take before its process group is killed (default 300)")
    p.add_argument("--sizes", default="1,2", metavar="N,N", help="input sizes (-DMIRTUNE_SIZE), default 1,2")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="Ray cluster to join (default: $RAY_ADDRESS, else a private local cluster)")
    p.add_argument("--build-dir", default=None, metavar="DIR",
                   help="build cache (default: $MIRTUNE_BUILD_CACHE or ~/.cache/mirtune/builds)")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="measure at most N new points in this run (the rest on the next run)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")


def run_openmp(args: argparse.Namespace) -> int:
    """Run the OpenMP sweep from parsed arguments; print the summary; 0 unless some point hit an error."""
    from collectors.openmp import collect_openmp

    if args.limit is not None and args.limit < 0:
        raise UsageError("--limit must be >= 0")
    summary = collect_openmp(args.programs, args.out, space=args.space, sizes=args.sizes, repeats=args.repeats,
                             warmup=args.warmup, timeout=args.timeout, address=args.address,
                             cache_dir=args.build_dir, max_points=args.limit, progress=not args.no_progress)
    for line in summary.lines():
        print(line)
    return 1 if summary.errors else 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `collect` and its sweeps."""
    p = subparsers.add_parser("collect", help="measure configurations of programs into a Parquet dataset",
                              description=__doc__.strip().splitlines()[0])
    sub = p.add_subparsers(dest="sweep", metavar="SWEEP")
    omp = sub.add_parser("openmp", help="OpenMP threads/schedule/chunk (and power limit where settable)",
                         description="The MIREncoder Table 4 OpenMP space over programs and two input sizes.")
    add_openmp_arguments(omp)
    omp.set_defaults(func=run_openmp)
    p.set_defaults(func=lambda args: _no_sweep(p))


def _no_sweep(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2
