"""The one measurement interface: a recorded dataset replays its measurements exactly, and `mirtune tune`'s own
search (`mirtune.predict.search.make_searcher`, driven by its `search`) is what `evaluate tuning` replays,
reproducibly."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from mirtune.measure.measurer import MISSING, Record, RecordedMeasurer
from mirtune.measure.records import read_rows
from mirtune.predict import search as tune_search

REPO = Path(__file__).resolve().parents[2]


def test_a_recorded_group_replays_its_measurements_exactly():
    rows = read_rows(REPO / "datasets" / "vectorize")
    program, size = rows.iloc[0]["program"], rows.iloc[0]["input_size"]
    group = rows[(rows["program"] == program) & (rows["input_size"] == size)].to_dict("records")
    default = next(r for r in group if r["is_default"])
    m = RecordedMeasurer.from_rows(("vf", "if"), group)
    assert m.measure(None) == Record(1.0)
    checked = 0
    for r in group:
        if r["is_default"]:
            continue
        rec = m.measure({"vf": r["vf"], "if": r["if"]})
        expected = default["median_s"] / r["median_s"] if r["status"] == "ok" else 0.0
        assert rec.score == expected and rec.status == r["status"] and rec.row["point_id"] == r["point_id"]
        checked += 1
    assert checked == len(group) - 1 > 10
    assert m.measure({"vf": 3, "if": 3}) == Record(0.0, MISSING)  # never measured: a run that scores 0


def _space_and_measurer(seed: int = 0):
    space = {"threads": (1, 2), "schedule": ("dynamic", "guided", "static"), "chunk": (1, 8, 64, 512)}
    configs = [{}] + [dict(zip(space, v)) for v in itertools.product(*space.values())]
    speedups = np.exp(np.random.default_rng(seed).normal(0, 0.4, len(configs)))
    speedups[3] = np.nan  # a failed configuration
    return space, RecordedMeasurer.from_speedups(tuple(space), configs, speedups)


def test_tunes_search_is_reproducible_and_never_measures_twice():
    space, m = _space_and_measurer()
    seeds = tune_search.seed_configs([{"threads": 2, "schedule": "static", "chunk": 8}], space, 3)
    assert seeds == [{"threads": 2, "schedule": "static", "chunk": 8}, {"threads": 1, "schedule": "static", "chunk": 8}]
    runs = tune_search.search(m, space, 25, seeds, seed=5)
    assert runs[0][0] is None and [c for c, _ in runs[1:3]] == seeds  # the default, then the seeds
    keys = [m.key(c) for c, _ in runs[1:]]
    assert len(keys) == len(set(keys)) == 24  # the whole space, each configuration once
    again = tune_search.search(m, space, 12, seeds, seed=5)
    other = tune_search.search(m, space, 12, seeds, seed=6)
    assert [c for c, _ in again] == [c for c, _ in runs[:12]]  # OptunaSearch's seed makes a run reproducible
    assert [c for c, _ in other] != [c for c, _ in again]


def test_the_replay_drives_tunes_own_searcher_with_tunes_seeds(monkeypatch):
    from mirtune.experiments import tune_replay

    made = []
    real = tune_search.make_searcher

    def spy(space, seeds=(), known=None, seed=0):
        made.append((dict(space), [dict(s) for s in seeds], seed))
        return real(space, seeds, known, seed)

    monkeypatch.setattr(tune_search, "make_searcher", spy)
    space, m = _space_and_measurer()
    configs = [{}] + [dict(zip(space, v)) for v in itertools.product(*space.values())]
    row = np.array([1.0] + [m.measure(c).score or np.nan for c in configs[1:]])
    sp = tune_replay.search_space(configs)
    ranking = [5, 1, 2, 3]
    runs = tune_replay.optuna_runs(row, sp, 10, 7, tune_replay.tune_seeds(ranking, sp, 3))
    ranked = [dict(zip(sp.names, k)) for k in sp.keys(ranking)]
    assert made == [(sp.as_dict(), tune_search.seed_configs(ranked, sp.as_dict(), 3), 7)]
    # the same searcher driven directly over the recorded measurer proposes the same configurations
    direct = tune_search.search(RecordedMeasurer.from_speedups(sp.names, configs, row), sp.as_dict(), 10,
                                tune_search.seed_configs(ranked, sp.as_dict(), 3), 7)
    assert runs == [r.score for _, r in direct]
