"""The data-efficiency study on a measured task (`mirtune evaluate data-efficiency openmp|vectorize|cuda_blocks`):
leave-one-application-out, subsets of each fold's training applications, the gain heads, the code-free baselines
and the end-to-end models; the plan is `mirtune.experiments.data_efficiency`'s."""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import numpy as np

from mirtune.errors import UsageError
from mirtune.experiments.data_efficiency import (BASELINES, END_TO_END, HEAD_METHODS, METHODS, MIN_APPS,
                                                 end_to_end_job, factor_figures, fit_costs, frozen_embed_cost,
                                                 plan_app_subsets, run_jobs)


def _measured_head_job(X: dict[str, np.ndarray], gains: np.ndarray, speedups: np.ndarray, n_context: int,
                       test: np.ndarray, subsets: dict[float, np.ndarray], seed: int, head: dict
                       ) -> dict[tuple[str, float], tuple[np.ndarray, float]]:
    """{(method, fraction): (test choices, fit seconds)} of the gain head on each embedding and subset, and of the
    code-free baselines chosen on the same subset; on one CPU, as every other fit (BLAS threads only add
    contention at this size)."""
    from threadpoolctl import threadpool_limits

    from mirtune.predict.heads import make_head
    from mirtune.tasks.measured import best_fixed

    out = {}
    n_configs = gains.shape[1]
    with threadpool_limits(1):
        for f, rows in subsets.items():
            assert not np.intersect1d(rows, test).size, "a training subset holds test rows"
            for method, Xm in X.items():
                t0 = time.monotonic()
                model = make_head(n_configs, head, seed, keep=n_context).fit(Xm[rows], None, gains[rows])
                fit_s = time.monotonic() - t0
                out[(method, f)] = (model.predict(Xm[test]), fit_s)
            t0 = time.monotonic()
            fixed = best_fixed(speedups, rows)
            out[("best_fixed", f)] = (np.full(len(test), fixed), time.monotonic() - t0)
            out[("default", f)] = (np.zeros(len(test), dtype=int), 0.0)
    return out


def run_measured(task: str, data_paths: Sequence[str], fractions: Sequence[float], methods: Sequence[str],
                 repeats: int, folds: Sequence[int] | None = None, e2e_folds: Sequence[int] | None = None,
                 e2e_repeats: int | None = None, config: Any = None, model_dir: str | None = None,
                 program_dirs: Sequence[str] = (), use_ray: bool = True, note: Callable[[str], None] = print,
                 on_update: Callable[[dict[str, Any]], None] | None = None, head: dict | None = None,
                 problem: tuple | None = None) -> dict[str, Any]:
    """The study on a measured task (openmp, vectorize, cuda_blocks), leave-one-application-out; returns the
    JSON-ready result (`on_update` gets the result so far after every finished end-to-end fit). `folds`/`e2e_folds`: outer fold
    indices (held-out applications in the order of `mirtune.predict.held_out.held_out_problem`); the end-to-end methods run
    on `e2e_folds` (default `folds`, default all) with the first `e2e_repeats` repeats. `head`: the frozen and
    ir2vec methods' gain head (default `config.gain_head`, the end-to-end models' head). `problem`: what
    `held_out_problem(task, data_paths, program_dirs)` returned, when the caller has it already."""
    from mirtune.experiments.finetune import E2EConfig
    from mirtune.predict.held_out import held_out_problem
    from mirtune.predict.predictor import program_ir, table_context, table_matrix
    from mirtune.tasks.embedders import get_embedder

    t_start = time.monotonic()
    from mirtune.tasks import registry

    studied = registry.names(data_efficiency=True, kind=registry.MEASURED)
    if task not in studied:
        raise UsageError(f"the measured data-efficiency study runs on {', '.join(studied)}, not {task!r}")
    config = config or E2EConfig()
    head = head or config.gain_head.to_dict()
    fractions = sorted(float(f) for f in fractions)
    definition, table, loao, _ = problem or held_out_problem(task, data_paths, program_dirs)
    n_context = len(definition.context_names)
    folds = sorted(folds) if folds is not None else list(range(len(loao)))
    e2e = [m for m in methods if m in END_TO_END]
    e2e_folds = (sorted(e2e_folds) if e2e_folds is not None else folds) if e2e else []
    compare_folds = e2e_folds or folds
    e2e_repeats = repeats if e2e_repeats is None else min(e2e_repeats, repeats)
    note(f"{task}: {len(table)} groups of {len(loao)} applications x {len(table.labels)} configurations; "
         f"leave-one-application-out on {len(folds)} held-out applications")
    X = {m: table_matrix(table, task, get_embedder(HEAD_METHODS[m], model_dir=model_dir if m == "frozen" else None),
                         note=note)
         for m in methods if m in HEAD_METHODS}
    gains, speedups = table.train_gains(), table.speedups
    plan = plan_app_subsets(table.apps, loao, sorted(set(folds) | set(e2e_folds)), fractions, repeats)
    preds: dict[tuple, np.ndarray] = {}
    done_folds: dict[tuple, set] = {}
    timings: list[dict[str, Any]] = []
    head_timings: list[dict[str, Any]] = []

    def record(m: str, f: float, r: int, k: int, pred: np.ndarray) -> None:
        arr = preds.setdefault((m, f, r), np.full(len(table), -1, dtype=np.int64))
        arr[plan[(k, r)][0]] = pred
        done_folds.setdefault((m, f, r), set()).add(k)

    for (k, r), (test, subsets) in plan.items():  # gain heads and baselines: milliseconds each, in this process
        if k in folds:
            for (m, f), (pred, fit_s) in _measured_head_job(X, gains, speedups, n_context, test, subsets, r,
                                                            head).items():
                record(m, f, r, k, pred)
                head_timings.append({"method": m, "fraction": f, "fit_s": fit_s})
    embed_cost: dict[float, float] = {}
    jobs: list[tuple[tuple, Callable, tuple]] = []
    e2e_keys: list[tuple] = []
    if e2e:
        from mirtune.embedding import load_encoder
        from mirtune.experiments.finetune import load_samples

        t0 = time.monotonic()
        ir = [str(program_ir(s)) for s in table.sources]
        context = table_context(table, task, ir)
        loaded = load_encoder(model_dir)
        load_samples(sorted(set(ir)), loaded)  # built (and cached) once, before the workers read them
        note(f"{task}: encoder inputs of {len(set(ir))} IR files ready in {time.monotonic() - t0:.0f} s")
        if "frozen" in methods:  # each distinct file once (the groups of one program share its IR)
            first: dict[str, int] = {}
            for i, path in enumerate(ir):
                first.setdefault(path, i)
            embed_cost = frozen_embed_cost(loaded, ir, {f: np.array(sorted({first[ir[i]] for i in rows}))
                                                        for f, rows in plan[(e2e_folds[0], 0)][1].items()})
        top = fractions[-1]
        e2e_keys = sorted(((k, r, f, m) for (k, r) in plan if k in e2e_folds and r < e2e_repeats
                           for f in fractions for m in e2e),
                          key=lambda j: (j[1], j[2] != top, j[3] != "scratch", j[2], j[3], j[0]))
        for k, r, f, m in e2e_keys:
            test, subsets = plan[(k, r)]
            rows = subsets[f]
            jobs.append((("e2e", k, r, f, m), end_to_end_job,
                         (m, model_dir, [ir[i] for i in rows], context[rows], gains[rows], [ir[i] for i in test],
                          context[test], config, r, "gain")))
        note(f"{task}: {len(jobs)} end-to-end fits ({', '.join(e2e)}) on {len(e2e_folds)} held-out applications, "
             f"{e2e_repeats} repeat(s); heads and baselines done on {len(folds)} x {repeats} repeats")
    state = {"done": 0}

    def summarise() -> dict[str, Any]:
        return _measured_result(task, data_paths, table, loao, fractions, methods, repeats, e2e_repeats, folds,
                                e2e_folds, compare_folds, plan, preds, done_folds, timings + head_timings,
                                timings, embed_cost, config, head, model_dir, status=(
                                    "complete" if state["done"] == len(jobs) else
                                    f"partial: {state['done']}/{len(jobs)} end-to-end fits"),
                                wall_s=time.monotonic() - t_start)

    def on_done(key: tuple, res: Any) -> None:
        _, k, r, f, m = key
        pred, info = res
        record(m, f, r, k, pred)
        timings.append({"method": m, "fold": k, "app": loao[k][2], "repeat": r, "fraction": f,
                        "n_train": int(len(plan[(k, r)][1][f])),
                        **{n: round(float(v), 4) for n, v in info.items()}})
        note(f"{task} {m} {loao[k][2]} repeat {r} fraction {f:g}: {info['fit_s']:.0f} s, {info['steps']} steps, "
             f"final loss {info['final_loss']:.3f}")
        state["done"] += 1
        if on_update is not None:
            on_update(summarise())

    if on_update is not None:
        on_update(summarise())
    run_jobs(jobs, use_ray, on_done)
    return summarise()


def _measured_result(task, data_paths, table, loao, fractions, methods, repeats, e2e_repeats, folds, e2e_folds,
                     compare_folds, plan, preds, done_folds, all_timings, e2e_timings, embed_cost, config, head,
                     model_dir, status: str, wall_s: float) -> dict[str, Any]:
    """The JSON-ready result of a measured task from the choices so far (only (fraction, repeat) points whose
    folds are all done)."""
    from mirtune.tasks.measured import geomean, share_of_oracle

    speedups = table.speedups
    apps = np.asarray(table.apps)
    shown = [m for m in METHODS if m in methods] + list(BASELINES)

    def point(m: str, f: float, r: int, fold_set: Sequence[int]) -> dict[str, Any] | None:
        if not set(fold_set) <= done_folds.get((m, f, r), set()):
            return None
        rows = np.concatenate([plan[(k, r)][0] for k in fold_set])
        share = geomean(share_of_oracle(speedups, preds[(m, f, r)][rows], rows))
        subsets = [plan[(k, r)][1][f] for k in fold_set]
        return {"share": round(share, 5), "n_train": float(np.mean([len(s) for s in subsets])),
                "n_apps": float(np.mean([len(set(apps[s].tolist())) for s in subsets]))}

    def curve(m: str, fold_set: Sequence[int]) -> list[dict[str, Any]]:
        out = []
        for f in fractions:
            pts = [x for r in range(repeats) if (x := point(m, f, r, fold_set)) is not None]
            if not pts:
                continue
            share = np.array([x["share"] for x in pts])
            std = float(share.std(ddof=1)) if len(share) > 1 else 0.0
            out.append({"fraction": f, "n_apps": pts[0]["n_apps"], "n_train": pts[0]["n_train"],
                        "repeats": len(pts), "share_mean": round(float(share.mean()), 5),
                        "share_std": round(std, 5), "error_mean": round(float(1 - share.mean()), 5),
                        "error_std": round(std, 5), "shares": [x["share"] for x in pts]})
        return out

    curves = {m: curve(m, compare_folds) for m in shown}
    result: dict[str, Any] = {
        "task": task, "status": status, "data": [str(p) for p in data_paths],
        "protocol": "leave-one-application-out", "fractions": list(fractions), "methods": shown,
        "repeats": repeats, "e2e_repeats": e2e_repeats if e2e_folds else 0,
        "applications": len(loao), "groups": len(table), "configurations": len(table.labels),
        "folds": [loao[k][2] for k in folds], "e2e_folds": [loao[k][2] for k in e2e_folds],
        "comparison_folds": [loao[k][2] for k in compare_folds],
        "comparison_groups": int(sum(len(loao[k][1]) for k in compare_folds)),
        "subsets": f"a random share of each outer fold's training applications (all groups of an application "
                   f"together, at least {MIN_APPS}), nested, seeded by (fold, repeat)",
        "metric": "share of the oracle: geometric mean over the pooled test groups of the folds of best time / "
                  "chosen configuration's time (higher is better); error = 1 - share",
        "head": head, "end_to_end": {k: v for k, v in config.to_dict().items() if k != "head"},
        "model_dir": model_dir, "curves": curves}
    heads_and_baselines = [m for m in shown if m not in END_TO_END]
    all_fold_curves = curves
    if set(folds) != set(compare_folds):
        all_fold_curves = {m: curve(m, folds) for m in heads_and_baselines}
        result["curves_all_folds"] = all_fold_curves
    vs_scratch = factor_figures(curves, fractions, "scratch")
    if "scratch" not in methods:
        vs_scratch["why"] = "scratch was not run (not in --compare): no data_reduction_factor"
    vs_fixed = factor_figures(all_fold_curves, fractions, "best_fixed")
    result["factor"] = {"vs_scratch": vs_scratch, "vs_best_fixed": vs_fixed}
    if "finetune" in methods and "scratch" in methods:  # does pre-training save labels as a starting point?
        result["factor"]["finetune_vs_scratch"] = factor_figures(curves, fractions, "scratch", method="finetune")
    for fac in result["factor"].values():
        fac["folds"] = result["comparison_folds"] if fac["reference"] == "scratch" else result["folds"]
        if "reference_full_error" in fac:
            fac["reference_full_share"] = round(1 - fac["reference_full_error"], 5)
            fac[f"{fac['method']}_share"] = {f: round(1 - e, 5) for f, e in fac[f"{fac['method']}_error"].items()}
    result["data_reduction_factor"] = vs_scratch["data_reduction_factor"]
    result["data_reduction_factor_vs_best_fixed"] = vs_fixed["data_reduction_factor"]
    result["cost"] = fit_costs(all_timings, fractions, embed_cost)
    result["fits"] = e2e_timings
    result["wall_s"] = round(wall_s, 1)
    return result
