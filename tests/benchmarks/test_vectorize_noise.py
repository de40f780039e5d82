"""benchmarks/vectorize_noise.py: the oracle's margin over LLVM's choice, with the timed runs split."""

from __future__ import annotations

import numpy as np


def test_noise_alone_flatters_the_oracle_and_the_split_run_oracle_sees_through_it(benchmark_module):
    report = benchmark_module("vectorize_noise").noise_report
    rng = np.random.default_rng(3)
    same = 1.0 + rng.normal(0, 0.03, (200, 36, 3))  # every configuration equally fast: all noise
    got = report(same)
    assert got["oracle_speedup_over_llvm"] > 1.03  # the least of 36 noisy medians
    assert abs(got["split_run_oracle_speedup_over_llvm"] - 1.0) < 0.01
    assert got["best_beats_llvm_beyond_noise_by_1.1x"] == 0
    faster = same.copy()
    faster[:, 7] *= 0.5  # one configuration really 2x faster everywhere
    got = report(faster)
    assert abs(got["split_run_oracle_speedup_over_llvm"] - 2.0) < 0.05 and got["split_run_picks_llvm"] == 0
    assert got["best_beats_llvm_beyond_noise"] == got["best_beats_llvm_beyond_noise_by_1.1x"] == 200
