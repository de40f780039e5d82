"""`mirtune fit --task TASK -o DIR`: fit a task predictor on collector measurements or on the published data.

    mirtune fit --task openmp --data datasets/openmp -o heads/openmp
    mirtune recommend app.c --task openmp --heads heads/openmp
    mirtune fit --task devmap -o heads/devmap            # one predictor per platform: heads/devmap/amd, /nvidia
    mirtune fit --task coarsening --platform Kepler -o heads/coarsening
    mirtune fit --task cuda_blocks --data data/lscat -o heads/cuda_blocks   # from `mirtune collect lscat` on GPUs

The programs are compiled and embedded with the frozen encoder; the head (ridge regression or nearest
neighbours of every configuration's log speedup over the default) and its strength are chosen by inner
cross-validation over applications with Ray Tune, then fitted on everything. Saved without pickle:
predictor.json and head.safetensors, with the encoder's fingerprint.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from typing import Any

from mirtune.errors import UsageError
from mirtune.tasks import registry


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fit", help="fit a task predictor on collected measurements",
                       description=__doc__.strip().splitlines()[0])
    measured, published = registry.names(kind=registry.MEASURED), registry.names(kind=registry.PUBLISHED)
    p.add_argument("--task", required=True, metavar="TASK",
                   help=f"{', '.join(measured)} (collector data), {', '.join(published)} (the published data)")
    p.add_argument("--data", nargs="+", default=None, metavar="DIR",
                   help=f"{'/'.join(measured)}: collector output (Parquet) folders")
    p.add_argument("--data-dir", default=None, metavar="DIR",
                   help=f"{'/'.join(published)}: the folder holding the published data "
                        "(default: $MIRTUNE_DATA, ../shared/data)")
    p.add_argument("--platform", default=None, metavar="P",
                   help=f"{'/'.join(published)}: fit for this platform only (default: every platform)")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="where to write the predictor")
    p.add_argument("--programs", nargs="*", default=[], metavar="DIR",
                   help="folders holding the measured programs' sources, when the rows' recorded paths are gone")
    p.add_argument("--heads", default="gain,knn", metavar="H,H", help="head kinds to choose from: gain, knn, forest (default gain,knn)")
    p.add_argument("--configs", type=int, default=None, metavar="N", help="candidate configurations per head kind")
    p.add_argument("--rule", default="best", choices=("best", "one-se"),
                   help="how the inner cross-validation picks the head: the best score (default), or one-se, the "
                        "linear gain head unless another kind beats it by more than one standard error")
    p.add_argument("--risk", type=float, default=0.0, metavar="R",
                   help="gain heads: each configuration's predicted log gain less R times its downside (the "
                        "semi-deviation of its training residuals) when the head decides, so that a configuration "
                        "that costs as often as it pays is chosen only on strong evidence (default 0; "
                        "docs/profile.md)")
    p.add_argument("--embedding", default=None, choices=("mirencoder", "none"),
                   help=registry.listing("the program features besides the task's context: the frozen MIREncoder "
                                         "embedding, or none, the context features alone (default: none for "
                                         "{tasks_or}, where the embedding added nothing held out, docs/recommend.md; "
                                         "mirencoder for the other tasks)", default_embedding="none"))
    p.add_argument("--model", metavar="DIR", help="encoder directory (default: $MIRTUNE_MODEL or the shipped one)")
    p.add_argument("--profiles", default=None, metavar="PARQUET",
                   help=registry.listing("{tasks_or}: the datasets' profile table "
                                         "(scripts/profile_openmp_datasets.py); the predictor then reads one "
                                         "profiled run beside the IR, and answers `recommend --profile`",
                                         profiles=True))
    p.add_argument("--address", default=None, metavar="ADDR", help="Ray cluster to join (default: a private one)")
    p.add_argument("--no-ray", action="store_true", help="run the head search in this process")
    p.add_argument("--evaluate", action="store_true",
                   help=f"{'/'.join(measured)}: also run the leave-one-application-out evaluation and record its "
                        "figures in the predictor, so that `recommend` can say whether it beats the code-free "
                        "baselines")
    p.set_defaults(func=run)


def _published_tables(args: argparse.Namespace, task, embedder) -> list[tuple[str, object, object]]:
    """(platform, gain table, features) for each platform asked for, from the published data."""
    from mirtune.paths import data_dir
    from mirtune.predict.predictor import table_matrix

    platforms = list(task.platforms)
    if args.platform is not None:
        if args.platform not in platforms:
            raise UsageError(f"unknown {args.task} platform {args.platform!r}; choose from {', '.join(platforms)}")
        platforms = [args.platform]
    root = data_dir(args.data_dir)
    out = []
    for p in platforms:
        table = task.gain_table([root], (), p)
        out.append((p, table, table_matrix(table, args.task, embedder)))
    return out


def held_out(args: argparse.Namespace, embedder, heads: list[str], use_ray: bool, note) -> dict:
    """Leave-one-application-out figures of this kind of predictor on the same data, beside the baselines."""
    from mirtune.predict.held_out import run as leave_one_application_out

    result = leave_one_application_out(args.task, args.data, [embedder], heads=heads, program_dirs=args.programs,
                                       use_ray=use_ray, n_configs=args.configs, note=note)
    m = result["methods"]
    summary = {name: {k: m[name][k] for k in ("share_of_oracle", "speedup_over_default", "slowdowns")}
               for name in ("default", "best fixed", embedder.name)}
    note(f"fit {args.task}: held out, share of the oracle: predictor {m[embedder.name]['share_of_oracle']:.3f}, "
         f"default {m['default']['share_of_oracle']:.3f}, best fixed {m['best fixed']['share_of_oracle']:.3f}")
    return {"protocol": result["protocol"], "applications": result["applications"],
            "predictor": summary.pop(embedder.name), **summary}


def read_profiles(path: str) -> Any:
    """The datasets' profile table at `path` (scripts/profile_openmp_datasets.py's rows); one UsageError line when
    it is missing or is not one."""
    import pandas as pd

    from mirtune.profile.features import PROFILE_SOURCE_COLUMNS

    if not Path(path).is_file():
        raise UsageError("--profiles: no such file", path)
    try:
        profiles = pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise UsageError(f"--profiles: not a profile table ({type(exc).__name__}: {exc})", path) from None
    missing = [c for c in ("program", "status", *PROFILE_SOURCE_COLUMNS) if c not in profiles.columns]
    if missing:
        raise UsageError(f"--profiles: not a profile table (no column {missing[0]!r})", path)
    return profiles


def with_profiles(table, profiles: Any, path: str, note) -> tuple[Any, Any]:
    """The groups of `table` that have a profile in `profiles`, and their profile columns; the others are left
    out (noted)."""
    import numpy as np

    from mirtune.predict.predictor import profile_columns

    P, have = profile_columns(table, profiles)
    keep = np.flatnonzero(have)
    if not len(keep):
        raise UsageError("--profiles: no group of the data has a profile there", path)
    note(f"fit: {len(keep)} of {len(table)} groups have a profile; the other {len(table) - len(keep)} are left out")
    return table.subset(keep, "no profile"), P[keep]


def run(args: argparse.Namespace) -> int:
    from mirtune.predict.predictor import FIT_HEADS, check_embedding, fit_predictor, table_matrix
    from mirtune.progress import note
    from mirtune.tasks.embedders import get_embedder

    task = registry.get(args.task)
    published = task.kind == registry.PUBLISHED
    if published and (args.data or args.programs):
        raise UsageError(f"{args.task} is fitted on the published data (--data-dir), not on --data/--programs")
    if not published and (args.data_dir or args.platform):
        raise UsageError(f"--data-dir and --platform apply to {' and '.join(registry.names(kind=registry.PUBLISHED))}; "
                         f"{args.task} takes --data")
    if not published and not args.data:
        raise UsageError(f"--task {args.task} needs --data DIR (collector output)")
    if args.profiles and not task.profiles:
        raise UsageError(f"--profiles applies to --task {' or '.join(registry.names(profiles=True))}, not {args.task}")
    if args.profiles and args.evaluate:
        raise UsageError("--evaluate runs the leave-one-application-out study without profiles; for one with them, "
                         "run benchmarks/openmp_profile_eval.py")
    if not (math.isfinite(args.risk) and args.risk >= 0):
        raise UsageError(f"--risk takes a number of at least 0; got {args.risk}")
    profiles = read_profiles(args.profiles) if args.profiles else None
    heads = [h.strip() for h in args.heads.split(",") if h.strip()]
    bad = [h for h in heads if h not in FIT_HEADS]
    if not heads or bad:
        raise UsageError(f"--heads takes {', '.join(FIT_HEADS)}; got {args.heads!r}")
    from mirtune.paths import check_output

    out = check_output(args.output, "dir")
    if args.configs is not None and args.configs < 1:
        raise UsageError("--configs must be >= 1")
    t0 = time.monotonic()
    args.embedding = args.embedding or task.default_embedding
    check_embedding(args.task, args.embedding)
    embedder = get_embedder(args.embedding, model_dir=args.model)
    profile_columns: tuple[str, ...] = ()
    if published:
        jobs = [(out / p, table, X) for p, table, X in _published_tables(args, task, embedder)]
    else:
        table = task.gain_table(args.data, args.programs)
        note(f"fit {args.task}: {len(table)} groups of {len(set(table.apps))} applications x {len(table.labels)} "
             f"configurations" + (f"; {len(table.dropped)} groups left out" if table.dropped else ""))
        if args.profiles:
            import numpy as np

            from mirtune.profile.features import FITTED_COLUMNS

            table, P = with_profiles(table, profiles, args.profiles, note)
            profile_columns = FITTED_COLUMNS
            jobs = [(out, table, np.hstack([table_matrix(table, args.task, embedder, note=note), P]))]
        else:
            jobs = [(out, table, table_matrix(table, args.task, embedder, note=note))]
    from mirtune.cluster import ray_session

    with ray_session(args.address, enabled=not args.no_ray) as use_ray:
        for folder, table, X in jobs:
            predictor = fit_predictor(args.task, table, X, embedder, heads=heads, use_ray=use_ray,
                                      n_configs=args.configs, note=note,
                                      data_paths=args.data or [str(args.data_dir or "published data")],
                                      profile_columns=profile_columns, rule=args.rule, risk=args.risk)
            if profile_columns:
                predictor.trained_on["profiles"] = str(args.profiles)
            if args.evaluate and not published:
                predictor.trained_on["held_out"] = held_out(args, embedder, heads, use_ray, note)
            predictor.save(folder)
            t = predictor.trained_on
            print(f"wrote {folder}: {args.task} predictor, head {predictor.head_config}, inner-CV share of the "
                  f"oracle {t['inner_score']:.3f}{' before its risk' if args.risk else ''} "
                  f"(rule {t['selection_rule']}; {t['groups']} groups, "
                  f"{t['applications']} applications, "
                  f"{time.monotonic() - t0:.0f} s)")
    return 0
