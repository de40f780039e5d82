"""benchmarks/trial_factor.py: a frozen curve's factor against the best end-to-end model of the same folds."""

from __future__ import annotations

import json

import pytest


def _trial() -> dict:
    return {"vectorize": {"default": 0.70, "best fixed": 0.88, "enc": 0.91, "ir2vec": 0.89, "oracle": 1.0},
            "fractions": {"vectorize": {"shares": {
                "0.1": {"default": 0.70, "best fixed": 0.85, "enc": 0.87, "ir2vec": 0.86, "oracle": 1.0},
                "0.5": {"default": 0.70, "best fixed": 0.88, "enc": 0.89, "ir2vec": 0.86, "oracle": 1.0}}}}}


def test_the_reference_is_the_best_end_to_end_share_and_each_curve_gets_its_factor(benchmark_module):
    mod = benchmark_module("trial_factor")
    runs = [{"task": "vectorize", "shares": {"scratch, 6 epochs": 0.86, "best fixed": 0.88}},
            {"task": "vectorize", "shares": {"scratch, 12 epochs": 0.885, "best fixed": 0.88}}]
    assert mod.reference(runs) == ("scratch, 12 epochs", 0.885, 0.88)
    assert mod.factors(_trial(), "vectorize", 0.885) == {"best fixed": None, "enc": 2.0, "ir2vec": 1.0}
    assert mod.factors(_trial(), "vectorize", 0.86) == {"best fixed": 2.0, "enc": 10.0, "ir2vec": 10.0}
    draws = [{"task": "vectorize", "seed": 1, "shares": {"scratch, 3 epochs": 0.90, "best fixed": 0.88}},
             {"task": "vectorize", "seed": 1, "shares": {"scratch, 6 epochs": 0.80, "best fixed": 0.88}}]
    name, share, fixed = mod.reference(runs + draws)  # draw 0's best 0.885, draw 1's 0.90, pooled
    assert "pooled over draws 0, 1" in name and share == pytest.approx((0.885 * 0.90) ** 0.5, abs=1e-4)
    assert fixed == pytest.approx(0.88, abs=1e-4)
    with pytest.raises(mod.UsageError, match="no end-to-end shares"):
        mod.reference([{"task": "vectorize", "shares": {"best fixed": 0.88}}])


def test_results_of_a_task_the_trial_has_no_curve_of_are_one_line(tmp_path, capsys, benchmark_module):
    mod = benchmark_module("trial_factor")
    end = tmp_path / "e.json"
    end.write_text(json.dumps({"task": "openmp", "shares": {"scratch, 3 epochs": 0.9, "best fixed": 0.91}}))
    trial = tmp_path / "t.json"
    trial.write_text(json.dumps(_trial()))
    assert mod.main([str(end), str(trial)]) == 2
    assert mod.main([str(tmp_path / "missing.json"), str(trial)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "one task that" in err[0] and "cannot read" in err[1]
    end.write_text(json.dumps({"task": "vectorize", "shares": {"scratch, 3 epochs": 0.885, "best fixed": 0.88}}))
    assert mod.main([str(end), str(trial), "--png", str(tmp_path / "f.png")]) == 0
    out = capsys.readouterr().out
    assert "enc                          reaches it from 1/2 of the labels (factor 2)" in out
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"wrote {tmp_path / 'f.png'}" in out


def test_a_run_still_going_is_one_line_that_says_how_to_finish_it(tmp_path, capsys, benchmark_module):
    mod = benchmark_module("trial_factor")
    end, trial = tmp_path / "e.json", tmp_path / "t.json"
    end.write_text(json.dumps({"task": "vectorize", "status": "partial: 6/10 fits", "fits": []}))
    trial.write_text(json.dumps(_trial()))
    assert mod.main([str(end), str(trial)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds no shares (partial: 6/10 fits)" in err[0] and "--resume" in err[0]


def test_a_reference_trained_on_a_share_of_the_labels_is_refused_in_one_line(tmp_path, capsys, benchmark_module):
    mod = benchmark_module("trial_factor")
    end, trial = tmp_path / "e.json", tmp_path / "t.json"
    end.write_text(json.dumps({"task": "vectorize", "fraction": 0.5,
                               "shares": {"scratch, 3 epochs": 0.885, "best fixed": 0.88}}))
    trial.write_text(json.dumps(_trial()))
    assert mod.main([str(end), str(trial)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "trained on a share of the labels (--fraction)" in err[0] and "trial_curve.py" in err[0]
