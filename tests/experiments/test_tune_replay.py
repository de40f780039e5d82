"""Tuning runs replayed on gain tables: the search space, what a run costs, and the figures of every strategy."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from mirtune.errors import UsageError
from mirtune.experiments import tune_replay
from mirtune.experiments.tune_replay import STRATEGIES, optuna_runs, rankings, replay, run_value, search_space, shares
from mirtune.tasks import openmp
from mirtune.tasks.measured import GainTable

REPO = Path(__file__).resolve().parents[2]


def _table(speedups: np.ndarray, configs: list[dict], apps: list[str]) -> GainTable:
    """A gain table whose speedups are `speedups` (NaN: failed), configs[0] the default."""
    n = len(speedups)
    times = 1.0 / np.asarray(speedups, dtype=np.float64)
    return GainTable(spec=openmp.SPEC, configs=configs, labels=[f"c{i}" for i in range(len(configs))],
                     programs=[f"p{g}" for g in range(n)], sizes=["1"] * n, apps=apps,
                     sources=[Path(f"p{g}.c") for g in range(n)], times=times,
                     statuses=[["ok" if np.isfinite(s) else "crash" for s in row] for row in speedups],
                     cv=np.zeros_like(times))


def _openmp_like(n_groups: int = 8, seed: int = 0, failures: int = 3) -> GainTable:
    """threads x schedule x chunk, the default first (empty, as the collector's), some failed cells."""
    configs = [{}] + [{"power_w": None, "threads": t, "schedule": s, "chunk": c}
                      for t, s, c in itertools.product((1, 2), ("dynamic", "static"), (1, 8))]
    rng = np.random.default_rng(seed)
    s = np.exp(rng.normal(0, 0.4, (n_groups, len(configs))))
    s[:, 0] = 1.0
    for _ in range(failures):
        s[rng.integers(n_groups), rng.integers(1, len(configs))] = np.nan
    return _table(s, configs, [f"app{g // 2}" for g in range(n_groups)])


def test_search_space_leaves_out_the_default_and_constant_parameters():
    t = _openmp_like()
    space = search_space(t.configs)
    assert space.names == ("threads", "schedule", "chunk")  # power_w is never swept
    assert space.choices == ((1, 2), ("dynamic", "static"), (1, 8)) and space.size == 8
    assert sorted(space.column.values()) == list(range(1, 9))  # every non-default column, never the default's
    assert space.column[(2, "static", 8)] == t.configs.index({"power_w": None, "threads": 2, "schedule": "static",
                                                              "chunk": 8})


def test_curves_never_decrease_and_never_pass_the_oracle():
    t = _openmp_like(n_groups=10, failures=6)
    gains = np.random.default_rng(1).normal(size=t.speedups.shape)
    result = replay(t, gains, budget=6, seeds=range(3), top_k=2)
    assert list(result["strategies"]) == list(STRATEGIES)
    for name, f in result["strategies"].items():
        curve, reached = np.array(f["curve"]), np.array(f["reached_by"])
        assert len(curve) == 6 and np.all(np.diff(curve) >= -1e-9) and np.all(np.diff(reached) >= -1e-9), name
        assert np.all(curve <= 1.0 + 1e-9) and f["share_at"]["1"] == f["curve"][0]
        runs = np.array(f["runs_to_target"])
        assert runs.shape == (10, 3 if name in tune_replay.STOCHASTIC else 1)
        assert f["never_reach"] == int((runs == 7).sum()) and runs.min() >= 1


def test_grid_with_a_budget_of_every_configuration_finds_the_oracle():
    t = _openmp_like(n_groups=6)
    result = replay(t, np.zeros(t.speedups.shape), budget=len(t.configs), seeds=[0])
    grid = result["strategies"]["grid"]
    assert grid["curve"][-1] == pytest.approx(1.0) and grid["never_reach"] == 0
    # one run fewer misses the last configuration: the groups whose oracle it is never reach it
    short = replay(t, np.zeros(t.speedups.shape), budget=len(t.configs) - 1, seeds=[0])["strategies"]["grid"]
    last_is_best = int((np.nanargmax(t.speedups, axis=1) == len(t.configs) - 1).sum())
    assert short["never_reach"] >= last_is_best


def test_a_predictor_that_knows_the_speedups_finds_the_oracle_in_two_runs():
    t = _openmp_like(n_groups=8, failures=0)
    t.times[:, 1] = t.times[:, 0] / 5.0  # column 1 the oracle everywhere, well above 0.95 of anything else
    oracle_gains = np.log(t.speedups)
    result = replay(t, oracle_gains, budget=5, seeds=range(2), top_k=3)
    for name in ("predictor top-1", "predictor-seeded optuna"):
        f = result["strategies"][name]
        assert f["curve"][1] == pytest.approx(1.0) and f["median_runs_to_target"] == 2 and f["never_reach"] == 0
        assert f["groups_needing_tuning"] == 8 and f["median_runs_to_target_needing_tuning"] == 2
    assert result["strategies"]["predictor top-1"]["runs_to_target"] == [[2]] * 8
    assert all(g["predicted_top"][0] == "c1" for g in result["groups"])
    # a predictor that ranks the oracle last does not find it in 2 runs
    worst = replay(t, -oracle_gains, budget=5, seeds=[0])["strategies"]["predictor top-1"]
    assert worst["curve"][1] < 0.5 and worst["never_reach"] == 8
    assert result["strategies"]["grid"]["median_runs_to_target_needing_tuning"] == 2  # column 1 is first in order


def test_the_default_is_never_ranked_and_always_runs_first():
    gains = np.array([[5.0, 1.0, 3.0, 2.0]])
    assert rankings(gains).tolist() == [[2, 3, 1]]
    row = np.array([1.0, 2.0, 0.5, 4.0])
    assert tune_replay.fixed_runs(row, [3, 1], budget=2) == [1.0, 4.0]


def test_the_code_free_ranking_never_reads_the_held_out_application():
    t = _openmp_like(n_groups=6, failures=0)
    before = tune_replay.code_free_gains(t)
    t.times[:2] = t.times[:2, :1] / np.linspace(0.5, 3.0, len(t.configs))  # app0's groups change completely
    after = tune_replay.code_free_gains(t)
    assert np.allclose(before[:2], after[:2])  # app0's own ranking is unchanged
    assert not np.allclose(before[2:], after[2:])  # the other applications' rankings learn from app0
    assert np.allclose(after[2], np.log(np.delete(t.speedups, [2, 3], axis=0)).mean(axis=0))


def test_a_repeated_suggestion_costs_no_run():
    configs = [{}] + [{"vf": v} for v in (1, 2, 4)]  # three combinations: TPE repeats them within a few asks
    row = np.array([1.0, 1.5, 0.7, 1.2])
    runs = optuna_runs(row, search_space(configs), budget=10, seed=0)
    assert runs[0] == 1.0 and sorted(runs[1:]) == [0.7, 1.2, 1.5]  # each combination measured once, then stop
    seeded = optuna_runs(row, search_space(configs), budget=10, seed=0, first=[3])
    assert seeded[:2] == [1.0, 1.2] and sorted(seeded[1:]) == [0.7, 1.2, 1.5]


def test_failed_and_missing_configurations_cost_a_run_and_never_count_as_best():
    configs = [{}, {"vf": 1, "if": 1}, {"vf": 1, "if": 2}, {"vf": 2, "if": 1}]  # (vf 2, if 2) was never measured
    row = np.array([1.0, np.nan, 1.3, 0.8])
    space = search_space(configs)
    assert space.size == 4 and (2, 2) not in space.column
    assert run_value(row, 1) == 0.0 and run_value(row, space.column.get((2, 2))) == 0.0
    runs = optuna_runs(row, space, budget=10, seed=3)
    assert len(runs) == 5 and sorted(runs) == [0.0, 0.0, 0.8, 1.0, 1.3]  # both tries spent a run, scored 0
    assert shares([1.0, 0.0], oracle=1.3, budget=3).tolist() == pytest.approx([1 / 1.3] * 3)
    t = _table(np.array([row, [1.0, np.nan, 0.9, 2.0]]), configs, ["a", "b"])
    result = replay(t, np.array([[0.0, 9.0, 0.0, 0.0]] * 2), budget=3, seeds=[0])  # the failed one ranked first
    top1 = result["strategies"]["predictor top-1"]
    assert [g["predicted_top"][0] for g in result["groups"]] == ["c1", "c1"]
    assert top1["curve"][1] == pytest.approx(top1["curve"][0]) and top1["never_reach"] == 2
    assert [g["oracle_speedup"] for g in result["groups"]] == [1.3, 2.0]


def test_bad_settings_are_one_usage_error():
    t = _openmp_like(n_groups=2)
    for kwargs in ({"budget": 1}, {"top_k": 0}, {"seeds": []}):
        with pytest.raises(UsageError):
            replay(t, np.zeros(t.speedups.shape), **kwargs)


def test_table_and_plot(tmp_path):
    t = _openmp_like(n_groups=4)
    result = replay(t, np.log(np.nan_to_num(t.speedups, nan=0.1)), budget=4, seeds=[0, 1])
    result.update(task="openmp", group_count=4, applications=2, configurations=t.labels, protocol="loao")
    text = tune_replay.table(result)
    assert all(name in text for name in STRATEGIES) and "share@3" in text and "target" in text
    tune_replay.plot(result, tmp_path / "curves.png")
    assert (tmp_path / "curves.png").stat().st_size > 1000
    json.dumps(result)  # JSON-ready


def test_command_on_the_vectorize_dataset(tmp_path, capsys):
    from mirtune import cli

    out = tmp_path / "tuning.json"
    rc = cli.main(["evaluate", "tuning", "--task", "vectorize", "--data", str(REPO / "datasets" / "vectorize"),
                   "--quick", "--configs", "1", "--no-ray", "--seeds", "1", "--budget", "3", "--json", str(out)])
    printed = capsys.readouterr()
    assert rc == 0, printed.err
    result = json.loads(out.read_text())
    assert result["group_count"] == 48 and result["applications"] == 32 and len(result["chosen_heads"]) == 32
    assert list(result["strategies"]) == list(STRATEGIES) and result["settings"]["budget"] == 3
    assert result["space"] == {"vf": [1, 2, 4, 8, 16, 32, 64], "if": [1, 2, 4, 8, 16]}
    assert out.with_suffix(".png").stat().st_size > 1000 and "predictor-seeded optuna" in printed.out


def test_command_bad_input_is_one_line(capsys):
    from mirtune import cli

    for argv, fragment in ((["--task", "devmap"], "needs --task"), (["--task", "openmp", "--budget", "1"], "at least 2"),
                           (["--task", "openmp", "--embedding", "grewe"], "takes one embedding"),
                           (["--task", "openmp", "--data", "/nonexistent/x"], "no such file"),
                           (["--task", "vectorize", "--embedding", "none"], "vectorize has no context features")):
        assert cli.main(["evaluate", "tuning", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and fragment in err, err
    with pytest.raises(SystemExit):  # --budget is an option of `evaluate tuning` only
        cli.main(["evaluate", "measured", "openmp", "--budget", "5"])
