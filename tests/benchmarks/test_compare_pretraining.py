"""benchmarks/compare_pretraining.py: held-out curves of pre-training runs against the files each had seen."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_committed_small_run_reads_as_its_log_says(benchmark_module):
    """docs/pretrain_real_small: 16 files a step, held-out MLM 0.781 at step 6,000 (95,991 files seen)."""
    cmp = benchmark_module("compare_pretraining")
    rows = cmp.curve(DOCS / "pretrain_real_small")
    assert rows[0]["files"] == 400 * 16
    assert rows[-1]["files"] == 95_991 and rows[-1]["mlm_accuracy"] == pytest.approx(0.781, abs=5e-4)
    assert 0.9 < rows[-1]["auc_mean"] < 1.0


def test_a_run_without_files_seen_or_with_a_stray_step_is_refused(benchmark_module, tmp_path, capsys):
    cmp = benchmark_module("compare_pretraining")
    run = tmp_path / "run"
    run.mkdir()
    (run / "heldout.csv").write_text("step,mlm_accuracy,match_accuracy,auc_control,auc_data,auc_call\n"
                                     "10,0.5,0.6,0.9,0.9,0.9\n")
    assert cmp.main([f"r={run}"]) == 2
    assert "lacks heldout.csv or metrics.csv" in capsys.readouterr().err
    with gzip.open(run / "metrics.csv.gz", "wt") as f:
        f.write("step,samples\n5,80\n")
    with pytest.raises(ValueError, match="no metrics row for held-out step 10"):
        cmp.curve(run)
    assert cmp.main(["no-equals-sign"]) == 2


def test_the_chart_is_written(benchmark_module, tmp_path, capsys):
    cmp = benchmark_module("compare_pretraining")
    png = tmp_path / "c.png"
    assert cmp.main([f"small={DOCS / 'pretrain_real_small'}", "--png", str(png)]) == 0
    assert png.stat().st_size > 10_000
    assert "95,991   0.781" in capsys.readouterr().out


def test_speed_per_stretch_of_the_committed_bf16_run(benchmark_module, capsys):
    """docs/pretrain_real_medium_bf16: 2,000 steps of 16 files; its first 200 steps took 471 s of step time."""
    cmp = benchmark_module("compare_pretraining")
    stretches = cmp.speed(DOCS / "pretrain_real_medium_bf16", 200)
    assert len(stretches) == 10 and stretches[-1]["last_step"] == 2000
    assert sum(r["files"] for r in stretches) == 32_000
    assert stretches[0]["files_per_s"] == pytest.approx(3200 / 471, rel=0.01)
    assert cmp.main(["--speed", "500", f"bf16={DOCS / 'pretrain_real_medium_bf16'}"]) == 0
    out = capsys.readouterr().out
    assert "1501-2000" in out and "median of 4 stretches" in out


def test_speed_refuses_a_step_time_that_does_not_grow_and_a_negative_stretch(benchmark_module, tmp_path, capsys):
    cmp = benchmark_module("compare_pretraining")
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.csv").write_text("step,samples,time_s\n1,16,2.0\n2,32,4.0\n3,48,4.0\n")
    with pytest.raises(ValueError, match="does not grow between steps 2 and 3"):
        cmp.speed(run, 1)
    assert cmp.main(["--speed", "-3", f"r={run}"]) == 2
    assert "positive number of steps" in capsys.readouterr().err


def test_step_costs_follow_the_runs_own_order_of_its_corpus(benchmark_module, tmp_path, capsys):
    """A run's command (in its provenance) names its corpus, workers, batch and seed: step k's cost is the mean
    estimated cost of the files pass_order put at its place, and the second pass takes up a new order."""
    import json

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from mirtune.pretrain.batches import file_costs, pass_order

    cmp = benchmark_module("compare_pretraining")
    train = tmp_path / "corpus" / "samples" / "split=train"
    train.mkdir(parents=True)
    n_stmt, n_edges = np.arange(10, 80, 7), np.arange(0, 50, 5)  # 10 files over two shards
    pq.write_table(pa.table({"n_stmt": n_stmt[:6], "n_edges": n_edges[:6]}), train / "part-a.parquet")
    pq.write_table(pa.table({"n_stmt": n_stmt[6:], "n_edges": n_edges[6:]}), train / "part-b.parquet")
    run = tmp_path / "run"
    run.mkdir()
    (run / "provenance.json").write_text(json.dumps({"command": f"mirtune pretrain --corpus {tmp_path / 'corpus'} "
                                                                f"--out x --workers 2 --batch-size 2 --seed 3 "
                                                                f"--max-statements 40"}))
    costs = file_costs(n_stmt, n_edges, 40)
    got = cmp.step_costs(run, 4)  # 10 files, 4 a step: 3 steps a pass (the last of 2 files), then pass 2
    first, second = pass_order(3, 0, 10), pass_order(3, 1, 10)
    want = [costs[first[:4]].mean(), costs[first[4:8]].mean(), costs[first[8:]].mean(), costs[second[:4]].mean()]
    np.testing.assert_allclose(got, want)
    (run / "metrics.csv").write_text("step,samples,time_s\n1,4,1.0\n2,8,2.0\n3,10,3.0\n4,14,4.0\n")
    assert cmp.main(["--speed", "2", "--costs", f"r={run}"]) == 0
    out = capsys.readouterr().out
    assert "mean cost" in out and f"{(want[0] + want[1]) / 2 * 4:.0f}" in out.splitlines()[2]
    assert cmp.main(["--costs", f"r={run}"]) == 2  # --costs without --speed


def test_costs_refuse_an_exported_models_provenance(benchmark_module, tmp_path, capsys):
    """An exported model's provenance holds the export command: the run's order cannot be read from it."""
    import json

    cmp = benchmark_module("compare_pretraining")
    run = tmp_path / "model"
    run.mkdir()
    (run / "provenance.json").write_text(json.dumps({"command": "mirtune model export ck --corpus c --out model"}))
    (run / "metrics.csv").write_text("step,samples,time_s\n1,16,1.0\n2,32,2.0\n")
    assert cmp.main(["--speed", "1", "--costs", f"m={run}"]) == 2
    assert "not a pre-training command" in capsys.readouterr().err
