"""benchmarks/vectorize_signal.py: a label moved from the nearest loop in code, against one moved blindly."""

from __future__ import annotations

import numpy as np


def test_shares_count_a_failure_at_the_floor(benchmark_module):
    mod = benchmark_module("vectorize_signal")
    shares = mod.share_matrix(np.array([[1.0, 2.0, np.nan], [1.0, 0.5, 4.0]]))
    assert shares[0].tolist() == [0.5, 1.0, mod.FLOOR] and shares[1, 2] == 1.0


def test_the_nearest_loop_carries_the_label_only_where_similar_code_wants_the_same_configuration(benchmark_module):
    mod = benchmark_module("vectorize_signal")
    rng = np.random.default_rng(0)
    n = 40
    kind = np.arange(n) % 2  # two kinds of loop: kind 0 wants configuration 0, kind 1 configuration 1
    speedups = np.ones((n, 3))
    speedups[np.arange(n), kind] = 2.0
    shares, gains = mod.share_matrix(speedups), np.log(speedups)
    E = kind[:, None] + rng.normal(0, 0.1, (n, 4))  # the code tells the kinds apart
    sim = mod.standardised_cosine(E)
    assert np.allclose(np.diag(sim), 1.0)
    others = ~np.eye(n, dtype=bool)
    for k in (1, 5):
        assert mod.nearest_transfer(sim, others, gains, shares, k).tolist() == [1.0] * n
    # with the same kind out of reach, the nearest loop's best is wrong for every loop
    unlike = kind[:, None] != kind[None, :]
    assert mod.nearest_transfer(sim, unlike, gains, shares, 1).tolist() == [0.5] * n
    # code that says nothing of the kind: its nearest loop is right about half the time
    noise = mod.standardised_cosine(rng.normal(size=(n, 4)))
    assert 0.6 < mod.nearest_transfer(noise, others, gains, shares, 1).mean() < 0.9
    label_sim = np.corrcoef(gains)
    iu = np.triu_indices(n, 1)
    assert mod.spearman(sim[iu], label_sim[iu]) > 0.7 and abs(mod.spearman(noise[iu], label_sim[iu])) < 0.1
