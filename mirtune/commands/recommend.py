"""`mirtune recommend INPUT... --task TASK [--top K] [--json]`: the configuration to use, without running the
program.

    mirtune recommend app.c --task openmp          # compiled with -fopenmp first
    mirtune recommend kernels/ --task vectorize --json
    mirtune recommend kernel.cl --task devmap --platform nvidia --transfer-bytes 1048576 --wgsize 256
    mirtune recommend kernel.cl --task coarsening --platform Kepler
    mirtune recommend kernels/sigmoid --task cuda_blocks --matrix 1016 --heads heads/cuda_blocks

For each program: the best configuration with the predicted speedup over the default, how to apply it
(environment variables, the `mirtune apply` command, the loop pragma), and the top-K ranking. Inputs that cannot
be read, compiled or recommended for get one line each on stderr (exit 2) while the others are answered.
"""

from __future__ import annotations

import argparse
import json
import sys

from mirtune.errors import UsageError
from mirtune.tables import format_table


def register(sub: argparse._SubParsersAction) -> None:
    from mirtune.predict.recommend import TASKS

    p = sub.add_parser("recommend", help="recommend a configuration for a program without running it",
                       description=__doc__.strip().splitlines()[0])
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="sources (compiled first), .ll/.bc files or folders")
    p.add_argument("--task", required=True, metavar="TASK", help=" | ".join(TASKS))
    p.add_argument("--top", type=int, default=5, metavar="K", help="configurations in the ranking (default 5)")
    p.add_argument("--json", action="store_true", help="print one JSON object per input (a list for several)")
    p.add_argument("--heads", metavar="DIR", help="predictor folder, or a folder of them by task (default: "
                                                  "$MIRTUNE_HEADS or the shipped mirtune/assets/heads)")
    p.add_argument("--model", metavar="DIR", help="encoder directory (default: $MIRTUNE_MODEL or the shipped one)")
    p.add_argument("--platform", metavar="P", help="devmap: amd|nvidia; coarsening: Cypress|Tahiti|Fermi|Kepler")
    p.add_argument("--transfer-bytes", type=float, metavar="N", help="devmap: bytes moved to and from the device")
    p.add_argument("--wgsize", type=float, metavar="N", help="devmap: the kernel's work-group size")
    p.add_argument("--matrix", type=float, metavar="N", help="cuda_blocks: the launch's matrix size (XSIZE = YSIZE)")
    p.set_defaults(func=run)


def print_recommendation(rec) -> None:
    """The text form of one recommendation (what `mirtune recommend` prints)."""
    head = "keep the default" if rec.is_default else rec.label
    print(f"{rec.input}: {rec.task}: {head} (predicted {rec.predicted_speedup:.2f}x over the default)")
    for line in rec.apply:
        print(f"  {line}")
    names = [k for k in rec.top[0] if k not in ("rank", "label", "predicted_speedup")
             and any(r[k] is not None for r in rec.top)]
    rows = [[str(r["rank"]), *("-" if r[k] is None else str(r[k]) for k in names), f"{r['predicted_speedup']:.3f}x"]
            for r in rec.top]
    print(format_table(["rank", *names, "predicted speedup"], rows, rule=False, indent="  "))
    for n in rec.notes:
        print(f"  note: {n}")


def run(args: argparse.Namespace) -> int:
    from mirtune.progress import note
    from mirtune.predict.recommend import TASKS, recommend_many

    if args.task not in TASKS:
        raise UsageError(f"unknown task {args.task!r}; choose from {', '.join(TASKS)}")
    if args.top < 1:
        raise UsageError("--top must be >= 1")
    answers, failed = [], 0
    context = {"transfer_bytes": args.transfer_bytes, "wgsize": args.wgsize, "matrix": args.matrix}
    for _, rec, reason in recommend_many(args.inputs, args.task, args.top, args.heads, args.model, args.platform,
                                         context):
        if rec is None:
            note(f"mirtune recommend: {reason}")
            failed += 1
            continue
        if args.json:
            answers.append(rec.to_dict())
        else:
            print_recommendation(rec)
            sys.stdout.flush()
    if args.json and answers:
        json.dump(answers[0] if len(answers) == 1 else answers, sys.stdout, indent=1)
        sys.stdout.write("\n")
    return 2 if failed else 0
