"""benchmarks/encoder_trial.py's paired interval: what the trial calls a difference beyond the noise."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from encoder_trial import paired_interval  # noqa: E402


def mean(v: np.ndarray) -> float:
    return float(v.mean())


def test_the_same_scores_differ_by_nothing():
    a = np.random.default_rng(0).random(40)
    assert paired_interval(a, a.copy(), [f"p{i // 4}" for i in range(40)], mean) == [0.0, 0.0, 0.0]


def test_a_constant_gain_is_its_own_interval():
    b = np.random.default_rng(1).random(30)
    d, lo, hi = paired_interval(b + 0.1, b, [f"p{i % 6}" for i in range(30)], mean)
    assert d == lo == hi == 0.1


def test_a_gain_from_one_program_alone_is_not_beyond_the_noise():
    # ten programs of five rows: the encoder wins every row of one program and ties elsewhere
    groups = [f"p{i // 5}" for i in range(50)]
    b = np.zeros(50)
    a = b.copy()
    a[:5] = 1.0
    d, lo, hi = paired_interval(a, b, groups, mean)
    assert d == 0.1 and lo == 0.0 < hi
    # the same gain spread over every program is beyond it
    a = b.copy()
    a[::5] = 0.5
    d, lo, hi = paired_interval(a, b, groups, mean)
    assert d == 0.1 and lo == hi == 0.1
