"""benchmarks/trial_by_files.py: the trial's differences from the controls against files seen in pre-training."""

from __future__ import annotations

from pathlib import Path

import pytest

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def test_a_result_of_five_draws_gives_its_first_draw(benchmark_module):
    """encoder_trial_real_medium_long.json (5 draws): vectorize seed 0 is 0.9136 against IR2Vec's 0.8991."""
    tbf = benchmark_module("trial_by_files")
    p = tbf.point(f"medium:44000={RESULTS / 'encoder_trial_real_medium_long.json'}")
    assert (p["series"], p["files"], p["encoder"]) == ("medium", 44000, "real-medium-2750")
    d = tbf.differences(p, "vectorize")
    assert d["score"] == pytest.approx(0.9136) and d["- ir2vec"] == pytest.approx(0.0145, abs=1e-9)
    assert (d["- ir2vec low"], d["- ir2vec high"]) == (0.0034, 0.0273)
    amd = tbf.differences(p, "devmap amd")
    assert amd["- random"] == pytest.approx(0.9221 - 0.7794, abs=1e-4)


def test_a_result_without_controls_has_a_score_and_no_differences(benchmark_module):
    tbf = benchmark_module("trial_by_files")
    p = tbf.point(f"small:59200={RESULTS / 'encoder_trial_real_small_3700.json'}")
    d = tbf.differences(p, "openmp")
    assert set(d) == {"score"}
    assert tbf.differences(p, "cuda_blocks") is None  # that trial did not run the task


def test_bad_points_are_one_line_and_the_chart_is_written(benchmark_module, tmp_path, capsys):
    tbf = benchmark_module("trial_by_files")
    assert tbf.main(["medium=x.json"]) == 2
    assert "expected SERIES:FILES=JSON" in capsys.readouterr().err
    assert tbf.main([f"gcc:25344={RESULTS / 'encoder_trial.json'}"]) == 2  # two encoders in one trial
    assert "wants a trial of one --encoder" in capsys.readouterr().err
    png = tmp_path / "t.png"
    assert tbf.main([f"medium:22400={RESULTS / 'encoder_trial_real_medium_1400.json'}",
                     f"medium:32000={RESULTS / 'encoder_trial_real_medium_bf16.json'}", "--png", str(png)]) == 0
    assert png.stat().st_size > 10_000
    assert "32,000 files  real-medium-bf16     0.9148  - ir2vec +0.0157" in capsys.readouterr().out
