"""benchmarks/data_efficiency_pool.py: runs on disjoint held-out applications pool into what one run would say."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def _run(folds: list[str], groups: int, shares: dict[str, float]) -> dict:
    return {"task": "t", "comparison_folds": folds, "comparison_groups": groups,
            "curves": {m: [{"fraction": 1.0, "shares": [s, s]}] for m, s in shares.items()}}


def test_pooling_weights_each_run_by_its_groups(benchmark_module):
    pool = benchmark_module("data_efficiency_pool")
    out = pool.pooled([_run(["a"], 1, {"m": 0.5, "only_here": 1.0}), _run(["b", "c"], 3, {"m": 1.0})], 1.0)
    assert out == {"m": pytest.approx(math.exp(math.log(0.5) / 4))}  # a method missing from a run is left out
    with pytest.raises(ValueError, match="share held-out applications: b"):
        pool.pooled([_run(["a", "b"], 1, {"m": 0.5}), _run(["b"], 1, {"m": 0.5})], 1.0)


def test_the_committed_cuda_runs_pool_to_the_all_families_heads(benchmark_module):
    """The frozen head pooled over the two end-to-end runs is the heads-only run's figure on all ten families."""
    pool = benchmark_module("data_efficiency_pool")
    runs = [json.loads((RESULTS / f"data_efficiency_cuda_blocks_h200_{n}.json").read_text())
            for n in ("e2e", "scratch_all")]
    heads = json.loads((RESULTS / "data_efficiency_cuda_blocks_h200.json").read_text())
    out = pool.pooled(runs, 1.0)
    full = {m: next(c["share_mean"] for c in heads["curves"][m] if c["fraction"] == 1.0) for m in ("frozen", "default")}
    assert out["frozen"] == pytest.approx(full["frozen"], abs=1e-4)
    assert out["default"] == pytest.approx(full["default"], abs=1e-4)
    assert out["scratch"] < out["default"]  # the figure docs/data_efficiency.md reports: level, not above
