"""Choosing a head's hyper-parameters by inner cross-validation, with Ray Tune, and the outer evaluation loop.

A `Problem` is one prediction task on one platform: features X, labels y, the outer folds of the published
protocol, how to cut a training set into inner folds, and a validation score (higher is better).

- `select_configs(problems, configs)`: ONE Ray Tune run whose trials are the candidate configurations, grouped in
  families that share one fitted head (`heads.fit_families`: a gain head's margin and anchor only decide from what
  it predicts). A trial scores its family, for every (problem, outer fold), by inner cross-validation on that
  fold's TRAINING rows only (`inner_cv_scores`), and reports one metric per (candidate, problem, outer fold). For
  each (problem, outer fold) the configuration with the best inner score wins (ties go to the earlier
  candidate), or with `rule="one-se"` the best of the simplest head kind whose inner score is within one standard
  error of the best (SELECTION_RULES). The test rows of an outer fold never reach a trial: the inner splits are
  cut from the training indices, and this is asserted.
- `evaluate_outer(problems, chosen, seeds)`: for each outer fold and head seed, fit the chosen configuration on
  all training rows and predict the test rows; returns predictions [n_seeds, n_rows] per problem (-1 where a row
  is in no evaluated fold).
- `outer_gains(problems, chosen)`: the same outer fits of gain heads, returning every choice's predicted gain
  for each held-out row (what a tuner ranks its first trials by).

Trials and final fits run on the private Ray cluster (`mirtune.cluster.init_ray`) one CPU each; `use_ray=False`
runs the same code in-process (tests, debugging).
"""

from __future__ import annotations

import itertools
import os
import shutil
from typing import Any, Callable, Sequence

import numpy as np

from mirtune.errors import MirtuneError
from mirtune.paths import private_temp_dir
from mirtune.predict.heads import (HEADS, ForestConfig, GainConfig, GBTConfig, HeadConfig, KNNConfig, fit_families,
                                   fit_predict_many, limit_threads)
from mirtune.tasks.protocol import Problem, Split, kfold, stratified_kfold  # noqa: F401 (re-exported)

# The search grid; `search_space` draws a few points from it with a fixed seed.
GRID = {
    "hidden": (32, 64, 128, 256),
    "lr": (3e-4, 1e-3, 3e-3, 1e-2),
    "weight_decay": (0.0, 1e-4, 1e-3, 1e-2),
}
GBT_GRID = {
    "max_iter": (100, 200, 400),
    "learning_rate": (0.03, 0.1, 0.3),
    "max_leaf_nodes": (7, 15, 31),
    "min_samples_leaf": (3, 10, 20),  # coarsening trains on 16 kernels per fold
    "l2_regularization": (0.0, 1.0),
    "max_features": (0.3, 1.0),
}
# strongest first, so that ties go to the simpler head; 1e6 is about the one choice best on average
GAIN_GRID = {"alpha": (1e6, 1e5, 1e4, 1e3, 100.0, 10.0, 1.0, 0.1)}
# weight 0 first: the one choice best on average wins ties
KNN_GRID = {"weight": (0.0, 0.25, 0.5, 0.75, 1.0), "k": (1, 3, 5, 10), "context_weight": (1.0, 0.0, 4.0)}
FOREST_GRID = {"min_samples_leaf": (3, 5, 10), "max_features": (0.5, 1.0, 0.3)}  # leaves of >= 3 rows: a small head
GAIN_HEADS = ("gain", "knn", "forest")  # heads that learn every choice's gain (and need Problem.gains)
DEFAULT_GAIN_HEADS = ("gain", "knn")  # what evaluate and fit choose from unless told (the shipped predictors' kinds)
INNER_SEED = 0  # the head seed used inside inner cross-validation
# How select_configs picks among the scored candidates: "best", the best inner score; "one-se", the one-standard-
# error rule (Hastie, Tibshirani and Friedman, The Elements of Statistical Learning, 7.10) over head kinds: the best
# candidate of the simplest kind (HEAD_COMPLEXITY) whose inner score is within one standard error (over the inner
# folds) of the best. A kNN or forest head must then beat the linear one by more than the inner folds disagree.
SELECTION_RULES = ("best", "one-se")
HEAD_COMPLEXITY = {"gain": 0}  # the linear gain head; every other kind counts as 1


def search_space(n_configs: int = 8, epochs: Sequence[int] = (50, 100, 200), seed: int = 0,
                 batch_size: int = 64, head: str = "mlp", pca: Sequence[int] = (0,)) -> list[dict[str, Any]]:
    """`n_configs` distinct head configurations of kind `head` ("mlp": GRID x epochs; "gbt": GBT_GRID; "gain":
    GAIN_GRID; "knn": KNN_GRID; "forest": FOREST_GRID), drawn
    with a fixed seed, each crossed with the embedding sizes `pca` (0: the whole embedding; K: its first K
    principal components). The draws do not depend on `pca`."""
    if any(int(k) < 0 for k in pca) or not len(pca):
        raise ValueError("pca sizes must be >= 0 (0 = the whole embedding)")
    rng = np.random.RandomState(seed)
    if head == "gbt":
        grid = list(itertools.product(*GBT_GRID.values()))
        picks = rng.choice(len(grid), size=min(n_configs, len(grid)), replace=False)
        base = [GBTConfig(**dict(zip(GBT_GRID, grid[i]))) for i in picks]
    elif head == "gain":
        grid = list(itertools.product(*GAIN_GRID.values()))
        picks = np.sort(rng.choice(len(grid), size=min(n_configs, len(grid)), replace=False))
        base = [GainConfig(**dict(zip(GAIN_GRID, grid[i]))) for i in picks]
    elif head == "knn":
        grid = [g for g in itertools.product(*KNN_GRID.values())
                if g[0] > 0 or (g[1], g[2]) == (KNN_GRID["k"][0], KNN_GRID["context_weight"][0])]
        picks = np.sort(rng.choice(len(grid), size=min(n_configs, len(grid)), replace=False))
        base = [KNNConfig(**dict(zip(KNN_GRID, grid[i]))) for i in picks]
    elif head == "forest":
        grid = list(itertools.product(*FOREST_GRID.values()))
        picks = np.sort(rng.choice(len(grid), size=min(n_configs, len(grid)), replace=False))
        base = [ForestConfig(**dict(zip(FOREST_GRID, grid[i]))) for i in picks]
    elif head == "mlp":
        grid = list(itertools.product(GRID["hidden"], GRID["lr"], GRID["weight_decay"], tuple(epochs)))
        picks = rng.choice(len(grid), size=min(n_configs, len(grid)), replace=False)
        base = [HeadConfig(hidden=int(h), lr=float(lr), weight_decay=float(wd), epochs=int(ep),
                           batch_size=batch_size) for h, lr, wd, ep in (grid[i] for i in picks)]
    else:
        raise ValueError(f"unknown head {head!r}; choose from {', '.join(HEADS)}")
    return [dict(cfg.to_dict(), pca=int(k)) for k in dict.fromkeys(int(k) for k in pca) for cfg in base]


def _fit(problem: Problem, train_idx: np.ndarray, test_idx: np.ndarray, configs: Sequence[dict], seed: int
         ) -> list[np.ndarray]:
    """Fit every configuration on the problem's rows `train_idx` and predict its rows `test_idx` (shared fits:
    `fit_predict_many`)."""
    gains = problem.gains[train_idx] if problem.gains is not None else None
    offsets = problem.offsets[test_idx] if problem.offsets is not None else None
    return fit_predict_many(problem.X[train_idx], problem.y[train_idx], problem.X[test_idx], problem.n_classes,
                            configs, seed, problem.keep_columns, gains, offsets)


def inner_cv_scores(problem: Problem, outer_k: int, configs: Sequence[dict], n_inner: int = 3,
                    fit: Callable[..., list[np.ndarray]] | None = None, per_fold: bool = False) -> np.ndarray:
    """Mean validation score of each configuration over inner folds cut from outer fold `outer_k`'s training rows
    ([n_inner, n_configs], every inner fold's, with `per_fold`).

    `fit(problem, train_idx, val_idx, configs, seed) -> predicted labels of val_idx per configuration`.
    """
    fit = fit or _fit
    train_idx, test_idx = problem.outer[outer_k]
    test = set(np.asarray(test_idx).tolist())
    scores = []
    for tr, va in problem.inner_splits(train_idx, n_inner, INNER_SEED + outer_k):
        if test.intersection(np.asarray(tr).tolist()) or test.intersection(np.asarray(va).tolist()):
            raise AssertionError(f"inner split of {problem.name} fold {outer_k} touches its test rows")
        scores.append([problem.score(va, pred) for pred in fit(problem, tr, va, configs, INNER_SEED)])
    if per_fold:
        return np.array(scores, dtype=np.float64).reshape(len(scores), len(configs))
    return np.mean(scores, axis=0) if scores else np.full(len(configs), np.nan)


def _metric_key(c: int, i: int, what: str = "inner") -> str:
    return f"{what}_{c}_{i}"


def score_family(problems: Sequence[Problem], configs: Sequence[dict], members: Sequence[int], n_inner: int
                 ) -> dict[str, float]:
    """Inner-CV scores of the candidates `members` (indices into `configs`, one `fit_key`) for every (problem,
    outer fold), flattened as inner_<candidate>_<column>, and their standard errors over the inner folds as
    se_<candidate>_<column>."""
    limit_threads(1)
    family = [configs[c] for c in members]
    folds = [inner_cv_scores(p, k, family, n_inner, per_fold=True) for p in problems for k in range(len(p.outer))]
    scores = np.array([f.mean(axis=0) if len(f) else np.full(len(members), np.nan) for f in folds]
                      ).reshape(-1, len(members))  # [column, member]
    se = np.array([f.std(axis=0, ddof=1) / np.sqrt(len(f)) if len(f) > 1 else np.zeros(len(members))
                   for f in folds]).reshape(-1, len(members))
    out = {_metric_key(c, i): float(scores[i, m]) for i in range(len(scores)) for m, c in enumerate(members)}
    out.update({_metric_key(c, i, "se"): float(se[i, m]) for i in range(len(se)) for m, c in enumerate(members)})
    out["score"] = float(np.nanmax(np.nanmean(scores, axis=0))) if len(scores) else float("nan")
    return out


def _trainable(config: dict, problems=None, configs=None, groups=None, n_inner: int = 3) -> None:
    from ray import tune

    tune.report(score_family(problems, configs, groups[config["family"]], n_inner))


def _NoteCallback(total: int, note: Callable[[str], None]):
    """A Ray Tune callback that notes each finished trial (Tune itself runs silent)."""
    from ray.tune import Callback

    class NoteCallback(Callback):
        def __init__(self) -> None:
            self.done = 0

        def on_trial_complete(self, iteration, trials, trial, **info):
            self.done += 1
            score = (trial.last_result or {}).get("score", float("nan"))
            note(f"trial {self.done}/{total} (candidate family {trial.config.get('family')}): "
                 f"best mean inner score {score:.4f}")

    return NoteCallback()


def select_configs(problems: Sequence[Problem], configs: Sequence[dict], n_inner: int = 3, use_ray: bool = True,
                   max_concurrent: int | None = None, note: Callable[[str], None] | None = None,
                   progress: Callable | None = None, rule: str = "best") -> dict[tuple[str, int], dict]:
    """The chosen configuration for every (problem name, outer fold index), by inner CV and `rule`
    (SELECTION_RULES; see the module doc). `progress(items, total=, desc=)` wraps the candidates scored in this
    process (a bar: this can take an hour)."""
    configs = list(configs)
    if not configs:
        raise MirtuneError("no candidate head configurations")
    if rule not in SELECTION_RULES:
        raise MirtuneError(f"unknown selection rule {rule!r}; choose from {', '.join(SELECTION_RULES)}")
    if any(c.get("head") in GAIN_HEADS for c in configs) and any(p.gains is None for p in problems):
        raise MirtuneError("a gain head needs the gain of every choice (so does a knn head), and this task provides "
                           "none")
    n_cols = sum(len(p.outer) for p in problems)
    table = np.full((len(configs), n_cols), np.nan)
    se = np.zeros((len(configs), n_cols))
    groups = fit_families(configs)

    def take(members: Sequence[int], scores: dict[str, float]) -> None:
        for c in members:
            table[c] = [scores[_metric_key(c, i)] for i in range(n_cols)]
            se[c] = [scores[_metric_key(c, i, "se")] for i in range(n_cols)]

    if len(configs) == 1:
        table[0] = 0.0
    elif use_ray:
        os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")  # verbose=0 then means silent (no experiment box)
        from ray import tune

        from mirtune.cluster import init_ray

        init_ray()
        callbacks = [_NoteCallback(len(groups), note)] if note else []
        storage = private_temp_dir("mirtune-tune-")  # one a killed run left behind goes at the next start
        try:
            trainable = tune.with_resources(
                tune.with_parameters(_trainable, problems=list(problems), configs=configs, groups=groups,
                                     n_inner=n_inner),
                {"cpu": 1})
            tuner = tune.Tuner(
                trainable,
                param_space={"family": tune.grid_search(list(range(len(groups))))},
                tune_config=tune.TuneConfig(metric="score", mode="max", reuse_actors=True,
                                            max_concurrent_trials=max_concurrent or 0),
                run_config=tune.RunConfig(name="head-selection", storage_path=str(storage), verbose=0,
                                          log_to_file=False, callbacks=callbacks))
            results = tuner.fit()
            for r in results:
                if r.error is not None:
                    raise MirtuneError(f"a head-selection trial failed: {type(r.error).__name__}: {r.error}")
                take(groups[r.config["family"]], r.metrics)
        finally:
            shutil.rmtree(storage, ignore_errors=True)
    else:
        numbered = enumerate(groups)
        for f, members in progress(numbered, total=len(groups), desc="head candidates") if progress else numbered:
            scores = score_family(problems, configs, members, n_inner)
            take(members, scores)
            if note:
                note(f"candidate family {f + 1}/{len(groups)}: best inner score {scores['score']:.4f}")
    chosen, i = {}, 0
    for p in problems:
        for k in range(len(p.outer)):
            col = np.where(np.isnan(table[:, i]), -np.inf, table[:, i])
            pick = chosen_by_rule(col, se[:, i], configs, rule)
            chosen[(p.name, k)] = dict(configs[pick], inner_score=float(col[pick]))
            i += 1
    return chosen


def chosen_by_rule(scores: np.ndarray, se: np.ndarray, configs: Sequence[dict], rule: str = "best") -> int:
    """The index of the candidate `rule` picks from their inner scores (-inf: not scored) and standard errors
    (SELECTION_RULES); ties go to the earlier candidate."""
    best = int(np.argmax(scores))
    if rule == "best":
        return best
    near = np.flatnonzero(scores >= scores[best] - se[best])  # within one standard error of the best
    simplest = min(HEAD_COMPLEXITY.get(configs[c].get("head"), 1) for c in near)
    near = [c for c in near if HEAD_COMPLEXITY.get(configs[c].get("head"), 1) == simplest]
    return int(near[int(np.argmax(scores[near]))])


def _fit_fold(problem: Problem, k: int, config: dict, seeds: Sequence[int]) -> np.ndarray:
    limit_threads(1)
    tr, te = problem.outer[k]
    cfg = {key: v for key, v in config.items() if key != "inner_score"}
    return np.stack([_fit(problem, tr, te, [cfg], s)[0] for s in seeds])


def _map_folds(fn: Callable, problems: Sequence[Problem], chosen: dict[tuple[str, int], dict], extra: tuple,
               use_ray: bool, progress: Callable | None) -> list[tuple[tuple[Problem, int], Any]]:
    """`fn(problem, k, chosen config, *extra)` for every (problem, outer fold k), on Ray or in-process."""
    jobs = [(p, k) for p in problems for k in range(len(p.outer))]
    if use_ray:
        import ray

        from mirtune.cluster import init_ray

        init_ray()
        remote = ray.remote(num_cpus=1)(fn)
        prefs = {p.name: ray.put(p) for p in problems}
        futures = [remote.remote(prefs[p.name], k, chosen[(p.name, k)], *extra) for p, k in jobs]
        ticks = iter(progress(range(len(futures)), total=len(futures), desc="fit heads")) if progress else None
        pending = list(futures)
        while pending:
            _, pending = ray.wait(pending, num_returns=1)
            if ticks is not None:
                next(ticks, None)
        results = ray.get(futures)
    else:
        it = progress(jobs, total=len(jobs), desc="fit heads") if progress else jobs
        results = [fn(p, k, chosen[(p.name, k)], *extra) for p, k in it]
    return list(zip(jobs, results))


def evaluate_outer(problems: Sequence[Problem], chosen: dict[tuple[str, int], dict], seeds: Sequence[int],
                   use_ray: bool = True, progress: Callable | None = None) -> dict[str, np.ndarray]:
    """Predictions [len(seeds), n_rows] per problem name (-1 for rows outside the evaluated folds)."""
    out = {p.name: np.full((len(seeds), len(p.y)), -1, dtype=np.int64) for p in problems}
    for (p, k), preds in _map_folds(_fit_fold, problems, chosen, (list(seeds),), use_ray, progress):
        out[p.name][:, p.outer[k][1]] = preds
    return out


def _gains_fold(problem: Problem, k: int, config: dict) -> np.ndarray:
    from mirtune.predict.heads import make_head

    limit_threads(1)
    tr, te = problem.outer[k]
    cfg = {key: v for key, v in config.items() if key != "inner_score"}
    head = make_head(problem.n_classes, cfg, INNER_SEED, problem.keep_columns)
    gains = head.fit(problem.X[tr], problem.y[tr], problem.gains[tr]).predict_gains(problem.X[te])
    return gains if problem.offsets is None else gains + problem.offsets[te]


def outer_gains(problems: Sequence[Problem], chosen: dict[tuple[str, int], dict], use_ray: bool = True,
                progress: Callable | None = None) -> dict[str, np.ndarray]:
    """Predicted gain of every choice [n_rows, n_classes] per problem name, each row predicted by the gain head
    chosen for, and fitted on the training rows of, the outer fold that holds it out (NaN outside every fold)."""
    out = {p.name: np.full((len(p.y), p.n_classes), np.nan) for p in problems}
    for (p, k), gains in _map_folds(_gains_fold, problems, chosen, (), use_ray, progress):
        out[p.name][p.outer[k][1]] = gains
    return out
