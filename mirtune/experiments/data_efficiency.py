"""How many labels does pre-training save? The data-efficiency study behind `mirtune evaluate published devmap
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

The measured tasks (`mirtune evaluate data-efficiency openmp|vectorize --label-fractions ...`, `run_measured`) follow the same
plan on their own protocol, leave-one-application-out over the collected datasets: a fraction is a random share of
the outer fold's training APPLICATIONS (all groups of an application together, at least `MIN_APPS`, nested and
seeded per (fold, repeat): `app_subsets`); the heads are gain heads (`heads.GainConfig()` defaults, ridge on every
configuration's log gain, no search), the end-to-end models regress the same log gains (`finetune`, objective
"gain"), and the code-free baselines are reported at every fraction: the configuration best on the subset
(`tasks.measured.best_fixed`) and the default. The metric is the geometric-mean share of the oracle over the pooled
test groups (higher is better; error = 1 - share for the factor), and the factor is given against scratch on all
the data (where scratch ran) and against the best fixed configuration on all the data.
"""

from __future__ import annotations

import time
from pathlib import Path
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


# ------------------------------------------------------------------------------------------------ jobs

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


def _e2e_job(init: str, model_dir: str | None, train_paths: list[str], train_ctx: np.ndarray, train_y: np.ndarray,
             test_paths: list[str], test_ctx: np.ndarray, config: Any, seed: int, objective: str = "classify"
             ) -> tuple[np.ndarray, dict]:
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


def _execute(jobs: list[tuple[tuple, Callable, tuple]], use_ray: bool, on_done: Callable[[tuple, Any], None]
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


# ------------------------------------------------------------------------------------------------ devmap

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
            embed_cost = _frozen_embed_cost(loaded, paths, plan[("amd", e2e_folds[0], 0)][1])
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
        jobs.append((("e2e", p, k, r, f, m), _e2e_job,
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

    _execute(jobs, use_ray, on_done)
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
    result["factor"] = {p: _factor(curves[p], fractions) for p in platforms}
    factors = [v["data_reduction_factor"] for v in result["factor"].values()]
    result["data_reduction_factor"] = (min(factors) if all(v is not None for v in factors) and factors else None)
    result["cost"] = _cost(timings, fractions, embed_cost)
    result["fits"] = timings
    result["wall_s"] = round(wall_s, 1)
    return result


def _factor(curves: dict[str, list[dict[str, Any]]], fractions: Sequence[float], reference: str = "scratch"
            ) -> dict[str, Any]:
    """The data-reduction factor of the frozen head against `reference` on all the data (one platform or task),
    and the figures that decide it."""
    out: dict[str, Any] = {"data_reduction_factor": None, "fraction": None, "reference": reference}
    ref = {c["fraction"]: c for c in curves.get(reference, [])}
    frozen = {c["fraction"]: c for c in curves.get("frozen", [])}
    if 1.0 not in ref or set(frozen) != set(fractions):
        out["why"] = f"needs {reference} at fraction 1.0 and frozen at every fraction"
        return out
    ref_error = ref[1.0]["error_mean"]
    factor, frac = reduction_factor(fractions, [frozen[f]["error_mean"] for f in fractions], ref_error)
    out.update({"data_reduction_factor": factor, "fraction": frac, f"{reference}_full_error": ref_error,
                f"{reference}_full_error_std": ref[1.0]["error_std"], "reference_full_error": ref_error,
                "frozen_error": {str(f): frozen[f]["error_mean"] for f in fractions}})
    if factor is None:
        out["why"] = f"the frozen head is worse than {reference} on all the data even with all the labels"
    return out


def _frozen_embed_cost(loaded: Any, paths: list[str], subsets: dict[float, np.ndarray]) -> dict[float, float]:
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


def _cost(timings: list[dict[str, Any]], fractions: Sequence[float], embed_cost: dict[float, float]
          ) -> dict[str, Any]:
    """Mean wall seconds to fit each method per fraction (same subsets, same run); the frozen method's total adds
    the inference pass that embeds the training files with the pre-trained encoder (`_frozen_embed_cost`)."""
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


# ------------------------------------------------------------------------------------------------ measured tasks

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


def _context(ir_paths: Sequence[str], task: str) -> np.ndarray:
    """The task's context features of each file, each distinct file read once."""
    from mirtune.predict.predictor import context_matrix

    distinct = list(dict.fromkeys(ir_paths))
    C = context_matrix([Path(p) for p in distinct], task)
    index = {p: i for i, p in enumerate(distinct)}
    return C[[index[p] for p in ir_paths]] if len(ir_paths) else C


def run_measured(task: str, data_paths: Sequence[str], fractions: Sequence[float], methods: Sequence[str],
                 repeats: int, folds: Sequence[int] | None = None, e2e_folds: Sequence[int] | None = None,
                 e2e_repeats: int | None = None, config: Any = None, model_dir: str | None = None,
                 program_dirs: Sequence[str] = (), use_ray: bool = True, note: Callable[[str], None] = print,
                 on_update: Callable[[dict[str, Any]], None] | None = None, head: dict | None = None,
                 problem: tuple | None = None) -> dict[str, Any]:
    """The study on a measured task (openmp, vectorize), leave-one-application-out; returns the JSON-ready result
    (`on_update` gets the result so far after every finished end-to-end fit). `folds`/`e2e_folds`: outer fold
    indices (held-out applications in the order of `mirtune.predict.held_out.held_out_problem`); the end-to-end methods run
    on `e2e_folds` (default `folds`, default all) with the first `e2e_repeats` repeats. `head`: the frozen and
    ir2vec methods' gain head (default `config.gain_head`, the end-to-end models' head). `problem`: what
    `held_out_problem(task, data_paths, program_dirs)` returned, when the caller has it already."""
    from mirtune.experiments.finetune import E2EConfig
    from mirtune.predict.held_out import held_out_problem
    from mirtune.predict.predictor import program_ir, program_matrix
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
    X = {m: program_matrix(table.sources, task, get_embedder(HEAD_METHODS[m], model_dir=model_dir
                                                             if m == "frozen" else None), note=note)
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
        context = _context(ir, task)
        loaded = load_encoder(model_dir)
        load_samples(sorted(set(ir)), loaded)  # built (and cached) once, before the workers read them
        note(f"{task}: encoder inputs of {len(set(ir))} IR files ready in {time.monotonic() - t0:.0f} s")
        if "frozen" in methods:  # each distinct file once (the groups of one program share its IR)
            first: dict[str, int] = {}
            for i, path in enumerate(ir):
                first.setdefault(path, i)
            embed_cost = _frozen_embed_cost(loaded, ir, {f: np.array(sorted({first[ir[i]] for i in rows}))
                                                         for f, rows in plan[(e2e_folds[0], 0)][1].items()})
        top = fractions[-1]
        e2e_keys = sorted(((k, r, f, m) for (k, r) in plan if k in e2e_folds and r < e2e_repeats
                           for f in fractions for m in e2e),
                          key=lambda j: (j[1], j[2] != top, j[3] != "scratch", j[2], j[3], j[0]))
        for k, r, f, m in e2e_keys:
            test, subsets = plan[(k, r)]
            rows = subsets[f]
            jobs.append((("e2e", k, r, f, m), _e2e_job,
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
    _execute(jobs, use_ray, on_done)
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
    vs_scratch = _factor(curves, fractions, "scratch")
    if "scratch" not in methods:
        vs_scratch["why"] = "scratch was not run (not in --compare): no data_reduction_factor"
    vs_fixed = _factor(all_fold_curves, fractions, "best_fixed")
    for fac in (vs_scratch, vs_fixed):
        if "reference_full_error" in fac:
            fac["reference_full_share"] = round(1 - fac["reference_full_error"], 5)
            fac["frozen_share"] = {f: round(1 - e, 5) for f, e in fac["frozen_error"].items()}
    vs_fixed["folds"] = result["folds"]  # both ran on every fold
    vs_scratch["folds"] = result["comparison_folds"]
    result["factor"] = {"vs_scratch": vs_scratch, "vs_best_fixed": vs_fixed}
    result["data_reduction_factor"] = vs_scratch["data_reduction_factor"]
    result["data_reduction_factor_vs_best_fixed"] = vs_fixed["data_reduction_factor"]
    result["cost"] = _cost(all_timings, fractions, embed_cost)
    result["fits"] = e2e_timings
    result["wall_s"] = round(wall_s, 1)
    return result


def _measured_table(result: dict[str, Any]) -> str:
    """The share-of-oracle table per fraction, the factors with the figures that decide them, and the costs."""
    from mirtune.tables import format_table

    def block(curves: dict[str, list[dict[str, Any]]]) -> list[list[str]]:
        rows = []
        for f in result["fractions"]:
            cells = {m: next((c for c in pts if c["fraction"] == f), None) for m, pts in curves.items()}
            first = next((c for c in cells.values() if c), None)
            reps = "/".join(str(n) for n in dict.fromkeys(c["repeats"] for c in cells.values() if c)) or "0"
            rows.append([f"{f:g}", "-" if first is None else f"{first['n_apps']:.0f}",
                         "-" if first is None else f"{first['n_train']:.0f}"]
                        + [f"{c['share_mean']:.3f}±{c['share_std']:.3f}" if c else "-" for c in cells.values()]
                        + [reps])
        return rows

    folds = result["comparison_folds"]
    where = (f"{len(folds)} held-out applications ({result['comparison_groups']} test groups)"
             if len(folds) < result["applications"] else f"all {result['applications']} held-out applications")
    out = [f"{result['task']} data efficiency ({result['protocol']}): geometric-mean share of the oracle (higher is "
           f"better), mean±std over repeats, on {where} ({result['status']})",
           format_table(["fraction", "train apps", "train groups"] + list(result["curves"]) + ["repeats"],
                        block(result["curves"]))]
    if result.get("curves_all_folds"):
        out += ["", f"heads and code-free baselines on {len(result['folds'])} held-out applications",
                format_table(["fraction", "train apps", "train groups"] + list(result["curves_all_folds"])
                             + ["repeats"], block(result["curves_all_folds"]))]
    out.append("")
    for name, fac in result["factor"].items():
        ref = fac["reference"]
        if fac.get("reference_full_share") is None:
            out.append(f"{ref}: no factor ({fac.get('why')})")
            continue
        frozen = ", ".join(f"{k}: {v:.3f}" for k, v in fac["frozen_share"].items())
        verdict = (f"from fraction {fac['fraction']:g} on -> factor {fac['data_reduction_factor']:g}"
                   if fac["data_reduction_factor"] is not None else "never -> no factor")
        out.append(f"vs {ref} on all the data ({fac['reference_full_share']:.3f}): frozen head {frozen}; at least "
                   f"as good {verdict}")
    out.append(f"data_reduction_factor ({result['task']}, vs scratch): {result['data_reduction_factor']}; vs best "
               f"fixed: {result['data_reduction_factor_vs_best_fixed']}")
    if result["cost"]:
        cols = ["frozen_fit_s", "frozen_embed_s", "frozen_total_s", "ir2vec_fit_s", "best_fixed_fit_s",
                "finetune_fit_s", "scratch_fit_s", "e2e_steps"]
        cols = [c for c in cols if any(c in r for r in result["cost"].values())]
        rows = [[f] + [f"{r[c]:.3f}" if c in r and c != "e2e_steps" else str(r.get(c, "-")) for c in cols]
                for f, r in result["cost"].items()]
        out += ["", "cost: mean wall seconds per fit (same subsets, same run, one CPU each); frozen_total = embedding "
                    "the training files with the pre-trained encoder + fitting the head",
                format_table(["fraction"] + cols, rows)]
    return "\n".join(out)


def _measured_plot(result: dict[str, Any], out: Path) -> None:
    """Share of the oracle against the labelled fraction per method: on the comparison folds, and (when the
    end-to-end methods ran on fewer) the heads and baselines on all folds."""
    from mirtune.figures import pyplot, save

    plt = pyplot()

    style = {"frozen": ("black", "o", "-"), "finetune": ("tab:blue", "s", "-"), "scratch": ("tab:red", "^", "-"),
             "ir2vec": ("tab:green", "D", "-"), "best_fixed": ("0.45", "x", "--"), "default": ("0.7", "", ":")}
    names = {"frozen": "frozen pre-trained encoder + gain head", "best_fixed": "best fixed configuration (no code)",
             "default": "default configuration"}
    panels = [("comparison", result["curves"], result["comparison_folds"])]
    if result.get("curves_all_folds"):
        panels.append(("heads", result["curves_all_folds"], result["folds"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.6), sharey=True, squeeze=False)
    for ax, (kind, curves, folds) in zip(axes[0], panels):
        for m, pts in curves.items():
            if pts:
                colour, marker, ls = style[m]
                ax.errorbar([c["fraction"] for c in pts], [c["share_mean"] for c in pts],
                            yerr=[c["share_std"] for c in pts], color=colour, marker=marker or None, ls=ls,
                            capsize=3, label=names.get(m, m))
        ax.set_xscale("log")
        ax.set_xticks(result["fractions"], [f"{f:g}" for f in result["fractions"]])
        ax.set_xlabel("labelled fraction of each fold's training applications")
        ax.grid(alpha=0.3)
        n = len(folds)
        where = f"{n} held-out applications" if n < result["applications"] else "all held-out applications"
        lines = [where]
        if kind == "comparison":
            factor = result["factor"]["vs_scratch"].get("data_reduction_factor")
            lines.append(f"factor vs scratch on all the data: {factor:g}" if factor else
                         "no factor vs scratch" + (" (not run)" if "scratch" not in result["curves"] else ""))
        if kind == "heads" or not result.get("curves_all_folds"):
            factor = result["factor"]["vs_best_fixed"].get("data_reduction_factor")
            lines.append(f"factor vs best fixed on all the data: {factor:g}" if factor else
                         "no factor vs best fixed on all the data")
        title = "\n".join(lines)
        ax.set_title(title, fontsize=9)
    axes[0][0].set_ylabel("share of the oracle (geometric mean; higher is better)")
    axes[0][0].legend(fontsize=7)
    e2e = f", end-to-end methods {result['e2e_repeats']}" if result.get("e2e_repeats") else ""
    fig.suptitle(f"{result['task']} ({result['protocol']}): share of the oracle against labelled data,\nmean±std "
                 f"over {result['repeats']} repeats{e2e}", fontsize=10)
    fig.tight_layout()
    save(fig, out, dpi=120)


# ------------------------------------------------------------------------------------------------ output

def _measured(result: dict[str, Any]) -> bool:
    """Whether a study's result is of a measured task (its table and chart are the shares of the oracle)."""
    from mirtune.tasks import registry

    return registry.get(result["task"]).kind == registry.MEASURED


def _pct(mean: float, std: float) -> str:
    return f"{100 * mean:.1f}±{100 * std:.1f}"


def table(result: dict[str, Any]) -> str:
    """The error table per platform and fraction, the factors with the figures that decide them, and the costs
    (for a measured task: the share of the oracle per fraction, `_measured_table`)."""
    from mirtune.tables import format_table

    if _measured(result):
        return _measured_table(result)
    from mirtune.tasks.devmap import PLATFORMS

    methods = result["methods"]
    rows = []
    for p, by_method in result["curves"].items():
        for f in result["fractions"]:
            cells = {m: next((c for c in by_method[m] if c["fraction"] == f), None) for m in methods}
            n_train = next((c["n_train"] for c in cells.values() if c), None)
            reps = "/".join(str(n) for n in dict.fromkeys(c["repeats"] for c in cells.values() if c)) or "0"
            rows.append([p, f"{f:g}", "-" if n_train is None else f"{n_train:.0f}"]
                        + [_pct(c["error_mean"], c["error_std"]) if c else "-" for m, c in cells.items()]
                        + [reps])
    out = [f"{result['task']} data efficiency: error % (1 - accuracy), mean±std over repeats, comparison folds "
           f"{result['comparison_folds']} of {result['fold_column']} ({result['status']})",
           format_table(["platform", "fraction", "train rows"] + methods + ["repeats"], rows)]
    if result.get("curves_all_folds"):
        rows = []
        for p, by_method in result["curves_all_folds"].items():
            for f in result["fractions"]:
                cells = [next((c for c in by_method[m] if c["fraction"] == f), None) for m in by_method]
                rows.append([p, f"{f:g}"] + [_pct(c["error_mean"], c["error_std"]) if c else "-" for c in cells])
        out += ["", f"heads on all folds {result['folds']}: error %",
                format_table(["platform", "fraction"] + list(next(iter(result["curves_all_folds"].values()))), rows)]
    out.append("")
    for p, fac in result["factor"].items():
        if fac.get("scratch_full_error") is None:
            out.append(f"{PLATFORMS[p]}: no factor ({fac.get('why')})")
            continue
        frozen = ", ".join(f"{k}: {100 * v:.1f}%" for k, v in fac["frozen_error"].items())
        verdict = (f"from fraction {fac['fraction']:g} on -> data_reduction_factor {fac['data_reduction_factor']:g}"
                   if fac["data_reduction_factor"] is not None else "never -> no factor")
        out.append(f"{PLATFORMS[p]}: scratch on all the data {100 * fac['scratch_full_error']:.1f}% error; frozen "
                   f"head {frozen}; at least as good {verdict}")
    out.append(f"data_reduction_factor ({result['task']}, the smaller over the platforms): "
               f"{result['data_reduction_factor']}")
    if result["cost"]:
        cols = ["frozen_fit_s", "frozen_embed_s", "frozen_total_s", "ir2vec_fit_s", "finetune_fit_s",
                "scratch_fit_s", "e2e_steps"]
        cols = [c for c in cols if any(c in r for r in result["cost"].values())]
        rows = [[f] + [f"{r[c]:.2f}" if c in r and c != "e2e_steps" else str(r.get(c, "-")) for c in cols]
                + ([f"{r['scratch_fit_s'] / r['frozen_total_s']:.0f}x"] if "scratch_fit_s" in r and
                   "frozen_total_s" in r else ["-"])
                for f, r in result["cost"].items()]
        out += ["", "cost: mean wall seconds per fit (same subsets, same run, one CPU each); frozen_total = embedding "
                    "the training files with the pre-trained encoder + fitting the head",
                format_table(["fraction"] + cols + ["scratch / frozen_total"], rows)]
    return "\n".join(out)


def plot(result: dict[str, Any], out: Path) -> None:
    """Error against the labelled fraction per method, one panel per platform (for a measured task: the share of
    the oracle, `_measured_plot`)."""
    if _measured(result):
        return _measured_plot(result, out)
    from mirtune.figures import pyplot, save

    plt = pyplot()

    from mirtune.tasks.devmap import PLATFORMS

    style = {"frozen": ("black", "o"), "finetune": ("tab:blue", "s"), "scratch": ("tab:red", "^"),
             "ir2vec": ("tab:green", "D")}
    platforms = list(result["curves"])
    fig, axes = plt.subplots(1, len(platforms), figsize=(6 * len(platforms), 4.6), sharey=True, squeeze=False)
    for ax, p in zip(axes[0], platforms):
        for m, pts in result["curves"][p].items():
            if pts:
                colour, marker = style[m]
                ax.errorbar([c["fraction"] for c in pts], [100 * c["error_mean"] for c in pts],
                            yerr=[100 * c["error_std"] for c in pts], color=colour, marker=marker, capsize=3,
                            label={"frozen": "frozen pre-trained encoder + head"}.get(m, m))
        fac = result["factor"][p]
        if fac.get("scratch_full_error") is not None:
            ax.axhline(100 * fac["scratch_full_error"], color="tab:red", ls="--", lw=0.8,
                       label="scratch, all labels")
        ax.set_xscale("log")
        ax.set_xticks(result["fractions"], [f"{f:g}" for f in result["fractions"]])
        ax.set_xlabel("labelled fraction of each training fold")
        ax.grid(alpha=0.3)
        factor = fac.get("data_reduction_factor")
        ax.set_title(f"{PLATFORMS[p]}: data reduction factor {factor:g}" if factor else
                     f"{PLATFORMS[p]}: no data reduction factor")
    axes[0][0].set_ylabel("error % (1 - accuracy)")
    axes[0][0].legend(fontsize=8)
    e2e = f", end-to-end methods {result['e2e_repeats']}" if result.get("e2e_repeats") else ""
    fig.suptitle(f"{result['task']}: error against labelled data, mean±std over {result['repeats']} repeats{e2e}, "
                 f"folds {result['comparison_folds']}", fontsize=10)
    fig.tight_layout()
    save(fig, out, dpi=120)
