"""benchmarks/trial_signal.py: what a representation's similarity offers a head, with programs as the unit."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mirtune.tasks import openmp
from mirtune.tasks.measured import GainTable


def _table(kind: np.ndarray, programs: list[str]) -> GainTable:
    """Groups x (default, a, b): a group of kind 0 runs 2x faster under a, of kind 1 under b."""
    n = len(kind)
    times = np.ones((n, 3))
    times[np.arange(n), 1 + kind] = 0.5
    return GainTable(spec=openmp.SPEC, configs=[{}, {"threads": 1}, {"threads": 2}], labels=["default", "a", "b"],
                     programs=programs, sizes=["1"] * n, apps=programs, sources=[Path(f"{p}.c") for p in programs],
                     times=times, statuses=[["ok"] * 3] * n, cv=np.zeros((n, 3)))


def test_similarity_that_knows_the_kind_carries_the_label_and_noise_does_not(benchmark_module):
    mod = benchmark_module("trial_signal")
    rng = np.random.default_rng(0)
    n = 40
    kind = np.arange(n) % 2
    programs = [f"p{i // 2}" for i in range(n)]  # two groups per program, of different kinds: the sibling is no help
    table = _table(kind, programs)
    vectors = {"code": kind[:, None] + rng.normal(0, 0.1, (n, 4)), "random": rng.normal(size=(n, 4))}
    result = mod.analyse("openmp", vectors, table, programs)
    shares = result["share_of_oracle"]
    assert result["groups"] == n and result["programs"] == n // 2
    assert shares["nearest by code"] == shares["5 nearest by code"] == 1.0
    assert shares["default"] == 0.5 and shares["best other-program group (ceiling)"] == 1.0
    assert shares["nearest by random"] < 0.9 and shares[mod.BLIND] < 0.8
    assert result["intervals"]["5 nearest by code"]["vs blind transfer"][1] > 0
    assert result["code_label_rank_correlation"]["code"] > 0.7 > abs(result["code_label_rank_correlation"]["random"])


def test_an_unknown_task_is_one_line(capsys, benchmark_module):
    assert benchmark_module("trial_signal").main(["--tasks", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown task 'nosuch'" in err
