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


def test_a_second_measurement_that_repeats_the_first_agrees_fully(benchmark_module):
    agreement = benchmark_module("vectorize_noise").agreement
    rng = np.random.default_rng(5)
    cube = rng.uniform(0.5, 1.5, (10, 36, 3))
    got = agreement([f"p{i}" for i in range(10)], cube, [f"p{i}" for i in range(9, -1, -1)], cube[::-1] * 2)
    assert got["programs"] == 10 and got["pick_share_of_other_oracle"] == 1.0
    assert got["median_correlation_of_log_speedups"] == 1.0 and got["median_time_ratio"] == 0.5
