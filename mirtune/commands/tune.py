"""`mirtune tune SOURCE... --task openmp|vectorize --budget N [-- ARGS...]`: spend N real runs to find a faster
configuration, starting from the predictor's best guesses.

    mirtune tune kmeans.c --task openmp --budget 12 -- points.txt 2 24 3 100
    mirtune tune app.c --task openmp --budget 20 --input data/ --check 'regex:^result: (\\S+)' -- data/in.txt
    mirtune tune saxpy.c --task vectorize --line 42 --budget 10
    mirtune tune main.c solver.c util.c --include include/ --task openmp --budget 8 -- 100000

Several SOURCEs are the files of one program: each is compiled (the schedule(runtime) rewrite applied to every
file) and all are linked into one binary; the predictor reads their IR linked into one module. --include DIR adds
a header folder (clang's -I, repeatable). Task vectorize tunes a loop of the first SOURCE.

The default configuration runs first (its output is the reference every configuration must reproduce), then the
predictor's top-K, then Optuna through Ray Tune. Each configuration is timed against the default in interleaved
rounds. Every measurement goes to --out (Parquet, the collectors' schema); the same command again resumes there.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from mirtune.errors import UsageError
from mirtune.tables import format_table
from mirtune.tasks import registry


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tune", help="tune a program with real runs, seeded by the predictor (Ray Tune + Optuna)",
                       description=" ".join(__doc__.strip().split("\n\n")[0].split()),
                       usage="mirtune tune SOURCE [SOURCE...] --task TASK [--budget N] [options] [-- ARGS...]",
                       epilog="ARGS after `--` are the program's own arguments; a file they name is copied into "
                              "its private working folder (see --input).")
    p.add_argument("sources", nargs="+", metavar="SOURCE",
                   help="the program's C/C++ source; several: the files of one program, compiled and linked together")
    p.add_argument("--include", action="append", default=[], metavar="DIR",
                   help="a folder of the program's headers, passed to clang as -I (repeatable)")
    p.add_argument("--task", required=True, metavar="TASK", help=registry.listing(tunes=True))
    p.add_argument("--budget", type=int, default=12, metavar="N",
                   help="configurations to measure, the default included (default 12)")
    p.add_argument("--parallel", type=int, default=1, metavar="P",
                   help="trials at once, each on its own node (default 1: one timed run at a time)")
    p.add_argument("--out", metavar="DIR", help="where measurements go (default tune-out/<program>); rerun to resume")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.add_argument("--input", action="append", default=[], metavar="PATH",
                   help="a file or folder the program reads, copied into its private working folder under its "
                        "own name (repeatable)")
    p.add_argument("--cflags", default="", metavar="FLAGS", help="extra compiler flags, e.g. '-O3 -lm'")
    p.add_argument("--check", default="stdout", metavar="WHAT",
                   help="how answers are compared with the default's: stdout (default), checksum, regex:PATTERN, "
                        "file:NAME or none")
    p.add_argument("--rtol", type=float, default=1e-6, help="relative tolerance for numbers in the check")
    p.add_argument("--timeout", type=float, default=300.0, metavar="S", help="seconds per run before it is killed")
    p.add_argument("--repeats", type=int, default=3, metavar="R", help="timed rounds per configuration (default 3)")
    p.add_argument("--warmup", type=int, default=1, metavar="W", help="untimed rounds first (default 1)")
    p.add_argument("--top-k", type=int, default=3, metavar="K", help="predictor suggestions run first (default 3)")
    p.add_argument("--confirm", type=int, default=3, metavar="R",
                   help="more interleaved rounds that re-measure the best found before it is recommended (default 3)")
    p.add_argument("--space", action="append", metavar="KEY=V1,V2",
                   help=registry.listing("narrow a dimension, e.g. chunk=1,8,64 ({each})",
                                         each="{task.name}: {task.tune_keys}", tunes=True))
    p.add_argument("--line", type=int, metavar="N",
                   help=registry.listing("{tasks}: the line where the loop to tune starts (in the first SOURCE)",
                                         tunes=True, takes_line=True))
    p.add_argument("--seed", type=int, default=0, help="the searcher's random seed")
    p.add_argument("--heads", metavar="DIR", help="predictor folder (default: the shipped one)")
    p.add_argument("--address", metavar="ADDR", help="Ray cluster to join (default $RAY_ADDRESS, else a private one)")
    p.set_defaults(func=run, program_args=[])


def print_result(res) -> None:
    """The text form of a tuning's answer (recommend's layout, with measured figures)."""
    head = "keep the default" if res.best is None else res.label
    confirmed = f", confirmed over {res.confirm_rounds} more rounds" if res.confirm_rounds else ""
    print(f"{res.input}: {res.task}: {head} (measured {res.speedup:.2f}x over the default{confirmed}; "
          f"{res.runs_now} configuration(s) measured now, {res.runs_before} before, budget {res.budget})")
    for line in res.apply:
        print(f"  {line}")
    names = [k for k in (res.measured[0] if res.measured else {}) if k not in ("label", "speedup", "median_s",
                                                                              "status", "reason")]
    rows = [[str(i + 1), *(str(m[k]) for k in names), f"{m['speedup']:.3f}x" if m["status"] == "ok" else m["status"],
             "yes" if {k: m[k] for k in names} in res.seeds else ""] for i, m in enumerate(res.measured[:10])]
    if rows:
        print(format_table(["rank", *names, "speedup in the search", "predictor"], rows, rule=False, indent="  "))
    for n in res.notes:
        print(f"  note: {n}")
    if res.interrupted:
        print(f"  note: stopped before the budget was spent; the same command resumes from {res.out_dir}")
    print(f"  measurements: {res.out_dir}")


def run(args: argparse.Namespace) -> int:
    from mirtune.measure.check import OutputCheck
    from mirtune.measure.program import Program
    from mirtune.predict.tune import tune_program

    task = registry.get(args.task, tunes=True)
    if args.line is not None and not task.takes_line:
        raise UsageError(f"--line applies to --task {' or '.join(registry.names(tunes=True, takes_line=True))}")
    try:
        cflags = tuple(shlex.split(args.cflags))
    except ValueError as exc:
        raise UsageError(f"--cflags: {exc}") from None
    sources = [Path(s) for s in args.sources]
    program = Program(sources[0], tuple(args.program_args), tuple(args.input), cflags,
                      OutputCheck.parse(args.check, args.rtol), args.timeout, args.line, tuple(sources[1:]),
                      tuple(Path(d) for d in args.include))
    res = tune_program(program, args.task, args.budget, parallel=args.parallel, out_dir=args.out, top_k=args.top_k,
                       seed=args.seed, space=args.space, repeats=args.repeats, warmup=args.warmup,
                       heads=args.heads, address=args.address, confirm=args.confirm)
    if args.json:
        json.dump(res.to_dict(), sys.stdout, indent=1, default=str)
        sys.stdout.write("\n")
    else:
        print_result(res)
    return 130 if res.interrupted else 0
