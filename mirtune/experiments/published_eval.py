"""The published-data evaluations behind `mirtune evaluate published devmap|coarsening`: the tasks' protocols
(`mirtune.tasks.devmap`, `mirtune.tasks.coarsening` build the Problems), the head chosen by inner cross-validation
with Ray Tune and fitted per outer fold (`mirtune.predict.select`), and the JSON-ready results."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from mirtune.errors import MirtuneError, UsageError


def run_devmap(data: Path, embedder, seeds: Sequence[int] = range(5), quick: bool = False,
        folds: Sequence[int] | None = None, use_ray: bool = True, n_configs: int | None = None,
        note: Callable[[str], None] = print, progress: Callable | None = None,
        epochs: Sequence[int] | None = None, head: str = "mlp", pca: Sequence[int] = (0,)) -> dict[str, Any]:
    """The whole device-mapping evaluation; returns the JSON-ready result (see mirtune evaluate). `pca`: the
    embedding sizes the head search tries (0 = whole; K = first K principal components, context kept)."""
    from mirtune.predict.select import evaluate_outer, search_space, select_configs
    from mirtune.tasks import devmap
    from mirtune.tasks.embedders import embed_files

    t0 = time.monotonic()
    frames = {p: devmap.load_platform(data, p) for p in devmap.PLATFORMS}
    paths = frames["amd"].ir_path.tolist()
    if paths != frames["nvidia"].ir_path.tolist():
        raise MirtuneError(f"{devmap.NAME}: the two platform files name different kernels")
    if embedder.row_features is not None:  # features from the data rows (Grewe's counts), not from IR files
        note(f"{devmap.NAME}: {embedder.description} (no IR embedding)")
        emb = embedder.row_features(frames["amd"])
        if not np.array_equal(emb, embedder.row_features(frames["nvidia"])):
            raise MirtuneError(f"{devmap.NAME}: the two platform files give different {embedder.name} features")
    else:
        note(f"{devmap.NAME}: embedding {len(set(paths))} IR files with {embedder.name}")
        emb = embed_files(embedder, paths)
    t_embed = time.monotonic() - t0
    problems = [devmap.make_problem(frames[p], devmap.features(frames[p], emb), p, folds) for p in devmap.PLATFORMS]
    epochs = tuple(epochs) if epochs else ((5, 10) if quick else (60, 120, 240))
    configs = search_space(n_configs or (2 if quick else 8), epochs=epochs, head=head, pca=pca)
    n_inner = 2 if quick else 3
    note(f"{devmap.NAME}: choosing the head among {len(configs)} configurations by inner {n_inner}-fold CV "
         f"on the training folds ({sum(len(p.outer) for p in problems)} outer folds, Ray Tune)")
    t1 = time.monotonic()
    chosen = select_configs(problems, configs, n_inner=n_inner, use_ray=use_ray, note=note)
    t_select = time.monotonic() - t1
    seeds = list(seeds)
    note(f"{devmap.NAME}: fitting the chosen heads, {len(seeds)} seeds x {sum(len(p.outer) for p in problems)} folds")
    t2 = time.monotonic()
    # quick runs are a handful of tiny fits: in-process beats starting Ray workers
    preds = evaluate_outer(problems, chosen, seeds, use_ray=use_ray and not quick, progress=progress)
    t_fit = time.monotonic() - t2
    result: dict[str, Any] = {"task": devmap.NAME, "embedding": embedder.name, "embedding_key": embedder.key,
                              "head": head,
                              "seeds": seeds, "quick": bool(quick), "candidates": configs,
                              "inner_folds": n_inner, "fold_column": devmap.FOLD_COLUMN,
                              "folds": problems[0].fold_ids, "f1_class": "GPU",
                              "features": f"{embedder.name} ({emb.shape[1]}) ++ log1p(transfer), log1p(wgsize)",
                              "static_device": devmap.STATIC_DEVICE}
    for prob in problems:
        df = frames[prob.name]
        rows = np.concatenate([te for _, te in prob.outer])
        per_seed = [devmap.platform_metrics(df, prob.name, preds[prob.name][i][rows], rows) for i in range(len(seeds))]
        entry: dict[str, Any] = {"platform": devmap.PLATFORMS[prob.name], "n_rows": int(len(rows))}
        for key in ("accuracy", "f1", "f1_macro", "speedup"):
            entry[key], entry[key + "_std"] = devmap.summarise([m[key] for m in per_seed])
        entry["oracle_speedup"] = per_seed[0]["oracle_speedup"]
        entry["per_seed"] = {key: [m[key] for m in per_seed] for key in ("accuracy", "f1", "speedup")}
        # per seed, the predicted device of every row in file order (-1: row in no evaluated fold)
        entry["predictions"] = preds[prob.name].tolist()
        entry["chosen_configs"] = [dict(chosen[(prob.name, k)], fold=prob.fold_ids[k]) for k in range(len(prob.outer))]
        result[prob.name] = entry
    result["timing_s"] = {"embed": round(t_embed, 1), "select": round(t_select, 1), "fit": round(t_fit, 1),
                          "total": round(time.monotonic() - t0, 1)}
    return result


def run_coarsening(data_root: Path, embedder, seeds: Sequence[int] = range(5), quick: bool = False,
        kernels: Sequence[str] | None = None, use_ray: bool = True, n_configs: int | None = None,
        note: Callable[[str], None] = print, progress: Callable | None = None,
        epochs: Sequence[int] | None = None, head: str = "mlp",
        protocol: str = "loko", pca: Sequence[int] = (0,)) -> dict[str, Any]:
    """The whole thread-coarsening evaluation; returns the JSON-ready result (see mirtune evaluate).

    protocol "loko" (default): per platform, leave one kernel out (DeepTune, NCC); "ir2vec": IR2Vec's joint
    model with 68 leave-one-row-out folds (`mirtune.tasks.coarsening.make_joint_problem`), only to compare with
    figures measured that way.
    `pca`: the embedding sizes the head search tries (0 = whole; K = first K principal components).
    """
    from mirtune.predict.select import evaluate_outer, search_space, select_configs
    from mirtune.tasks import coarsening as co
    from mirtune.tasks.devmap import summarise
    from mirtune.tasks.embedders import embed_files

    if protocol not in co.PROTOCOLS:
        raise UsageError(f"unknown {co.NAME} protocol {protocol!r}; choose from {', '.join(co.PROTOCOLS)}")
    t0 = time.monotonic()
    data = co.CoarseningData(data_root)
    if kernels is not None:
        unknown = [k for k in kernels if k not in data.kernels]
        if unknown:
            raise UsageError(f"unknown {co.NAME} kernel {unknown[0]!r}")
    note(f"{co.NAME}: embedding {len(data.kernels)} IR files with {embedder.name}")
    X = embed_files(embedder, data.ir_paths)
    t_embed = time.monotonic() - t0
    if protocol == "loko":
        problems = [co.make_problem(data, X, p, kernels) for p in co.PLATFORMS]
    else:
        problems = [co.make_joint_problem(data, X, kernels)]
    epochs = tuple(epochs) if epochs else ((10, 20) if quick else (100, 200, 400))
    configs = search_space(n_configs or (2 if quick else 8), epochs=epochs, batch_size=16, head=head, pca=pca)
    n_inner = 2 if quick else 3
    note(f"{co.NAME}: choosing the head among {len(configs)} configurations by inner {n_inner}-fold CV over "
         f"the training kernels ({sum(len(p.outer) for p in problems)} outer folds, Ray Tune)")
    t1 = time.monotonic()
    chosen = select_configs(problems, configs, n_inner=n_inner, use_ray=use_ray, note=note)
    t_select = time.monotonic() - t1
    seeds = list(seeds)
    t2 = time.monotonic()
    # quick runs are a handful of tiny fits: in-process beats starting Ray workers
    preds = evaluate_outer(problems, chosen, seeds, use_ray=use_ray and not quick, progress=progress)
    t_fit = time.monotonic() - t2
    groups = data.identical_groups()
    n = len(data.kernels)
    held = list(range(n)) if kernels is None else [data.kernels.index(k) for k in kernels]
    per_seed: dict[str, list[float]] = {}
    predictions: dict[str, dict[str, list[int]]] = {}
    for ip, p in enumerate(co.PLATFORMS):
        rt = data.runtimes[p]
        pp = preds[p] if protocol == "loko" else preds["joint"][:, ip * n:(ip + 1) * n]  # [n_seeds, n_kernels]
        per_seed[p] = [float(co.speedups(rt, pp[i][held], held).mean()) for i in range(len(seeds))]
        predictions[p] = {data.kernels[r]: [co.FACTORS[co.effective_factor_index(rt[r], pp[i][r])]
                                            for i in range(len(seeds))] for r in held}
    averages = [float(np.mean([per_seed[p][i] for p in co.PLATFORMS])) for i in range(len(seeds))]
    result: dict[str, Any] = {
        "task": co.NAME, "head": head, "embedding": embedder.name, "embedding_key": embedder.key,
        "seeds": seeds,
        "candidates": configs, "inner_folds": n_inner, "protocol": protocol,
        "quick": bool(quick), "kernels": [data.kernels[r] for r in held], "factors": list(co.FACTORS),
        "per_gpu": {p: summarise(per_seed[p])[0] for p in co.PLATFORMS},
        "per_gpu_std": {p: summarise(per_seed[p])[1] for p in co.PLATFORMS},
        "average": summarise(averages)[0], "average_std": summarise(averages)[1],
        "per_seed": {**per_seed, "average": averages},
        "oracle": {p: float(co.oracle_speedups(data.runtimes[p])[held].mean()) for p in co.PLATFORMS},
        "code_only_ceiling": {p: co.code_only_ceiling(data.runtimes[p], groups) for p in co.PLATFORMS}
        if kernels is None else None,
        "fixed_factor_baseline": {p: co.fixed_factor_baseline(data.runtimes[p], held) for p in co.PLATFORMS}
        if protocol == "loko" else None,
        "identical_ir": [[data.kernels[i] for i in g] for g in groups],
        "predicted_factors": predictions,
        "oracle_factors": {p: {data.kernels[r]: co.FACTORS[int(data.labels(p)[r])] for r in held}
                           for p in co.PLATFORMS},
        "chosen_configs": {p.name: [dict(chosen[(p.name, k)], kernel=data.kernels[p.fold_ids[k] % n],
                                         **({} if protocol == "loko"
                                            else {"platform": co.PLATFORMS[p.fold_ids[k] // n]}))
                                    for k in range(len(p.outer))] for p in problems},
    }
    result["oracle"]["average"] = float(np.mean([result["oracle"][p] for p in co.PLATFORMS]))
    if result["fixed_factor_baseline"]:
        result["fixed_factor_baseline"]["average"] = float(
            np.mean([result["fixed_factor_baseline"][p] for p in co.PLATFORMS]))
    if result["code_only_ceiling"]:
        result["code_only_ceiling"]["average"] = float(np.mean([result["code_only_ceiling"][p] for p in co.PLATFORMS]))
    result["timing_s"] = {"embed": round(t_embed, 1), "select": round(t_select, 1), "fit": round(t_fit, 1),
                          "total": round(time.monotonic() - t0, 1)}
    return result
