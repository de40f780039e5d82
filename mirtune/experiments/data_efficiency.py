"""How many labels does pre-training save? The data-efficiency study behind `mirtune evaluate data-efficiency devmap
--label-fractions 0.05,0.1,0.2,0.5,1.0 --compare frozen,scratch,finetune,ir2vec` (after Liu & Baghdadi, CC 2025).

For every outer fold of the task's published protocol, repeat and labelled fraction, a random subset of the fold's
TRAINING rows (stratified by label, seeded by fold and repeat, nested: the rows of a smaller fraction are among
those of every larger one) trains each method; the fold's test rows are predicted and scored as in the full
protocol. Methods (`METHODS`), all ending in the same MLP head (`heads.HeadConfig()` defaults, no search):
- frozen: the head on the frozen pre-trained encoder's embeddings ++ the task's context features;
- scratch: the same encoder architecture trained end to end from random weights on the subset only;
- finetune: the pre-trained encoder trained end to end on the subset (both: `mirtune.experiments.finetune`);
- ir2vec: the head on IR2Vec embeddings ++ the context features.
Every method of one (fold, repeat, fraction) sees the same rows.

Error = 1 - accuracy over the pooled test rows of the folds; mean and std over the repeats. The headline
`data_reduction_factor` is 1 / the smallest fraction f at which the frozen head's mean error is at most the mean
error of `scratch` trained on all the data, at f and at every larger fraction studied (so one lucky point does not
decide it), computed on the folds where both were run; per platform, and the headline is the smaller of the two.

The measured tasks (`mirtune evaluate data-efficiency openmp|vectorize|cuda_blocks --label-fractions ...`,
`data_efficiency_measured.run_measured`) follow the same plan on their own protocol, leave-one-application-out over
the collected datasets: a fraction is a random share of the outer fold's training APPLICATIONS (all groups of an
application together, at least `MIN_APPS`, nested and seeded per (fold, repeat): `app_subsets`); the heads are gain
heads (`heads.GainConfig()` defaults, ridge on every configuration's log gain, no search), the end-to-end models
regress the same log gains (`finetune`, objective "gain"), and the code-free baselines are reported at every
fraction: the configuration best on the subset (`tasks.measured.best_fixed`) and the default. The metric is the
geometric-mean share of the oracle over the pooled test groups (higher is better; error = 1 - share for the
factor), and the factor is given against scratch on all the data (where scratch ran) and against the best fixed
configuration on all the data.

This module is the plan both share (options, subsets, seeds, the factor, the jobs and where they run, the costs);
`data_efficiency_devmap` runs the study on devmap, `data_efficiency_measured` on the measured tasks, and
`data_efficiency_report` writes the table and the chart of either.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import numpy as np

from mirtune.errors import UsageError

METHODS = ("frozen", "scratch", "finetune", "ir2vec")
END_TO_END = ("scratch", "finetune")
HEAD_METHODS = {"frozen": "mirencoder", "ir2vec": "ir2vec"}  # method -> embedder
BASELINES = ("best_fixed", "default")  # measured tasks: code-free, chosen on the same subsets (the default on none)
MIN_APPS = 2  # the fewest training applications a subset of a measured task keeps


# ------------------------------------------------------------------------------------------------ options

def parse_fractions(text: str | None) -> list[float]:
    """Comma-separated fractions in (0, 1], ascending and distinct; UsageError otherwise."""
    try:
        values = sorted({float(t) for t in (text or "").split(",") if t.strip()})
    except ValueError:
        raise UsageError(f"--label-fractions takes numbers like 0.05,0.1,0.2,0.5,1.0, got {text!r}") from None
    if not values:
        raise UsageError("--label-fractions needs at least one fraction, e.g. 0.05,0.1,0.2,0.5,1.0")
    bad = [v for v in values if not 0.0 < v <= 1.0]
    if bad:
        raise UsageError(f"--label-fractions must lie in (0, 1]; got {bad[0]:g}")
    return values


def parse_methods(text: str | None) -> list[str]:
    """Comma-separated methods of `METHODS` (default all), in that order; UsageError for an unknown one."""
    names = [t.strip() for t in (text or ",".join(METHODS)).split(",") if t.strip()]
    bad = [n for n in names if n not in METHODS]
    if bad or not names:
        raise UsageError(f"unknown method {bad[0] if bad else text!r} in --compare; choose from {', '.join(METHODS)}")
    return [m for m in METHODS if m in names]


def resolve_folds(apps: Sequence[str], text: str | None, flag: str) -> list[int] | None:
    """Outer folds of leave-one-application-out named by application (or by index, 0-based, in the order of
    `apps`); None when the option is absent; UsageError for one that does not exist."""
    if text is None:
        return None
    apps = list(apps)
    out = []
    for token in (t.strip() for t in text.split(",")):
        if token in apps:
            out.append(apps.index(token))
        elif token.isdigit() and int(token) < len(apps):
            out.append(int(token))
        else:
            raise UsageError(f"{flag}: no held-out application {token!r}; give application names (e.g. "
                             f"{', '.join(apps[:3])}) or indices 0..{len(apps) - 1}")
    if not out:
        raise UsageError(f"{flag} needs at least one application")
    return sorted(set(out))


# ------------------------------------------------------------------------------------------------ subsets

def stratified_subsets(train_idx: np.ndarray, labels: np.ndarray, fractions: Sequence[float], seed: int
                       ) -> dict[float, np.ndarray]:
    """Nested, stratified random subsets of `train_idx` (sorted row indices), one per fraction: each class keeps
    round(f x its count) rows (at least one), the first of one seeded permutation of the class."""
    rng = np.random.RandomState(seed)
    train_idx = np.asarray(train_idx)
    perms = []
    for cls in np.unique(labels[train_idx]):
        members = train_idx[labels[train_idx] == cls]
        perms.append(members[rng.permutation(len(members))])
    return {float(f): np.sort(np.concatenate([p[:max(1, int(round(f * len(p))))] for p in perms]))
            for f in fractions}


def subset_seed(fold: int, repeat: int) -> int:
    """The seed of the subsets of one (outer fold, repeat): the same for every method and platform."""
    return 10_007 * int(repeat) + int(fold)


def plan_subsets(labels: dict[str, np.ndarray], fold_of: dict[str, np.ndarray], folds: Sequence[int],
                 fractions: Sequence[float], repeats: int
                 ) -> dict[tuple[str, int, int], tuple[np.ndarray, dict[float, np.ndarray]]]:
    """(test rows, {fraction: training rows}) for every (platform, outer fold, repeat), from each platform's labels
    and outer fold of every row; AssertionError if a subset holds a test row."""
    out = {}
    for platform, y in labels.items():
        fold = fold_of[platform]
        for k in folds:
            test = np.flatnonzero(fold == k)
            train = np.flatnonzero(fold != k)
            for r in range(repeats):
                subsets = stratified_subsets(train, y, fractions, subset_seed(k, r))
                for rows in subsets.values():
                    if np.intersect1d(rows, test).size:
                        raise AssertionError(f"{platform} fold {k}: a training subset holds test rows")
                out[(platform, k, r)] = (test, subsets)
    return out


def app_subsets(train_idx: np.ndarray, apps: Sequence[str], fractions: Sequence[float], seed: int,
                minimum: int = MIN_APPS) -> dict[float, np.ndarray]:
    """Nested random subsets of `train_idx` by APPLICATION, one per fraction: every row of the first
    max(`minimum`, round(f x the number of training applications)) applications (at most all) of one seeded
    permutation of them. An application's groups are never split, and the applications of a smaller fraction are
    among those of every larger one."""
    apps = np.asarray(apps)
    train_idx = np.asarray(train_idx)
    names = sorted(set(apps[train_idx].tolist()))
    order = [names[i] for i in np.random.RandomState(seed).permutation(len(names))]
    out = {}
    for f in fractions:
        n = min(len(order), max(minimum, int(round(f * len(order)))))
        out[float(f)] = np.sort(train_idx[np.isin(apps[train_idx], order[:n])])
    return out


def plan_app_subsets(apps: Sequence[str], folds: Sequence[tuple[np.ndarray, np.ndarray, str]],
                     fold_ids: Sequence[int], fractions: Sequence[float], repeats: int
                     ) -> dict[tuple[int, int], tuple[np.ndarray, dict[float, np.ndarray]]]:
    """(test rows, {fraction: training rows}) for every (outer fold, repeat) of leave-one-application-out folds
    (`tasks.measured.leave_one_app_out`); AssertionError if a subset holds a row of the held-out application."""
    apps = np.asarray(apps)
    out = {}
    for k in fold_ids:
        train, test, app = folds[k]
        for r in range(repeats):
            subsets = app_subsets(train, apps, fractions, subset_seed(k, r))
            for rows in subsets.values():
                if np.intersect1d(rows, test).size or (apps[rows] == app).any():
                    raise AssertionError(f"fold {k} ({app}): a training subset holds the held-out application")
            out[(k, r)] = (np.asarray(test), subsets)
    return out


# ------------------------------------------------------------------------------------------------ the factor

def reduction_factor(fractions: Sequence[float], frozen_error: Sequence[float], reference_error: float
                     ) -> tuple[float | None, float | None]:
    """(1 / f, f) for the smallest fraction f whose frozen error, and that of every larger fraction, is at most
    `reference_error`; (None, None) when even the largest fraction is worse."""
    order = np.argsort(fractions)
    f = np.asarray(fractions, dtype=float)[order]
    e = np.asarray(frozen_error, dtype=float)[order]
    ok = e <= reference_error + 1e-12
    if not ok[-1]:
        return None, None
    i = len(ok) - 1
    while i > 0 and ok[i - 1]:
        i -= 1
    return float(1.0 / f[i]), float(f[i])


def factor_figures(curves: dict[str, list[dict[str, Any]]], fractions: Sequence[float], reference: str = "scratch",
                   method: str = "frozen") -> dict[str, Any]:
    """The data-reduction factor of `method` (the frozen head, or the fine-tuned encoder) against `reference` on
    all the data (one platform or task), and the figures that decide it."""
    out: dict[str, Any] = {"data_reduction_factor": None, "fraction": None, "reference": reference, "method": method}
    ref = {c["fraction"]: c for c in curves.get(reference, [])}
    ours = {c["fraction"]: c for c in curves.get(method, [])}
    if 1.0 not in ref or set(ours) != set(fractions):
        out["why"] = f"needs {reference} at fraction 1.0 and {method} at every fraction"
        return out
    ref_error = ref[1.0]["error_mean"]
    factor, frac = reduction_factor(fractions, [ours[f]["error_mean"] for f in fractions], ref_error)
    out.update({"data_reduction_factor": factor, "fraction": frac, f"{reference}_full_error": ref_error,
                f"{reference}_full_error_std": ref[1.0]["error_std"], "reference_full_error": ref_error,
                f"{method}_error": {str(f): ours[f]["error_mean"] for f in fractions}})
    if factor is None:
        who = {"frozen": "the frozen head", "finetune": "the fine-tuned encoder"}.get(method, method)
        out["why"] = f"{who} is worse than {reference} on all the data even with all the labels"
    return out


# ------------------------------------------------------------------------------------------------ jobs

def end_to_end_job(init: str, model_dir: str | None, train_paths: list[str], train_ctx: np.ndarray,
                   train_y: np.ndarray, test_paths: list[str], test_ctx: np.ndarray, config: Any, seed: int,
                   objective: str = "classify") -> tuple[np.ndarray, dict]:
    """(test predictions, timings) of one end-to-end model trained on the given rows (`train_y`: labels, or every
    configuration's log gain for objective "gain")."""
    from mirtune.embedding import load_encoder
    from mirtune.experiments import finetune
    from mirtune.predict.heads import limit_threads

    limit_threads(1)
    loaded = load_encoder(model_dir)
    model, info = finetune.fit_end_to_end(init, loaded, finetune.load_samples(train_paths, loaded), train_ctx,
                                          train_y, config, seed, objective=objective)
    t0 = time.monotonic()
    pred = finetune.predict(model, finetune.load_samples(test_paths, loaded), test_ctx)
    info["predict_s"] = time.monotonic() - t0
    return pred, info


def run_jobs(jobs: list[tuple[tuple, Callable, tuple]], use_ray: bool, on_done: Callable[[tuple, Any], None]
             ) -> None:
    """Run `fn(*args)` for every (key, fn, args), one CPU each on Ray (or in this process), calling
    `on_done(key, result)` as each finishes."""
    if not use_ray:
        for key, fn, args in jobs:
            on_done(key, fn(*args))
        return
    import ray

    from mirtune.cluster import init_ray

    init_ray()
    remotes: dict[Callable, Any] = {}
    futures = {}
    for key, fn, args in jobs:
        remote = remotes.setdefault(fn, ray.remote(num_cpus=1)(fn))
        futures[remote.remote(*args)] = key
    pending = list(futures)
    while pending:  # short waits, so that Ctrl-C reaches Python
        done, pending = ray.wait(pending, num_returns=1, timeout=1.0)
        for ref in done:
            on_done(futures[ref], ray.get(ref))


# ------------------------------------------------------------------------------------------------ costs

def frozen_embed_cost(loaded: Any, paths: list[str], subsets: dict[float, np.ndarray]) -> dict[float, float]:
    """Seconds to embed each subset's training files, all their statements, with the frozen pre-trained encoder on
    one thread (from the encoder inputs, as the end-to-end fits start): the frozen method's cost besides its head."""
    import torch

    from mirtune.experiments.finetune import embed_samples, load_samples

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        out = {}
        for f, rows in subsets.items():
            samples = load_samples([paths[i] for i in rows], loaded)
            t0 = time.monotonic()
            embed_samples(loaded.encoder, samples)
            out[f] = time.monotonic() - t0
        return out
    finally:
        torch.set_num_threads(threads)


def fit_costs(timings: list[dict[str, Any]], fractions: Sequence[float], embed_cost: dict[float, float]
              ) -> dict[str, Any]:
    """Mean wall seconds to fit each method per fraction (same subsets, same run); the frozen method's total adds
    the inference pass that embeds the training files with the pre-trained encoder (`frozen_embed_cost`)."""
    out: dict[str, Any] = {}
    for f in fractions:
        row: dict[str, Any] = {}
        for m in METHODS + BASELINES:
            ts = [t["fit_s"] for t in timings if t["method"] == m and t["fraction"] == f]
            if ts:
                row[f"{m}_fit_s"] = round(float(np.mean(ts)), 3)
        if f in embed_cost and "frozen_fit_s" in row:
            row["frozen_embed_s"] = round(embed_cost[f], 3)
            row["frozen_total_s"] = round(row["frozen_embed_s"] + row["frozen_fit_s"], 3)
        steps = [t["steps"] for t in timings if t["method"] in END_TO_END and t["fraction"] == f]
        if steps:
            row["e2e_steps"] = int(np.mean(steps))
        if row:
            out[str(f)] = row
    return out
