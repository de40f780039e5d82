"""`mirtune collect`: measure configurations of benchmark programs across a Ray cluster into Parquet.

    mirtune collect openmp --programs collectors/programs/openmp --out data/openmp \\
        [--space threads=1,2 schedule=static chunk=1,64] [--repeats 3] [--warmup 1] [--timeout 300] \\
        [--sizes 1,2] [--address ADDR]
    mirtune collect openmp --programs app.c --out data/app --input in.txt [--check stdout] -- in.txt 100
    mirtune collect openmp --manifest programs/manifest.json --out data/apps   # programs with arguments and inputs
    mirtune collect openmp --programs main.c solver.c util.c --together --include include/ --out data/app -- 20000
    mirtune collect vectorize --programs collectors/programs/vectorize/kernels --out data/vectorize \\
        [--space vf=1,4 if=1,2] [--repeats 3] [--opt 2]
    mirtune collect lscat --programs collectors/programs/cuda --out data/lscat \\
        [--space matrix=240,496 block=8x8,1x64] [--arch sm_90]
    mirtune collect summary DIR [DIR ...]      # counts by status, noise
    mirtune collect compact DIR [DIR ...]      # one part file per folder

Rows are written as part files into the --out directory as points complete; running the same command again
measures only the points that are missing. Read the result with `mirtune.measure.records.read_rows(DIR)` or any
Parquet reader (one row per point id); `mirtune collect summary DIR` prints the counts by status and the noise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mirtune.errors import UsageError


def _add_common(p: argparse.ArgumentParser, *, programs_help: str, space_help: str, timeout: float,
                warmup: int = 1, programs_flags: tuple[str, ...] = ("--programs",),
                manifest_help: str | None = None) -> None:
    if manifest_help is None:
        p.add_argument(*programs_flags, dest="programs", nargs="+", required=True, metavar="PATH",
                       help=programs_help)
    else:
        which = p.add_mutually_exclusive_group(required=True)
        which.add_argument(*programs_flags, dest="programs", nargs="+", metavar="PATH", help=programs_help)
        which.add_argument("--manifest", metavar="FILE", help=manifest_help)
    p.add_argument("--out", required=True, metavar="DIR", help="output directory for the Parquet part files")
    p.add_argument("--space", nargs="+", action="extend", default=None, metavar="KEY=V1,V2", help=space_help)
    p.add_argument("--repeats", type=int, default=3, metavar="R", help="timed runs per point (default 3)")
    p.add_argument("--warmup", type=int, default=warmup, metavar="W",
                   help=f"untimed runs first (default {warmup})")
    p.add_argument("--timeout", type=float, default=timeout, metavar="S",
                   help=f"seconds one run may take before its process group is killed (default {timeout:g})")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="Ray cluster to join (default: $RAY_ADDRESS, else a private local cluster)")
    p.add_argument("--build-dir", default=None, metavar="DIR",
                   help="build cache (default: $MIRTUNE_BUILD_CACHE or ~/.cache/mirtune/builds)")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="measure at most N new points in this run (the rest on the next run)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")


def add_openmp_arguments(p: argparse.ArgumentParser) -> None:
    """The options of the OpenMP sweep (shared with jobs/collect_openmp.py)."""
    _add_common(p, programs_help="C/C++ OpenMP programs, or directories holding them",
                space_help="restrict the space: power=W,... threads=N,... schedule=static|dynamic|guided,... "
                           "chunk=N,...", timeout=300.0,
                manifest_help="a JSON list of programs with their argument vectors and input files "
                              "(collectors/manifest.py), instead of --programs")
    p.add_argument("--sizes", default="1,2", metavar="N,N", help="input sizes (-DMIRTUNE_SIZE), default 1,2")
    p.add_argument("--input", action="append", default=[], metavar="PATH",
                   help="a file or folder the programs read, copied into each run's private working folder")
    p.add_argument("--check", default=None, metavar="WHAT",
                   help="how answers are compared with the default's: stdout, checksum, regex:PATTERN, file:NAME or "
                        "none (default: the checksum line where a program prints one, else the whole stdout)")
    p.add_argument("--rtol", type=float, default=1e-6, help="relative tolerance for numbers in --check")
    p.add_argument("--together", action="store_true",
                   help="the --programs files are the files of ONE program: each compiled, all linked into one "
                        "binary (default: each file is a program of its own; in a manifest, a list as \"source\")")
    p.add_argument("--include", action="append", default=[], metavar="DIR",
                   help="a folder of the programs' headers, passed to clang as -I (repeatable)")
    p.set_defaults(program_args=[])


def add_vectorize_arguments(p: argparse.ArgumentParser) -> None:
    """The options of the VF/IF sweep (shared with jobs/collect_vectorize.py)."""
    _add_common(p, programs_help="C loop kernels with a MIRTUNE_LOOP_PRAGMA marker, or directories holding them "
                                 "(collectors/programs/vectorize/kernels)",
                space_help="restrict the space: vf=1,2,4,8,16,32,64 if=1,2,4,8,16", timeout=60.0)
    p.add_argument("--opt", type=int, default=2, choices=(1, 2, 3), help="optimisation level (default 2)")
    p.add_argument("--build-only", action="store_true",
                   help="build every binary the points need into the build cache and time nothing (builds may run "
                        "beside other work; a later run then starts timing at once)")


def add_lscat_arguments(p: argparse.ArgumentParser, programs_flags: tuple[str, ...] = ("--programs",)) -> None:
    """The options of the CUDA block-size sweep (shared with jobs/collect_lscat.py, which also says --lscat-dir)."""
    _add_common(p, programs_help="CUDA kernels in the LS-CAT layout: a directory per kernel holding main.cu, "
                                 "a folder of such directories (collectors/programs/cuda) or an LS-CAT checkout; "
                                 "a main.cu in LS-CAT's harness form is run once per kernel, --timeout for the run",
                space_help="restrict the space: matrix=240,496,... block=8x8,1x64,... (BLOCKXxBLOCKY)",
                timeout=120.0, warmup=0, programs_flags=programs_flags)
    p.add_argument("--arch", default=None, metavar="ARCH",
                   help="nvcc -arch value, e.g. sm_90 or native (default: nvcc's own, which JIT-compiles "
                        "its PTX on newer GPUs)")
    p.add_argument("--nvcc-flag", action="append", default=None, metavar="FLAG",
                   help="an extra nvcc flag (repeatable)")


def _check_limit(args: argparse.Namespace) -> None:
    if args.limit is not None and args.limit < 0:
        raise UsageError("--limit must be >= 0")


def _check_out(args: argparse.Namespace) -> None:
    """--out must be a folder that can be created or written, checked before any program is built."""
    from mirtune.paths import check_output

    check_output(args.out, "dir", "--out")


def _finish(summary) -> int:
    for line in summary.lines():
        print(line)
    return 1 if summary.errors else 0


def run_openmp(args: argparse.Namespace) -> int:
    """Run the OpenMP sweep from parsed arguments; print the summary; 0 unless some point hit an error."""
    from collectors.openmp import collect_openmp

    _check_limit(args)
    _check_out(args)
    from mirtune.measure.check import OutputCheck

    check = OutputCheck.parse(args.check, args.rtol) if args.check else None
    if args.manifest:
        from collectors.openmp import collect_manifest

        if args.input or args.program_args:
            raise UsageError("--manifest names each program's arguments and inputs; drop --input and -- ARGS")
        if args.together or args.include:
            raise UsageError("--manifest names each program's files (\"source\": a list) and header folders "
                             "(\"include\"); drop --together and --include")
        summary = collect_manifest(args.manifest, args.out, space=args.space, repeats=args.repeats,
                                   warmup=args.warmup, timeout=args.timeout, address=args.address,
                                   cache_dir=args.build_dir, max_points=args.limit, progress=not args.no_progress,
                                   check=check)
        return _finish(summary)
    summary = collect_openmp(args.programs, args.out, space=args.space, sizes=args.sizes, repeats=args.repeats,
                             warmup=args.warmup, timeout=args.timeout, address=args.address,
                             cache_dir=args.build_dir, max_points=args.limit, progress=not args.no_progress,
                             args=tuple(args.program_args), inputs=tuple(args.input), check=check,
                             together=args.together, include_dirs=tuple(args.include))
    return _finish(summary)


def run_vectorize(args: argparse.Namespace) -> int:
    """Run the VF/IF sweep from parsed arguments; print the summary; 0 unless some point hit an error."""
    from collectors.vectorize import collect_vectorize

    _check_limit(args)
    _check_out(args)
    summary = collect_vectorize(args.programs, args.out, space=args.space, repeats=args.repeats,
                                warmup=args.warmup, timeout=args.timeout, opt=args.opt, address=args.address,
                                cache_dir=args.build_dir, max_points=args.limit, progress=not args.no_progress,
                                build_only=args.build_only)
    return _finish(summary)


def run_lscat(args: argparse.Namespace) -> int:
    """Run the CUDA block-size sweep (or, with no GPU, only build); print the summary."""
    from collectors.lscat import collect_lscat

    _check_limit(args)
    _check_out(args)
    summary = collect_lscat(args.programs, args.out, space=args.space, repeats=args.repeats, warmup=args.warmup,
                            timeout=args.timeout, arch=args.arch, nvcc_flags=args.nvcc_flag,
                            address=args.address, cache_dir=args.build_dir, max_points=args.limit,
                            progress=not args.no_progress)
    return _finish(summary)


def run_summary(args: argparse.Namespace) -> int:
    """Print what a dataset folder holds: points by status, noise, and per-sweep figures."""
    from collectors.summarize import summarize

    for i, d in enumerate(args.dirs):
        if not Path(d).is_dir():
            raise UsageError("not a directory", d)
        try:
            lines = summarize(d, as_json=args.json, since=args.since, until=args.until)
        except ValueError as exc:
            raise UsageError(f"bad --since/--until time: {exc}") from None
        if i and not args.json:
            print()
        for line in lines:
            print(line)
    return 0


def run_compact(args: argparse.Namespace) -> int:
    """Rewrite each folder's part files as one file (one row per point)."""
    from pathlib import Path

    from mirtune.measure.records import compact

    for d in args.dirs:
        if not Path(d).is_dir():
            raise UsageError("not a directory", d)
        files, rows = compact(d)
        print(f"{d}: {files} part file(s) -> 1, {rows} row(s)" if files > 1 else f"{d}: nothing to compact")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `collect` and its sweeps."""
    p = subparsers.add_parser("collect", help="measure configurations of programs into a Parquet dataset",
                              description=__doc__.strip().splitlines()[0])
    sub = p.add_subparsers(dest="sweep", metavar="SWEEP")
    omp = sub.add_parser("openmp", help="OpenMP threads/schedule/chunk (and power limit where settable)",
                         description="The MIREncoder Table 4 OpenMP space over programs and two input sizes.")
    add_openmp_arguments(omp)
    omp.set_defaults(func=run_openmp)
    vec = sub.add_parser("vectorize", help="loop vectorization factor x interleave count (VF x IF)",
                         description="VF 1..64 x IF 1..16 on the marked innermost loop of each kernel, plus "
                                     "LLVM's own choice as the baseline.")
    add_vectorize_arguments(vec)
    vec.set_defaults(func=run_vectorize)
    cu = sub.add_parser("lscat", help="CUDA thread-block sizes (LS-CAT layout; timed on GPU nodes only)",
                        description="Table 5 matrix sizes x block sizes for CUDA kernels built with nvcc; "
                                    "timed only where the cluster has GPUs, otherwise only built.")
    add_lscat_arguments(cu)
    cu.set_defaults(func=run_lscat)
    sm = sub.add_parser("summary", help="counts by status and measurement noise of dataset folders",
                        description="Points by status, median coefficient of variation, and per-sweep figures.")
    sm.add_argument("dirs", nargs="+", metavar="DIR", help="folders of Parquet part files")
    sm.add_argument("--json", action="store_true", help="print one JSON object per folder")
    sm.add_argument("--since", metavar="TIME", help="only points measured at or after TIME (ISO 8601, UTC default)")
    sm.add_argument("--until", metavar="TIME", help="only points measured before TIME")
    sm.set_defaults(func=run_summary)
    cp = sub.add_parser("compact", help="rewrite a dataset folder's part files as one file",
                        description="Rewrite the Parquet part files of each folder as one (one row per point id); "
                                    "refuses while a sweep writes there.")
    cp.add_argument("dirs", nargs="+", metavar="DIR", help="folders of Parquet part files")
    cp.set_defaults(func=run_compact)
    p.set_defaults(func=lambda args: _no_sweep(p))


def _no_sweep(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2
