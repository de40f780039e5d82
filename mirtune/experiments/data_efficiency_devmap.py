"""The data-efficiency study on device mapping (`mirtune evaluate data-efficiency devmap`): for every outer fold of the
published protocol, repeat and labelled fraction, the heads on stratified subsets of the fold's training rows and
the end-to-end models, both platforms; the plan is `mirtune.experiments.data_efficiency`'s."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from mirtune.experiments.data_efficiency import (END_TO_END, HEAD_METHODS, end_to_end_job, factor_figures, fit_costs,
                                                 frozen_embed_cost, plan_subsets, run_jobs)


def _head_job(X: dict[str, np.ndarray], y: np.ndarray, test: np.ndarray, subsets: dict[float, np.ndarray],
              seed: int, head: dict) -> dict[tuple[str, float], tuple[np.ndarray, float]]:
    """{(method, fraction): (test predictions, fit seconds)} of the head on each embedding and subset."""
    from mirtune.predict.heads import limit_threads, make_head

    limit_threads(1)
    out = {}
    for method, Xm in X.items():
        for f, rows in subsets.items():
            assert not np.intersect1d(rows, test).size, "a training subset holds test rows"
            t0 = time.monotonic()
            model = make_head(int(y.max()) + 1, head, seed).fit(Xm[rows], y[rows])
            fit_s = time.monotonic() - t0
            out[(method, f)] = (model.predict(Xm[test]), fit_s)
    return out


def run_devmap(data: Path, fractions: Sequence[float], methods: Sequence[str], repeats: int,
               folds: Sequence[int] | None = None, e2e_folds: Sequence[int] | None = None,
               e2e_repeats: int | None = None, config: Any = None, model_dir: str | None = None,
               use_ray: bool = True, note: Callable[[str], None] = print,
               on_update: Callable[[dict[str, Any]], None] | None = None, head: dict | None = None
               ) -> dict[str, Any]:
    """The study on device mapping, both platforms; returns the JSON-ready result (`on_update` gets the result so
    far after every finished job). The end-to-end methods run on `e2e_folds` (default `folds`) with the first
    `e2e_repeats` repeats (default all). `head`: the frozen and ir2vec methods' head configuration (default
    the end-to-end models' MLP head, `config.head`)."""
    from mirtune.embedding import load_encoder
    from mirtune.experiments.finetune import E2EConfig, load_samples
    from mirtune.tasks import devmap
    from mirtune.tasks.embedders import embed_files, get_embedder

    t_start = time.monotonic()
    config = config or E2EConfig()
    head = head or config.head.to_dict()
    fractions = sorted(float(f) for f in fractions)
    frames = {p: devmap.load_platform(data, p) for p in devmap.PLATFORMS}
    fold_of = {p: f.fold.to_numpy() for p, f in frames.items()}  # stratified by each platform's labels
    n_rows = len(frames["amd"])
    folds = sorted(folds) if folds is not None else list(range(devmap.N_FOLDS))
    e2e = [m for m in methods if m in END_TO_END]
    e2e_folds = (sorted(e2e_folds) if e2e_folds is not None else folds) if e2e else []
    compare_folds = e2e_folds or folds
    paths = frames["amd"].ir_path.tolist()
    labels = {p: f.label.to_numpy() for p, f in frames.items()}
    context = {p: devmap.context_features(f) for p, f in frames.items()}
    X = {}
    for m in methods:
        if m in HEAD_METHODS:
            emb = embed_files(get_embedder(HEAD_METHODS[m], model_dir=model_dir if m == "frozen" else None), paths)
            X[m] = {p: devmap.features(frames[p], emb) for p in frames}
    plan = plan_subsets(labels, fold_of, sorted(set(folds) | set(e2e_folds)), fractions, repeats)
    embed_cost: dict[float, float] = {}
    if e2e:
        t0 = time.monotonic()
        loaded = load_encoder(model_dir)
        load_samples(sorted(set(paths)), loaded)  # built (and cached) once, before the workers read them
        note(f"{devmap.NAME}: encoder inputs of {len(set(paths))} IR files ready in {time.monotonic() - t0:.0f} s")
        if "frozen" in methods:
            embed_cost = frozen_embed_cost(loaded, paths, plan[("amd", e2e_folds[0], 0)][1])
    jobs: list[tuple[tuple, Callable, tuple]] = []
    if X:
        for (p, k, r), (test, subsets) in plan.items():
            if k in folds:
                jobs.append((("head", p, k, r), _head_job,
                             ({m: X[m][p] for m in X}, labels[p], test, subsets, r, head)))
    top = fractions[-1]
    e2e_repeats = repeats if e2e_repeats is None else min(e2e_repeats, repeats)
    e2e_keys = sorted(((p, k, r, f, m) for (p, k, r) in plan if k in e2e_folds and r < e2e_repeats
                       for f in fractions for m in e2e),
                      key=lambda j: (j[2], j[3] != top, j[4] != "scratch", j[3], j[4], j[0], j[1]))
    for p, k, r, f, m in e2e_keys:
        test, subsets = plan[(p, k, r)]
        rows = subsets[f]
        jobs.append((("e2e", p, k, r, f, m), end_to_end_job,
                     (m, model_dir, [paths[i] for i in rows], context[p][rows], labels[p][rows],
                      [paths[i] for i in test], context[p][test], config, r)))
    note(f"{devmap.NAME}: {len(jobs)} jobs ({sum(1 for j in jobs if j[0][0] == 'head')} head jobs, each all fractions of "
         f"{', '.join(X) or 'no embedding'}; {len(e2e_keys)} end-to-end fits), {repeats} repeats")
    preds: dict[tuple, np.ndarray] = {}
    done_folds: dict[tuple, set] = {}
    timings: list[dict[str, Any]] = []
    state = {"done": 0}

    def record(p: str, m: str, f: float, r: int, k: int, pred: np.ndarray) -> None:
        arr = preds.setdefault((p, m, f, r), np.full(n_rows, -1, dtype=np.int64))
        arr[plan[(p, k, r)][0]] = pred
        done_folds.setdefault((p, m, f, r), set()).add(k)

    def on_done(key: tuple, res: Any) -> None:
        if key[0] == "head":
            _, p, k, r = key
            for (m, f), (pred, fit_s) in res.items():
                record(p, m, f, r, k, pred)
                timings.append({"method": m, "platform": p, "fold": k, "repeat": r, "fraction": f,
                                "n_train": int(len(plan[(p, k, r)][1][f])), "fit_s": round(fit_s, 4)})
        else:
            _, p, k, r, f, m = key
            pred, info = res
            record(p, m, f, r, k, pred)
            timings.append({"method": m, "platform": p, "fold": k, "repeat": r, "fraction": f,
                            "n_train": int(len(plan[(p, k, r)][1][f])),
                            **{n: round(float(v), 4) for n, v in info.items()}})
            note(f"{devmap.NAME} {m} {p} fold {k} repeat {r} fraction {f:g}: {info['fit_s']:.0f} s, "
                 f"{info['steps']} steps, final loss {info['final_loss']:.3f}")
        state["done"] += 1
        if on_update is not None:
            on_update(summarise())

    def summarise() -> dict[str, Any]:
        return _devmap_result(frames, fractions, methods, repeats, e2e_repeats, folds, e2e_folds, compare_folds,
                              plan, preds, done_folds, timings, embed_cost, config, head, model_dir, status=(
                                  "complete" if state["done"] == len(jobs) else f"partial: {state['done']}/"
                                  f"{len(jobs)} jobs"), wall_s=time.monotonic() - t_start)

    run_jobs(jobs, use_ray, on_done)
    return summarise()


def _devmap_result(frames, fractions, methods, repeats, e2e_repeats, folds, e2e_folds, compare_folds, plan, preds,
                   done_folds, timings, embed_cost, config, head, model_dir, status: str, wall_s: float
                   ) -> dict[str, Any]:
    """The JSON-ready result from the predictions so far (only (fraction, repeat) points whose folds are all done)."""
    from mirtune.tasks import devmap

    def point(p: str, m: str, f: float, r: int, fold_set: Sequence[int]) -> dict[str, Any] | None:
        if not set(fold_set) <= done_folds.get((p, m, f, r), set()):
            return None
        rows = np.concatenate([plan[(p, k, r)][0] for k in fold_set])
        met = devmap.platform_metrics(frames[p], p, preds[(p, m, f, r)][rows], rows)
        n_train = float(np.mean([len(plan[(p, k, r)][1][f]) for k in fold_set]))
        return {"platform": p, "method": m, "fraction": f, "repeat": r, "accuracy": round(met["accuracy"], 5),
                "error": round(1 - met["accuracy"], 5), "speedup": round(met["speedup"], 4),
                "f1": round(met["f1"], 4), "n_train": n_train}

    def curve(p: str, m: str, fold_set: Sequence[int]) -> list[dict[str, Any]]:
        out = []
        for f in fractions:
            pts = [x for r in range(repeats) if (x := point(p, m, f, r, fold_set)) is not None]
            if not pts:
                continue
            err = np.array([x["error"] for x in pts])
            out.append({"fraction": f, "n_train": pts[0]["n_train"], "repeats": len(pts),
                        "error_mean": round(float(err.mean()), 5),
                        "error_std": round(float(err.std(ddof=1)) if len(err) > 1 else 0.0, 5),
                        "accuracy_mean": round(float(1 - err.mean()), 5),
                        "speedup_mean": round(float(np.mean([x["speedup"] for x in pts])), 4),
                        "errors": [x["error"] for x in pts]})
        return out

    platforms = list(frames)
    curves = {p: {m: curve(p, m, compare_folds) for m in methods} for p in platforms}
    result: dict[str, Any] = {
        "task": devmap.NAME, "status": status, "fractions": list(fractions), "methods": list(methods),
        "repeats": repeats, "e2e_repeats": e2e_repeats if e2e_folds else 0, "folds": list(folds),
        "e2e_folds": list(e2e_folds), "comparison_folds": list(compare_folds),
        "fold_column": devmap.FOLD_COLUMN, "metric": "error = 1 - accuracy over the pooled test rows of the folds",
        "head": head, "end_to_end": {k: v for k, v in config.to_dict().items() if k not in ("head", "gain_head")},
        "model_dir": model_dir, "curves": curves}
    if set(folds) != set(compare_folds):
        result["curves_all_folds"] = {p: {m: curve(p, m, folds) for m in methods if m in HEAD_METHODS}
                                      for p in platforms}
    result["factor"] = {p: factor_figures(curves[p], fractions) for p in platforms}
    factors = [v["data_reduction_factor"] for v in result["factor"].values()]
    result["data_reduction_factor"] = (min(factors) if all(v is not None for v in factors) and factors else None)
    result["cost"] = fit_costs(timings, fractions, embed_cost)
    result["fits"] = timings
    result["wall_s"] = round(wall_s, 1)
    return result
