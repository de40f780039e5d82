"""`mirtune fit --task openmp|vectorize --data DIR... -o DIR`: fit a task predictor on collector measurements.

    mirtune fit --task openmp --data datasets/openmp -o heads/openmp
    mirtune recommend app.c --task openmp --heads heads/openmp

The programs are compiled and embedded with the frozen encoder; the head (ridge regression or nearest
neighbours of every configuration's log speedup over the default) and its strength are chosen by inner
cross-validation over applications with Ray Tune, then fitted on everything. Saved without pickle:
predictor.json and head.safetensors, with the encoder's fingerprint.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from mirtune.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fit", help="fit a task predictor on collected measurements",
                       description=__doc__.strip().splitlines()[0])
    p.add_argument("--task", required=True, metavar="TASK", help="openmp or vectorize")
    p.add_argument("--data", nargs="+", required=True, metavar="DIR", help="collector output (Parquet) folders")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="where to write the predictor")
    p.add_argument("--programs", nargs="*", default=[], metavar="DIR",
                   help="folders holding the measured programs' sources, when the rows' recorded paths are gone")
    p.add_argument("--heads", default="gain,knn", metavar="H,H", help="head kinds to choose from (default gain,knn)")
    p.add_argument("--configs", type=int, default=None, metavar="N", help="candidate configurations per head kind")
    p.add_argument("--model", metavar="DIR", help="encoder directory (default: $MIRTUNE_MODEL or the shipped one)")
    p.add_argument("--address", default=None, metavar="ADDR", help="Ray cluster to join (default: a private one)")
    p.add_argument("--no-ray", action="store_true", help="run the head search in this process")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mirtune.predict.predictor import FIT_HEADS, fit_predictor, program_matrix, task_module
    from mirtune.progress import note
    from mirtune.tasks.embedders import get_embedder
    from mirtune.tasks.measured import load_gain_table

    mod = task_module(args.task)
    heads = [h.strip() for h in args.heads.split(",") if h.strip()]
    bad = [h for h in heads if h not in FIT_HEADS]
    if not heads or bad:
        raise UsageError(f"--heads takes {', '.join(FIT_HEADS)}; got {args.heads!r}")
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise UsageError("output exists and is not a folder", str(out))
    if args.configs is not None and args.configs < 1:
        raise UsageError("--configs must be >= 1")
    t0 = time.monotonic()
    table = load_gain_table(args.data, mod.SPEC, args.programs)
    note(f"fit {args.task}: {len(table)} groups of {len(set(table.apps))} applications x {len(table.labels)} "
         f"configurations" + (f"; {len(table.dropped)} groups left out" if table.dropped else ""))
    embedder = get_embedder("mirencoder", model_dir=args.model)
    X = program_matrix(table.sources, args.task, embedder, note=note)
    use_ray = not args.no_ray
    started = False
    if use_ray:
        import ray

        from mirtune.cluster import init_ray

        started = not ray.is_initialized()
        init_ray(args.address)
    try:
        predictor = fit_predictor(args.task, table, X, embedder, heads=heads, use_ray=use_ray,
                                  n_configs=args.configs, note=note, data_paths=args.data)
    finally:
        if started:
            from mirtune.cluster import shutdown_ray

            shutdown_ray()
    predictor.save(out)
    t = predictor.trained_on
    print(f"wrote {out}: {args.task} predictor, head {predictor.head_config}, inner-CV share of the oracle "
          f"{t['inner_score']:.3f} ({t['groups']} groups, {t['applications']} applications, "
          f"{time.monotonic() - t0:.0f} s)")
    return 0
