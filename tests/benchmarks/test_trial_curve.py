"""benchmarks/trial_curve.py: the end-to-end model against the frozen heads at each share of the labels."""

from __future__ import annotations

import json

import pytest


def _run(seed: int, fraction: float | None, e2e: tuple[float, ...], frozen: float, ir2vec: float = 0.85) -> dict:
    return {"task": "vectorize", "init": "scratch", "seed": seed, **({} if fraction is None else {"fraction": fraction}),
            "shares": {**{f"scratch, {6 * (i + 1)} epochs": s for i, s in enumerate(e2e)}, "default": 0.7,
                       "best fixed": 0.86, "frozen": frozen, "ir2vec": ir2vec}}


RUNS = [_run(0, 0.1, (0.80, 0.82), 0.87), _run(1, 0.1, (0.84,), 0.86), _run(2, 0.1, (0.85,), 0.80),
        _run(0, 0.5, (0.86,), 0.88), _run(1, 0.5, (0.87,), 0.87),
        _run(0, None, (0.90, 0.89), 0.88), _run(1, None, (0.89,), 0.88)]


def test_each_share_pools_the_draws_every_share_has_and_counts_the_frozen_heads_above(benchmark_module):
    mod = benchmark_module("trial_curve")
    found = mod.curve(RUNS)
    assert found["draws"] == [0, 1] and sorted(found["shares"]) == [0.1, 0.5, 1.0]  # draw 2 is at 0.1 only
    at = found["shares"][0.1]
    assert at["draws"][0] == {"end to end": 0.82, "best fixed": 0.86, "frozen": 0.87, "ir2vec": 0.85}
    assert at["pooled"]["end to end"] == pytest.approx((0.82 * 0.84) ** 0.5, abs=1e-4)
    assert (at["frozen above"], at["frozen below"]) == (2, 0)
    assert (found["shares"][1.0]["frozen above"], found["shares"][1.0]["frozen below"]) == (0, 2)


def test_a_factor_is_the_share_over_the_smallest_share_from_which_the_curve_stays_above(benchmark_module):
    mod = benchmark_module("trial_curve")
    by = mod.factors(mod.curve(RUNS))
    # frozen: 0.87/0.875 at 0.1, 0.875 at 0.5, 0.88 at 1; end to end 0.83 at 0.1, 0.865 at 0.5, 0.895 at 1
    assert by["frozen"] == {0.1: 1.0, 0.5: 5.0, 1.0: None}
    assert by["ir2vec"][0.1] == 1.0 and by["ir2vec"][0.5] is None


def test_mixed_or_repeated_results_and_no_common_draw_are_one_line(tmp_path, capsys, benchmark_module):
    mod = benchmark_module("trial_curve")
    with pytest.raises(mod.UsageError, match="one task and one start"):
        mod.curve([RUNS[0], {**RUNS[1], "init": "finetune"}])
    with pytest.raises(mod.UsageError, match="two results of draw 0 at 0.1 of the labels"):
        mod.curve([RUNS[0], RUNS[0]])
    with pytest.raises(mod.UsageError, match="no draw of the folds is at every share"):
        mod.curve([RUNS[2], RUNS[3]])
    paths = []
    for i, r in enumerate(RUNS):
        paths.append(tmp_path / f"r{i}.json")
        paths[-1].write_text(json.dumps(r))
    assert mod.main([str(p) for p in paths] + ["--png", str(tmp_path / "c.png")]) == 0
    out = capsys.readouterr().out
    assert "vectorize at 0.1: frozen - end to end +0.0351; frozen above in 2 of 2 draws, below in 0" in out
    assert (tmp_path / "c.png").stat().st_size > 0
    paths[0].write_text(json.dumps({"task": "vectorize", "status": "partial: 3/20 fits"}))
    assert mod.main([str(p) for p in paths]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "trial_end_to_end.py --resume" in err
