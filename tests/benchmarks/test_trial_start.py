"""benchmarks/trial_start.py: an architecture from its pre-trained weights against the same from random weights."""

from __future__ import annotations

import json

import pytest


def _run(init: str, seed: int, *shares: float) -> dict:
    return {"task": "vectorize", "seed": seed, "shares": {
        **{f"{init}, {6 * (i + 1)} epochs": s for i, s in enumerate(shares)}, "best fixed": 0.88}}


def test_each_draw_compares_the_best_epochs_of_each_side_and_pools_the_draws_both_have(benchmark_module):
    mod = benchmark_module("trial_start")
    found = mod.compare([_run("finetune", 0, 0.90, 0.91), _run("finetune", 1, 0.86, 0.85), _run("finetune", 2, 0.9)],
                        [_run("scratch", 0, 0.89, 0.88), _run("scratch", 1, 0.87, 0.88)])
    assert found["draws"] == {0: (0.91, 0.89, 0.02), 1: (0.86, 0.88, -0.02)}  # draw 2 has no scratch side
    assert found["pooled"] == (pytest.approx((0.91 * 0.86) ** 0.5, abs=1e-4), pytest.approx((0.89 * 0.88) ** 0.5,
                                                                                            abs=1e-4))
    assert (found["above"], found["below"]) == (1, 1)
    with pytest.raises(mod.UsageError, match="no draw in common"):
        mod.compare([_run("finetune", 3, 0.9)], [_run("scratch", 0, 0.9)])
    with pytest.raises(mod.UsageError, match="--scratch wants results of trial_end_to_end.py --init scratch"):
        mod.compare([_run("finetune", 0, 0.9)], [{**_run("scratch", 0, 0.9), "init": "finetune"}])
    with pytest.raises(mod.UsageError, match="one share of the labels"):
        mod.compare([_run("finetune", 0, 0.9)], [{**_run("scratch", 0, 0.9), "fraction": 0.1}])
    with pytest.raises(mod.UsageError, match="one task"):
        mod.compare([_run("finetune", 0, 0.9)], [{**_run("scratch", 0, 0.9), "task": "openmp"}])


def test_the_command_prints_each_draw_and_a_stopped_run_is_one_line(tmp_path, capsys, benchmark_module):
    mod = benchmark_module("trial_start")
    ft, sc = tmp_path / "ft.json", tmp_path / "sc.json"
    ft.write_text(json.dumps(_run("finetune", 0, 0.90)))
    sc.write_text(json.dumps(_run("scratch", 0, 0.89)))
    assert mod.main(["--finetune", str(ft), "--scratch", str(sc)]) == 0
    out = capsys.readouterr().out
    assert "draw 0: from pre-trained weights 0.9000, from random 0.8900, difference +0.0100" in out
    assert "above in 1 of 1 draws, below in 0" in out
    sc.write_text(json.dumps({"task": "vectorize", "status": "partial: 3/20 fits"}))
    assert mod.main(["--finetune", str(ft), "--scratch", str(sc)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds no shares (partial: 3/20 fits)" in err[0]
