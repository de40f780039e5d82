"""Leave-one-application-out evaluation of a measured task's predictors (openmp, vectorize) beside the code-free
baselines: what `mirtune fit --evaluate` records in a predictor, and what `mirtune evaluate measured TASK` reports
(its table and chart: mirtune.experiments.measured_eval).

For every held-out application: the head is chosen by inner cross-validation over the OTHER applications (Ray
Tune, `select_configs`) and fitted on them; it picks one configuration per (application, input size) group. The
figures are the MIREncoder paper's (Figure 4, Table 3): geometric-mean share of the oracle (best time / chosen
time), speedup over the default, groups within 0.9 of the oracle, slowdowns against the default. Reported in the
same run: the default configuration, the one configuration best on average over the training applications
(chosen per fold, like the predictor), the oracle, and the same heads on every other embedding asked for
(IR2Vec: the peer baseline).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import numpy as np

SLOWDOWN = 0.95  # a chosen configuration slower than 0.95x the default counts as a slowdown


def _metrics(speedups: np.ndarray, chosen: np.ndarray) -> dict[str, Any]:
    from mirtune.tasks.measured import chosen_speedups, geomean, share_of_oracle

    share = share_of_oracle(speedups, chosen)
    sp = chosen_speedups(speedups, chosen)
    return {"share_of_oracle": geomean(share), "speedup_over_default": geomean(sp),
            # MIREncoder Table 5's error rate: (chosen time - best time) / best time, mean over the groups
            "error_rate": float(np.mean(1.0 / np.maximum(share, 1e-3) - 1.0)),
            "within_0.9_of_oracle": int((share >= 0.9).sum()), "slowdowns": int((sp < SLOWDOWN).sum()),
            "failed": int((sp == 0).sum()), "groups": int(len(chosen)),
            "per_group_share": [round(float(v), 4) for v in share],
            "per_group_speedup": [round(float(v), 4) for v in sp]}


def held_out_problem(task: str, data_paths: Sequence[str], program_dirs: Sequence[str] = ()):
    """(the Task, its gain table, leave-one-application-out folds, their (train, test) pairs) of a measured task."""
    from mirtune.tasks import registry
    from mirtune.tasks.measured import leave_one_app_out

    definition = registry.get(task, kind=registry.MEASURED)
    table = definition.gain_table(data_paths, program_dirs)
    folds = leave_one_app_out(table.apps)
    return definition, table, folds, [(tr, te) for tr, te, _ in folds]


def run(task: str, data_paths: Sequence[str], embedders: Sequence, heads: Sequence[str] = ("gain", "knn"),
        program_dirs: Sequence[str] = (), use_ray: bool = True, n_configs: int | None = None, n_inner: int = 5,
        note: Callable[[str], None] = print, progress: Callable | None = None,
        anchors: Sequence[str] | None = None) -> dict[str, Any]:
    """The whole evaluation; returns the JSON-ready result (its table and chart: mirtune.experiments.measured_eval).
    `anchors`: what the heads keep without evidence (mirtune.predict.heads.ANCHORS), by default the predictors'
    (predictor.ANCHORS)."""
    from mirtune.predict.predictor import ANCHORS, candidate_configs, gain_problem, table_matrix
    from mirtune.predict.select import evaluate_outer, select_configs
    from mirtune.tasks.measured import best_fixed_per_group, geomean

    t0 = time.monotonic()
    definition, table, folds, outer = held_out_problem(task, data_paths, program_dirs)
    note(f"{task}: {len(table)} groups of {len(folds)} applications x {len(table.labels)} configurations; "
         f"leave-one-application-out")
    problems = []
    for emb in embedders:
        X = table_matrix(table, task, emb, note=note)
        problems.append(gain_problem(emb.name, table, X, outer, len(definition.context_names)))
    t_embed = time.monotonic() - t0
    anchors = tuple(anchors or ANCHORS)
    configs = candidate_configs(heads, n_configs, anchors=anchors)
    note(f"{task}: choosing among {len(configs)} head configurations ({', '.join(heads)}) by inner "
         f"{n_inner}-fold CV over the training applications ({len(outer)} outer folds x {len(problems)} embeddings)")
    t1 = time.monotonic()
    chosen = select_configs(problems, configs, n_inner=n_inner, use_ray=use_ray, note=None, progress=progress)
    preds = evaluate_outer(problems, chosen, [0], use_ray=use_ray, progress=progress)
    t_fit = time.monotonic() - t1
    s = table.speedups
    fixed = best_fixed_per_group(s, outer)
    fixed_per_fold = [{"app": app, "config": table.labels[fixed[te[0]]]} for _, te, app in folds]
    oracle = table.labels_best()
    methods = {"default": np.zeros(len(table), dtype=int), "best fixed": fixed}
    methods.update({p.name: preds[p.name][0] for p in problems})
    methods["oracle"] = oracle
    result: dict[str, Any] = {
        "task": task, "data": [str(p) for p in data_paths], "protocol": "leave-one-application-out",
        "applications": len(folds), "groups": len(table), "configurations": table.labels,
        "group_programs": table.programs, "group_sizes": table.sizes, "group_apps": table.apps,
        "oracle_speedup_over_default": geomean(np.nanmax(s, axis=1)),
        "methods": {name: {**_metrics(s, ch), "chosen": [table.labels[int(c)] for c in ch]}
                    for name, ch in methods.items()},
        "best_fixed_per_fold": fixed_per_fold,
        "chosen_heads": {p.name: [dict(chosen[(p.name, k)], app=folds[k][2]) for k in range(len(outer))]
                         for p in problems},
        "embeddings": {e.name: e.description for e in embedders},
        "heads": list(heads), "anchors": list(anchors), "candidates": len(configs), "inner_folds": n_inner,
        "hosts": table.hosts, "dropped": table.dropped,
        "median_cv": float(np.nanmedian(table.cv)),
    }
    result["timing_s"] = {"embed": round(t_embed, 1), "select_and_fit": round(t_fit, 1),
                          "total": round(time.monotonic() - t0, 1)}
    return result
