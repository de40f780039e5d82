"""Does one profiled run help the OpenMP predictor? Leave-one-application-out on the OpenMP task's training data,
the same heads with and without the profile features of `mirtune recommend --profile` (issue 34, part 4).

    .venv/bin/python benchmarks/openmp_profile_eval.py [--profiles datasets/openmp-profile/profile.parquet]
        [--extra openmp-fewer-epyc] [--json benchmarks/results/openmp_profile_eval.json]

Methods, all in one run on the same folds: the default, the best fixed configuration (per fold), the heads (gain
and kNN, chosen by inner cross-validation over the training applications, as `mirtune evaluate openmp`) on the
static context features alone (what ships), on the context ++ the profile features, on the profile features
alone, on the context ++ the profile ++ the IR's shared updates, on those ++ the thread probe, on all of those ++ the
schedule probe (what `mirtune fit --profiles` fits: FITTED_COLUMNS; the probes from each group's untimed runs,
`features.probe_column`, whose measured gains also start the predicted gains of their configurations:
`features.probe_offsets`), and the oracle. Reported: the geometric-mean share of the oracle over all groups and by
kind of program, where each method's loss lies (threads chosen against the oracle's), and the groups where one
thread is at least 1.25x faster than the default, with what each method gives there.
A group whose profile is missing (not collected, or failed) is left out of every method alike, and counted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from encoder_trial import chosen_by_method  # noqa: E402
from openmp_by_kind import kind_of  # noqa: E402

from mirtune.paths import write_result  # noqa: E402
from mirtune.errors import MirtuneError  # noqa: E402
from mirtune.tasks.measured import geomean, share_of_oracle  # noqa: E402

ONE_THREAD_WINS = 1.25


def fixed_head(table, problems: list, outer: list, config: dict) -> dict[str, np.ndarray]:
    """As `chosen_by_method`, with one head configuration refitted on each fold's training applications instead
    of one chosen by inner cross-validation per fold (cheap; the configuration itself was chosen on all the data,
    so the figure is a little optimistic)."""
    from mirtune.predict.select import evaluate_outer
    from mirtune.tasks.measured import best_fixed_per_group

    chosen = {(p.name, k): dict(config) for p in problems for k in range(len(outer))}
    preds = evaluate_outer(problems, chosen, [0], use_ray=False)
    methods = {"default": np.zeros(len(table), dtype=int), "best fixed": best_fixed_per_group(table.speedups, outer)}
    methods.update({p.name: preds[p.name][0] for p in problems})
    methods["oracle"] = table.labels_best()
    return methods


def loss_by_threads(shares: np.ndarray, chosen: np.ndarray, oracle: np.ndarray, threads: np.ndarray) -> dict:
    """Where a method's distance to the oracle lies: the share of its total log loss in the groups of each (threads
    it chose, threads of the oracle) pair, "2<-2" for two threads chosen where the oracle runs two (the default,
    which sets no thread count, counts as all cores), with the number of groups of each."""
    most = max(t for t in threads if t is not None)
    n = np.array([most if t is None else t for t in threads])
    loss = np.log(np.asarray(shares, dtype=np.float64))
    total = loss.sum()
    out = {}
    for a, b in sorted({(n[c], n[o]) for c, o in zip(chosen, oracle)}):
        rows = (n[chosen] == a) & (n[oracle] == b)
        out[f"{a}<-{b}"] = {"groups": int(rows.sum()), "share_of_loss": round(float(loss[rows].sum() / total), 3)
                            if total < 0 else 0.0}
    return out


def evaluate(profiles_path: Path, n_configs: int, n_inner: int, extra: list[str] = (),
             heads: tuple[str, ...] = ("gain", "knn"), head_config: dict | None = None, rule: str = "best") -> dict:
    import pandas as pd

    from mirtune.predict.held_out import held_out_problem
    from mirtune.predict.predictor import gain_problem, profile_columns, table_matrix
    from mirtune.profile.features import (FITTED_COLUMNS, IR_COLUMNS, PROFILE_COLUMNS, SCHEDULE_PROBE, THREAD_PROBE,
                                          probe_config, probe_offsets, probe_positions)
    from mirtune.tasks.embedders import get_embedder
    from mirtune.tasks.measured import leave_one_app_out
    from mirtune.tasks.openmp import DATASETS

    _, table, _, _ = held_out_problem("openmp", [str(REPO / "datasets" / d) for d in (*DATASETS, *extra)])
    P, have = profile_columns(table, pd.read_parquet(profiles_path))
    keep = np.flatnonzero(have)
    C = table_matrix(table, "openmp", get_embedder("none"), note=lambda m: None)[keep]
    P = P[keep]
    apps = [table.apps[i] for i in keep]
    folds = leave_one_app_out(apps)
    outer = [(tr, te) for tr, te, _ in folds]
    sub = table.subset(keep)
    problems = []
    run = P[:, :len(PROFILE_COLUMNS)]  # the profiled run's columns; then the IR's (IR_COLUMNS) and the probe's
    no_probe = P[:, :len(PROFILE_COLUMNS) + len(IR_COLUMNS)]
    thread_probe = P[:, :FITTED_COLUMNS.index(THREAD_PROBE.column) + 1]
    # what the probes measured starts the gains of their configurations
    offsets = [probe_offsets(sub.configs, X, probe_positions(names, X.shape[1])) for X, names in (
        (thread_probe, FITTED_COLUMNS[:thread_probe.shape[1]]), (P, FITTED_COLUMNS))]
    for name, X, off in (("context", C, None), ("context + profile", np.hstack([C, run]), None),
                         ("profile", run, None), ("context + profile + shared updates", np.hstack([C, no_probe]), None),
                         ("context + profile + shared updates + thread probe", np.hstack([C, thread_probe]), offsets[0]),
                         ("context + profile + shared updates + both probes", np.hstack([C, P]), offsets[1])):
        problems.append(gain_problem(name, sub, X, outer, X.shape[1], off))  # no embedding: all columns are context
    methods = fixed_head(sub, problems, outer, head_config) if head_config else \
        chosen_by_method(sub, problems, outer, n_configs, n_inner, heads, rule=rule)
    s = sub.speedups
    shares = {m: share_of_oracle(s, ch) for m, ch in methods.items()}
    kinds = [kind_of(p) for p in sub.programs]
    threads = np.array([c.get("threads") for c in sub.configs])
    one = np.flatnonzero(threads == 1)
    best_one = np.nanmax(s[:, one], axis=1) if len(one) else np.zeros(len(keep))
    wins = np.flatnonzero(best_one >= ONE_THREAD_WINS)
    guided = probe_config(SCHEDULE_PROBE, sub.configs)
    return {
        "groups": int(len(keep)), "groups_without_profile": int((~have).sum()), "applications": len(folds),
        "profiles": str(profiles_path.relative_to(REPO) if profiles_path.is_relative_to(REPO) else profiles_path),
        "share_of_oracle": {m: round(geomean(v), 4) for m, v in shares.items()},
        "by_kind": {m: {k: round(geomean([x for x, g in zip(v, kinds) if g == k]), 4) for k in dict.fromkeys(kinds)}
                    for m, v in shares.items()},
        "kinds": {k: kinds.count(k) for k in dict.fromkeys(kinds)},
        # how closely the probe (two single runs) tracks the best one-thread speedup (medians of the timed runs)
        "probe_vs_best_one_thread_log_correlation": round(float(np.corrcoef(
            P[:, FITTED_COLUMNS.index(THREAD_PROBE.column)], np.log2(best_one))[0, 1]), 3) if len(one) else None,
        # and the schedule probe (one run) against its configuration's measured gain (the median of the timed runs)
        "schedule_probe_vs_its_gain_log_correlation": None if guided is None else round(float(np.corrcoef(
            P[:, FITTED_COLUMNS.index(SCHEDULE_PROBE.column)], np.log2(s[:, guided]))[0, 1]), 3),
        "loss_by_threads": {m: loss_by_threads(shares[m], ch, methods["oracle"], threads)
                            for m, ch in methods.items() if m != "oracle"},
        "one_thread_wins": {
            "groups": [f"{sub.programs[i]} {sub.sizes[i]}" for i in wins],
            "best_one_thread_speedup": [round(float(best_one[i]), 3) for i in wins],
            "share": {m: [round(float(v[i]), 3) for i in wins] for m, v in shares.items()},
            "chosen": {m: [sub.labels[ch[i]] for i in wins] for m, ch in methods.items()}},
        "configs": n_configs, "inner_folds": n_inner, "extra_datasets": list(extra), "heads": list(heads),
        "head_config": head_config, "rule": rule,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--profiles", type=Path, default=REPO / "datasets" / "openmp-profile" / "profile.parquet")
    ap.add_argument("--configs", type=int, default=2, help="candidate head configurations per head kind")
    ap.add_argument("--inner", type=int, default=5, help="inner cross-validation folds")
    ap.add_argument("--json", type=Path, default=REPO / "benchmarks" / "results" / "openmp_profile_eval.json")
    ap.add_argument("--extra", action="append", default=[], metavar="NAME",
                    help="a dataset under datasets/ added to the task's data (e.g. openmp-fewer-epyc)")
    ap.add_argument("--heads", default="gain,knn", metavar="H,H",
                    help="head kinds the inner cross-validation chooses from (gain, knn, forest)")
    ap.add_argument("--rule", default="best", choices=("best", "one-se"),
                    help="how the inner cross-validation picks each fold's head (mirtune.predict.select.SELECTION_RULES)")
    ap.add_argument("--head-config", type=Path, default=None, metavar="PREDICTOR_JSON",
                    help="refit this predictor's head configuration on every fold (its predictor.json's 'head') "
                         "instead of choosing one by inner cross-validation")
    args = ap.parse_args(argv)
    try:
        if not args.profiles.is_file():
            raise MirtuneError("no profile table; collect it with scripts/profile_openmp_datasets.py",
                               str(args.profiles))
        missing = [d for d in args.extra if not (REPO / "datasets" / d).is_dir()]
        if missing:
            raise MirtuneError(f"no such dataset: {', '.join(missing)}")
        heads = tuple(h.strip() for h in args.heads.split(",") if h.strip())
        from mirtune.predict.select import GAIN_HEADS

        if not heads or any(h not in GAIN_HEADS for h in heads):
            raise MirtuneError(f"--heads takes {', '.join(GAIN_HEADS)}; got {args.heads!r}")
        head_config = None
        if args.head_config:
            try:
                head_config = json.loads(args.head_config.read_text())["head"]
            except (OSError, ValueError, KeyError) as exc:
                raise MirtuneError(f"--head-config: not a predictor description ({exc})", str(args.head_config))
        res = evaluate(args.profiles.resolve(), args.configs, args.inner, args.extra, heads, head_config, args.rule)
    except MirtuneError as err:
        print(f"openmp_profile_eval: {err.line()}", file=sys.stderr)
        return 2
    print(f"openmp, leave one application out: {res['groups']} groups of {res['applications']} applications "
          f"({res['groups_without_profile']} without a profile, left out)")
    kinds = list(res["kinds"])
    width = max(map(len, res["share_of_oracle"]))
    print(f"{'method':{width}s} {'all':>6s} " + " ".join(f"{k[:14]:>14s}" for k in kinds))
    for m, v in res["share_of_oracle"].items():
        print(f"{m:{width}s} {v:6.3f} " + " ".join(f"{res['by_kind'][m][k]:14.3f}" for k in kinds))
    last = list(res["loss_by_threads"])[-1]
    print(f"where {last} loses to the oracle (threads chosen <- the oracle's; share of its log loss, groups): "
          + ", ".join(f"{k} {v['share_of_loss']:.2f} ({v['groups']})" for k, v in res["loss_by_threads"][last].items()))
    print(f"the thread probe against the best one-thread speedup, correlation of logs: "
          f"{res['probe_vs_best_one_thread_log_correlation']}; the schedule probe against its configuration's "
          f"gain: {res['schedule_probe_vs_its_gain_log_correlation']}")
    w = res["one_thread_wins"]
    print(f"groups where one thread is at least {ONE_THREAD_WINS}x faster than the default: {len(w['groups'])}")
    for i, g in enumerate(w["groups"]):
        print(f"  {g} (1 thread {w['best_one_thread_speedup'][i]}x): " + ", ".join(
            f"{m} {w['share'][m][i]:.2f} ({w['chosen'][m][i]})" for m in w["share"]))
    write_result(args.json, res)
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
