"""benchmarks/openmp_signal.py: the headroom over the best fixed configuration, naive and cross-validated over
repeats; and what a program's other input says (the identity control is mirtune.tasks.embedders.random_embedder,
tested in tests/tasks/test_embedders.py)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from mirtune.tasks import openmp
from mirtune.tasks.measured import GainTable


@pytest.fixture(scope="module")
def signal(benchmark_module):
    return benchmark_module("openmp_signal")


def _table(times: list[list[float]], programs: list[str]) -> GainTable:
    """Groups x (default, a, b) of the given median times; every program is its own application."""
    n = len(times)
    return GainTable(spec=openmp.SPEC, configs=[{}, {"threads": 1}, {"threads": 2}], labels=["default", "a", "b"],
                     programs=programs, sizes=[str(i) for i in range(n)], apps=programs,
                     sources=[Path(f"{p}.c") for p in programs], times=np.array(times, dtype=float),
                     statuses=[["ok"] * 3] * n, cv=np.zeros((n, 3)))


def test_cross_validated_headroom_removes_the_winners_curse(signal):
    # b is best on average, so it is the best fixed configuration of the group held out
    table = _table([[1.0, 1.2, 0.5], [1.0, 1.2, 0.5], [1.0, 0.90, 1.0]], ["gemm", "gemm_twin", "mandel"])
    # mandel: a looks 10% faster than b by its median, but it won only one repeat of three, by noise
    reps = [{}, {}, {"default": np.array([1.0, 1.0, 1.0]), "a": np.array([0.9, 1.2, 1.2]),
                     "b": np.array([1.0, 1.0, 1.0])}]
    room = signal.headroom(table, reps)
    ordinary = room["ordinary (arguments, input files)"]
    assert ordinary["groups"] == 1
    assert math.isclose(ordinary["naive"], 1.0 / 0.9)
    # whichever repeat is held out, a is not the fastest on the other two: it never beats b where it is timed
    assert math.isclose(ordinary["cross_validated"], 1.0)


def test_other_input_best_is_what_the_program_wants_elsewhere(signal):
    # one program, two inputs that want different configurations, and a third program that teaches best fixed
    table = _table([[1.0, 0.5, 1.0], [1.0, 1.0, 0.5], [1.0, 2.0, 0.5]], ["mandel", "mandel", "gemm"])
    out = signal.input_transfer(table)
    assert out["all"]["groups"] == 2  # gemm has one input: it is not counted
    # input 0's best (a) on input 1 is 0.5 of its oracle, and the other way round
    assert math.isclose(out["all"]["other_input_best"], 0.5)
