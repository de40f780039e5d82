"""The search of `mirtune tune`, one module: which configurations are measured, in what order. Its first points come
from the predictor's ranking (`seed_configs`), then Ray Tune's OptunaSearch (TPE) proposes, never a configuration
already measured. `mirtune tune` runs it inside a Ray Tune `Tuner`; `mirtune evaluate tuning` replays recorded
measurements through the same search in-process (`search`), so that replayed and live figures are of one strategy.
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence

from mirtune.measure.measurer import METRIC

def config_key(params: dict[str, Any], space: dict[str, tuple[Any, ...]]) -> tuple:
    """A configuration's identity: its values in the space's parameter order."""
    return tuple(params.get(k) for k in space)


def all_configs(space: dict[str, tuple[Any, ...]]) -> list[dict[str, Any]]:
    """Every configuration of the space, in grid order."""
    return [dict(zip(space, vals)) for vals in itertools.product(*space.values())]


def seed_configs(ranking: Sequence[dict[str, Any]], space: dict[str, tuple[Any, ...]], k: int) -> list[dict[str, Any]]:
    """The search's first points from a predictor's ranking (configurations, best first, the default left out):
    where the space has thread counts, the best-ranked configuration at each of them (a count never ranked takes
    the best one's schedule and chunk), then the top-k; only points of `space`. What `tune` and its replay seed."""
    if k <= 0:
        return []
    ranked: list[dict[str, Any]] = []
    for entry in ranking:
        cfg = {p: entry.get(p) for p in space}
        if all(cfg[p] in space[p] for p in space) and cfg not in ranked:
            ranked.append(cfg)
    first: list[dict[str, Any]] = []
    if "threads" in space and ranked:
        for cfg in ranked:
            if all(c["threads"] != cfg["threads"] for c in first):
                first.append(cfg)
        for t in space["threads"]:
            if all(c["threads"] != t for c in first):
                first.append(dict(ranked[0], threads=t))
    return first + [c for c in ranked[:k] if c not in first]


REPEAT_ASKS = 50  # suggestions in a row that were all measured already: then the grid's first unmeasured one


def make_searcher(space: dict[str, tuple[Any, ...]], seeds: Sequence[dict[str, Any]] = (),
                  known: dict[tuple, float] | None = None, seed: int = 0):
    """The one search of `mirtune tune` and of its replay (`mirtune evaluate tuning`): Ray Tune's OptunaSearch
    (TPE, sampler seeded by `seed`, one categorical per parameter), the `seeds` its first points, told the `known`
    scores (configuration key -> score) and wrapped so that it never hands out a configuration already measured.
    It runs inside a Ray Tune `Tuner`, or is driven in-process with `suggest` / `on_trial_complete`."""
    import optuna
    from ray.tune.search.optuna import OptunaSearch

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    known = dict(known or {})
    dists = {k: optuna.distributions.CategoricalDistribution(list(v)) for k, v in space.items()}
    inner = OptunaSearch(space=dists, metric=METRIC, mode="max",
                         points_to_evaluate=[dict(s) for s in seeds] or None, seed=seed)
    for k, score in known.items():
        inner.add_evaluated_point(dict(zip(space, k)), score)
    return _known_points_searcher(inner, known, space)


def search(measurer, space: dict[str, tuple[Any, ...]], budget: int, seeds: Sequence[dict[str, Any]] = (),
           seed: int = 0) -> list[tuple[dict[str, Any] | None, Any]]:
    """`make_searcher`'s search driven in this process, one configuration at a time, over `measurer`
    (`mirtune.measure.measurer.Measurer`): the default first, then what the searcher suggests, until `budget`
    configurations are measured or the space is; [(configuration or None for the default, its Record)]."""
    from ray.tune.search import Searcher

    searcher = make_searcher(space, seeds, {}, seed)
    runs = [(None, measurer.measure(None))]
    while len(runs) < budget:
        trial_id = f"replay-{len(runs)}"
        cfg = searcher.suggest(trial_id)
        if cfg is None or cfg == Searcher.FINISHED:
            break
        rec = measurer.measure(cfg)
        searcher.on_trial_complete(trial_id, {METRIC: rec.score})
        runs.append((dict(cfg), rec))
    return runs


def _known_points_searcher(inner, known: dict[tuple, float], space: dict[str, tuple[Any, ...]]):
    """A Ray Tune Searcher around `inner` that never hands out a configuration already measured: those are told
    to `inner` with their known score, and it is asked again (after REPEAT_ASKS repeats, the first unmeasured
    configuration in grid order is taken). FINISHED once every configuration is known."""
    from ray.tune.search import Searcher

    class KnownPointsSearcher(Searcher):
        def __init__(self) -> None:
            super().__init__(metric=METRIC, mode="max")
            self.inner = inner
            self.known = known
            self.grid = all_configs(space)
            self.issued: dict[str, tuple[str | None, dict[str, Any]]] = {}
            self.pending: set[tuple] = set()
            self.n = 0

        def set_search_properties(self, metric, mode, config, **spec) -> bool:
            return self.inner.set_search_properties(metric, mode, config, **spec)

        def suggest(self, trial_id: str):
            taken = set(self.known) | self.pending
            if all(config_key(c, space) in taken for c in self.grid):
                return Searcher.FINISHED
            for _ in range(REPEAT_ASKS):
                self.n += 1
                inner_id = f"{trial_id}-{self.n}"
                cfg = self.inner.suggest(inner_id)
                if cfg is None or cfg == Searcher.FINISHED:
                    break
                key = config_key(cfg, space)
                if key in self.known:
                    self.inner.on_trial_complete(inner_id, {METRIC: self.known[key]})
                    continue
                if key in self.pending:  # running now: no score yet, tell it nothing useful
                    self.inner.on_trial_complete(inner_id, None, error=True)
                    continue
                self.issued[trial_id] = (inner_id, cfg)
                self.pending.add(key)
                return cfg
            cfg = next(c for c in self.grid if config_key(c, space) not in taken)
            self.issued[trial_id] = (None, cfg)
            self.pending.add(config_key(cfg, space))
            return dict(cfg)

        def save(self, checkpoint_path: str) -> None:
            """Nothing to save: the measurements in the output folder are the state a rerun resumes from."""

        def restore(self, checkpoint_path: str) -> None:
            """See `save`."""

        def on_trial_complete(self, trial_id: str, result=None, error: bool = False) -> None:
            inner_id, cfg = self.issued.pop(trial_id, (None, None))
            if cfg is None:
                return
            key = config_key(cfg, space)
            self.pending.discard(key)
            if result is not None and METRIC in result:
                self.known[key] = float(result[METRIC])
            if inner_id is not None:
                self.inner.on_trial_complete(inner_id, result, error=error)
            elif key in self.known:
                self.inner.add_evaluated_point(cfg, self.known[key])

    return KnownPointsSearcher()
